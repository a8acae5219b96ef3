<?php
// Test harness (WHMCS 8.13): what the admin area, the client area and the cron do around the
// module, for the tests to drive: set up the system, activate and configure the gateway (with the
// module's _config_validate, as the Payment Gateways page does), render an invoice's pay button with
// the _link parameters WHMCS passes, and run the cron's AfterCronJob hook point.

require_once ROOTDIR . '/includes/gatewayfunctions.php';
require_once ROOTDIR . '/includes/invoicefunctions.php';

use WHMCS\Database\Capsule;
use WHMCS\Exception\Module\InvalidConfiguration;

const HARNESS_GATEWAY = 'cryptocheckout';

/** @param array<string, string> $currencies code => rate against the base currency (the first) */
function harness_setup(string $systemUrl, array $currencies): void
{
    Capsule::table('tblconfiguration')->insert(['setting' => 'SystemURL', 'value' => $systemUrl]);
    Capsule::table('tblconfiguration')->insert(['setting' => 'CompanyName', 'value' => 'Example Hosting']);
    $first = true;
    foreach ($currencies as $code => $rate) {
        Capsule::table('tblcurrencies')->insert(['code' => $code, 'prefix' => '', 'suffix' => ' ' . $code, 'rate' => $rate, 'default' => $first ? 1 : 0]);
        $first = false;
    }
}

function harness_currency_id(string $code): int
{
    return (int) Capsule::table('tblcurrencies')->where('code', $code)->value('id');
}

function harness_load_module(): void
{
    require_once ROOTDIR . '/modules/gateways/' . HARNESS_GATEWAY . '.php';
}

/**
 * Activates the gateway and saves $settings as the Payment Gateways page does: refuses the save when
 * the module's _config_validate() throws InvalidConfiguration, and reports its message.
 *
 * @param array<string, string> $settings
 * @return array{saved: bool, error?: string}
 */
function harness_save_gateway(array $settings): array
{
    harness_load_module();
    $config = call_user_func(HARNESS_GATEWAY . '_config');
    $values = [];
    foreach ($config as $key => $field) {
        if ($key === 'FriendlyName') {
            continue;
        }
        $values[$key] = array_key_exists($key, $settings) ? (string) $settings[$key] : (string) ($field['Default'] ?? '');
    }
    $values['convertto'] = (string) ($settings['convertto'] ?? '');
    $validate = HARNESS_GATEWAY . '_config_validate';
    if (function_exists($validate)) {
        try {
            $validate($values + ['paymentmethod' => HARNESS_GATEWAY]);
        } catch (InvalidConfiguration $error) {
            return ['saved' => false, 'error' => $error->getMessage()];
        }
    }
    Capsule::table('tblpaymentgateways')->where('gateway', HARNESS_GATEWAY)->delete();
    $rows = ['name' => (string) $config['FriendlyName']['Value'], 'type' => 'Invoices', 'visible' => 'on'] + $values;
    $order = 0;
    foreach ($rows as $setting => $value) {
        Capsule::table('tblpaymentgateways')->insert(['gateway' => HARNESS_GATEWAY, 'setting' => $setting, 'value' => $value, 'order' => $order++]);
    }
    return ['saved' => true];
}

function harness_create_client(string $currencyCode): int
{
    return Capsule::table('tblclients')->insertGetId([
        'firstname' => 'Ada', 'lastname' => 'Lovelace', 'email' => 'ada@example.com',
        'currency' => harness_currency_id($currencyCode),
    ]);
}

function harness_create_invoice(int $userId, string $total): int
{
    return Capsule::table('tblinvoices')->insertGetId([
        'userid' => $userId, 'date' => date('Y-m-d'), 'duedate' => date('Y-m-d'), 'datepaid' => null,
        'total' => $total, 'status' => 'Unpaid', 'paymentmethod' => HARNESS_GATEWAY, 'notes' => '',
    ]);
}

/**
 * The parameters WHMCS passes to _link on the invoice page: the gateway settings, the balance in the
 * client's currency, or, with "Convert To For Processing", converted to that currency with the
 * original kept in basecurrencyamount / basecurrency. Amounts come in WHMCS's "xxx.xx" format
 * (https://developers.whmcs.com/payment-gateways/third-party-gateway/), two decimals whatever the
 * currency: 17.87 USD converted to JPY is "2680.50". invoicenum is the number printed on the invoice.
 *
 * @return array<string, mixed>
 */
function harness_link_params(int $invoiceId): array
{
    $params = getGatewayVariables(HARNESS_GATEWAY);
    $invoice = localAPI('GetInvoice', ['invoiceid' => $invoiceId]);
    $client = localAPI('GetClientsDetails', ['clientid' => $invoice['userid']]);
    $clientCurrency = (int) $client['currency'];
    $amount = $invoice['balance'];
    $currency = $client['currency_code'];
    $convertTo = (int) ($params['convertto'] ?? 0);
    if ($convertTo > 0 && $convertTo !== $clientCurrency) {
        $params['basecurrencyamount'] = $amount;
        $params['basecurrency'] = $currency;
        $amount = number_format(convertCurrency($amount, $clientCurrency, $convertTo), 2, '.', '');
        $currency = (string) Capsule::table('tblcurrencies')->where('id', $convertTo)->value('code');
    }
    // The number printed on the invoice: the custom one with sequential paid-invoice numbering, else the id.
    $number = $invoice['invoicenum'] !== '' ? $invoice['invoicenum'] : (string) $invoiceId;
    return $params + [
        'invoiceid' => $invoiceId,
        'invoicenum' => $number,
        'description' => $params['companyname'] . ' - Invoice #' . $number,
        'amount' => $amount,
        'currency' => $currency,
        'clientdetails' => $client['client'],
        'returnurl' => $params['systemurl'] . 'viewinvoice.php?id=' . $invoiceId,
        'whmcsVersion' => '8.13.1-release.1',
    ];
}

function harness_view_invoice(int $invoiceId): string
{
    harness_load_module();
    return (string) call_user_func(HARNESS_GATEWAY . '_link', harness_link_params($invoiceId));
}

function harness_run_cron(): void
{
    run_hook('AfterCronJob', []);
}

/** @return array<string, mixed> */
function harness_invoice_state(int $invoiceId): array
{
    return [
        'invoice' => localAPI('GetInvoice', ['invoiceid' => $invoiceId]),
        'payments' => Capsule::table('tblaccounts')->where('invoiceid', $invoiceId)->get()->all(),
        'gatewaylog' => Capsule::table('tblgatewaylog')->orderBy('id')->get()->all(),
        'notes' => Capsule::table('tblnotes')->orderBy('id')->get()->all(),
        'activity' => Capsule::table('tblactivitylog')->orderBy('id')->get()->all(),
    ];
}
