{**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 *}
{extends file='page.tpl'}
{block name='page_content'}
  <section class="cryptocheckout-embedded" data-cryptocheckout-embed data-checkout-url="{$cryptocheckout_checkout_url|escape:'html':'UTF-8'}" data-return-url="{$cryptocheckout_return_url|escape:'html':'UTF-8'}">
    <h1 class="h1">{l s='Crypto payment' d='Modules.Cryptocheckout.Shop'}</h1>
    <p>{l s='Order reference:' d='Modules.Cryptocheckout.Shop'} <strong>{$cryptocheckout_reference|escape:'html':'UTF-8'}</strong></p>
    <p>{l s='The payment window opens over this page. If it does not, use the button below.' d='Modules.Cryptocheckout.Shop'}</p>
    <p>
      <a class="btn btn-primary" data-cryptocheckout-open href="{$cryptocheckout_checkout_url|escape:'html':'UTF-8'}">{l s='Open the payment window' d='Modules.Cryptocheckout.Shop'}</a>
      <a class="btn btn-secondary" href="{$cryptocheckout_return_url|escape:'html':'UTF-8'}">{l s='I have paid' d='Modules.Cryptocheckout.Shop'}</a>
    </p>
  </section>
{/block}
