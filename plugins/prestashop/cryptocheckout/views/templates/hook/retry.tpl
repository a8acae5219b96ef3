{**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 *}
<p class="cryptocheckout-retry">
  <a class="btn btn-primary" data-cryptocheckout-retry href="{$cryptocheckout_retry_url|escape:'html':'UTF-8'}">{l s='Start a new payment' d='Modules.Cryptocheckout.Shop'}</a>
</p>
