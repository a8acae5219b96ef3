{**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 *}
<section class="cryptocheckout-status card card-block" data-cryptocheckout-status data-status-url="{$cryptocheckout_status_url|escape:'html':'UTF-8'}" data-state="{$cryptocheckout_state|escape:'html':'UTF-8'}">
  <h3 class="h3">{l s='Crypto payment' d='Modules.Cryptocheckout.Shop'}</h3>
  <p>{l s='Order reference:' d='Modules.Cryptocheckout.Shop'} <strong>{$cryptocheckout_reference|escape:'html':'UTF-8'}</strong></p>
  <p class="cryptocheckout-status__label" role="status" aria-live="polite" data-cryptocheckout-label>{$cryptocheckout_state_label|escape:'html':'UTF-8'}</p>
  {if $cryptocheckout_pay_url}
    <p><a class="btn btn-primary" data-cryptocheckout-pay href="{$cryptocheckout_pay_url|escape:'html':'UTF-8'}">{l s='Pay now' d='Modules.Cryptocheckout.Shop'}</a></p>
  {/if}
</section>
