{**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 *}
<div class="card mt-2" id="cryptocheckout-order-panel">
  <div class="card-header"><h3 class="card-header-title">{l s='Crypto Checkout' d='Modules.Cryptocheckout.Admin'}</h3></div>
  <div class="card-body">
    {if $cryptocheckout_checkouts}
      <table class="table">
        <thead>
          <tr>
            <th>{l s='Transaction' d='Modules.Cryptocheckout.Admin'}</th>
            <th>{l s='State' d='Modules.Cryptocheckout.Admin'}</th>
            <th>{l s='Amount' d='Modules.Cryptocheckout.Admin'}</th>
            <th>{l s='Received' d='Modules.Cryptocheckout.Admin'}</th>
            <th>{l s='Wallet' d='Modules.Cryptocheckout.Admin'}</th>
            <th>{l s='Created' d='Modules.Cryptocheckout.Admin'}</th>
            <th>{l s='Payment window ends' d='Modules.Cryptocheckout.Admin'}</th>
            <th>{l s='Last check' d='Modules.Cryptocheckout.Admin'}</th>
            <th>{l s='Outcome' d='Modules.Cryptocheckout.Admin'}</th>
          </tr>
        </thead>
        <tbody>
          {foreach $cryptocheckout_checkouts as $checkout}
            <tr data-cryptocheckout-transaction="{$checkout.transaction_code|escape:'html':'UTF-8'}">
              <td><a href="{$checkout.checkout_url|escape:'html':'UTF-8'}" target="_blank" rel="noopener noreferrer"><code>{$checkout.transaction_code|escape:'html':'UTF-8'}</code></a></td>
              <td data-cryptocheckout-state>{$checkout.state|escape:'html':'UTF-8'}</td>
              <td>{$checkout.amount|escape:'html':'UTF-8'}</td>
              <td data-cryptocheckout-received>{$checkout.received|escape:'html':'UTF-8'}</td>
              <td><code>{$checkout.wallet|escape:'html':'UTF-8'}</code></td>
              <td>{$checkout.created|escape:'html':'UTF-8'}</td>
              <td>{$checkout.expires|escape:'html':'UTF-8'}</td>
              <td>{$checkout.checked|escape:'html':'UTF-8'}</td>
              <td data-cryptocheckout-resolution>{$checkout.resolution|escape:'html':'UTF-8'}</td>
            </tr>
          {/foreach}
        </tbody>
      </table>
    {else}
      <p data-cryptocheckout-no-checkout>{l s='No checkout was created yet (the service was unreachable when the order was placed).' d='Modules.Cryptocheckout.Admin'}</p>
    {/if}
    {if $cryptocheckout_refunds}
      <h4>{l s='Refunds' d='Modules.Cryptocheckout.Admin'}</h4>
      <ul class="list-unstyled" data-cryptocheckout-refunds>
        {foreach $cryptocheckout_refunds as $refund}
          <li class="mb-2" data-cryptocheckout-refund="{$refund.status|escape:'html':'UTF-8'}">
            <strong>{l s='Credit slip' d='Modules.Cryptocheckout.Admin'} #{$refund.credit_slip|escape:'html':'UTF-8'}</strong>
            {foreach $refund.lines as $line}
              <div>{$line.text|escape:'html':'UTF-8'}{if $line.link} <a href="{$line.link|escape:'html':'UTF-8'}" target="_blank" rel="noopener noreferrer">{$line.link_text|escape:'html':'UTF-8'}</a>{/if}</div>
            {/foreach}
          </li>
        {/foreach}
      </ul>
    {/if}
    {if $cryptocheckout_notes}
      <h4>{l s='Notes' d='Modules.Cryptocheckout.Admin'}</h4>
      <ul class="list-unstyled" data-cryptocheckout-notes>
        {foreach $cryptocheckout_notes as $note}
          <li><small class="text-muted">{$note.date|escape:'html':'UTF-8'}</small> {$note.text|escape:'html':'UTF-8'}</li>
        {/foreach}
      </ul>
    {/if}
  </div>
</div>
