{**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 *}
<div class="card mt-2" id="cryptocheckout-order-panel">
  <div class="card-header"><h3 class="card-header-title">{l s='Crypto Checkout' d='Modules.Cryptocheckout.Admin'}</h3></div>
  <div class="card-body">
    <dl class="row">
      <dt class="col-sm-4">{l s='Transaction' d='Modules.Cryptocheckout.Admin'}</dt>
      <dd class="col-sm-8" data-cryptocheckout-transaction>{if $cryptocheckout_transaction_code}<a href="{$cryptocheckout_checkout_url|escape:'html':'UTF-8'}" target="_blank" rel="noopener noreferrer">{$cryptocheckout_transaction_code|escape:'html':'UTF-8'}</a>{else}{l s='Not created (the service was unreachable)' d='Modules.Cryptocheckout.Admin'}{/if}</dd>
      <dt class="col-sm-4">{l s='Payment state' d='Modules.Cryptocheckout.Admin'}</dt>
      <dd class="col-sm-8" data-cryptocheckout-state>{$cryptocheckout_state|escape:'html':'UTF-8'}</dd>
      <dt class="col-sm-4">{l s='Amount' d='Modules.Cryptocheckout.Admin'}</dt>
      <dd class="col-sm-8">{$cryptocheckout_amount|escape:'html':'UTF-8'}</dd>
      <dt class="col-sm-4">{l s='Wallet' d='Modules.Cryptocheckout.Admin'}</dt>
      <dd class="col-sm-8"><code>{$cryptocheckout_wallet|escape:'html':'UTF-8'}</code></dd>
      <dt class="col-sm-4">{l s='Last check' d='Modules.Cryptocheckout.Admin'}</dt>
      <dd class="col-sm-8">{$cryptocheckout_last_status|escape:'html':'UTF-8'} {$cryptocheckout_last_checked|escape:'html':'UTF-8'}</dd>
    </dl>
  </div>
</div>
