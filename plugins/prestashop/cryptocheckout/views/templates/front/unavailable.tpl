{**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 *}
{extends file='page.tpl'}
{block name='page_content'}
  <section class="cryptocheckout-unavailable alert alert-warning" role="alert">
    <h1 class="h1">{l s='The crypto payment could not be started' d='Modules.Cryptocheckout.Shop'}</h1>
    <p data-cryptocheckout-problem>{$cryptocheckout_problem|escape:'html':'UTF-8'}</p>
    <p>{l s='Your order has been saved with reference' d='Modules.Cryptocheckout.Shop'} <strong>{$cryptocheckout_reference|escape:'html':'UTF-8'}</strong>. {l s='Nothing has been charged.' d='Modules.Cryptocheckout.Shop'}</p>
    <p><a class="btn btn-primary" data-cryptocheckout-retry href="{$cryptocheckout_retry_url|escape:'html':'UTF-8'}">{l s='Try the payment again' d='Modules.Cryptocheckout.Shop'}</a></p>
  </section>
{/block}
