{**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 *}
<div class="panel" id="cryptocheckout-status-panel">
  <div class="panel-heading"><i class="icon-heart"></i> {l s='Status' d='Modules.Cryptocheckout.Admin'}</div>
  <dl class="dl-horizontal">
    <dt>{l s='Service' d='Modules.Cryptocheckout.Admin'}</dt>
    <dd data-cryptocheckout-reachable="{if $cryptocheckout_reachable}yes{else}no{/if}">
      {if $cryptocheckout_reachable}
        <span class="label label-success">{l s='Reachable' d='Modules.Cryptocheckout.Admin'}</span>
        {if $cryptocheckout_not_offered}
          <span class="label label-warning" data-cryptocheckout-not-offered>{l s='Settlement not offered' d='Modules.Cryptocheckout.Admin'}</span> {$cryptocheckout_not_offered|escape:'html':'UTF-8'}
        {/if}
      {else}
        <span class="label label-danger">{l s='Not reachable' d='Modules.Cryptocheckout.Admin'}</span> {$cryptocheckout_problem|escape:'html':'UTF-8'}
      {/if}
    </dd>
    <dt>{l s='Last webhook received' d='Modules.Cryptocheckout.Admin'}</dt>
    <dd data-cryptocheckout-last-webhook>{if $cryptocheckout_last_webhook}{$cryptocheckout_last_webhook|escape:'html':'UTF-8'}{else}{l s='Never' d='Modules.Cryptocheckout.Admin'}{/if}</dd>
    <dt>{l s='Last scheduled poll' d='Modules.Cryptocheckout.Admin'}</dt>
    <dd data-cryptocheckout-last-poll>{if $cryptocheckout_last_poll}{$cryptocheckout_last_poll|escape:'html':'UTF-8'}{else}{l s='Never' d='Modules.Cryptocheckout.Admin'}{/if}</dd>
    <dt>{l s='Webhook address' d='Modules.Cryptocheckout.Admin'}</dt>
    <dd><code>{$cryptocheckout_webhook_url|escape:'html':'UTF-8'}</code></dd>
  </dl>
  <p>{l s='Webhooks are sent once. Add this line to your server crontab so that open orders are checked every five minutes:' d='Modules.Cryptocheckout.Admin'}</p>
  <pre data-cryptocheckout-cron>{$cryptocheckout_cron_line|escape:'html':'UTF-8'}</pre>
</div>
