{**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 *}
<section class="cryptocheckout-option">
  <p>{l s='Pay with USDC, USDT, BTC, ETH or SOL from any wallet. You will be taken to a secure payment page to complete the payment.' d='Modules.Cryptocheckout.Shop'}</p>
</section>
