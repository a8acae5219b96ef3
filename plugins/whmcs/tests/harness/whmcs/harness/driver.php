<?php
// Test harness (WHMCS 8.13): what the admin area, the client area and the cron do around the
// module, for the tests to drive: set up the system, activate and configure the gateway (with the
// module's _config_validate, as the Payment Gateways page does), render an invoice's pay button with
// the _link parameters WHMCS passes, run the cron's AfterCronJob hook point, refund a payment from
// the invoice's Refund tab ("Refund through Gateway", which calls the gateway's _refund function)
// and render the admin's invoice page (the AdminInvoicesControlsOutput hook point).

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

/**
 * The invoice's Refund tab with Refund Type "Refund through Gateway" (refundInvoicePayment), as
 * the refunds page of the developer documentation and the WHMCS documentation describe it
 * (https://developers.whmcs.com/payment-gateways/refunds/: the parameters; "Refunding Payments" in
 * the Invoicing documentation: "If successful the relevant transaction entry will also be added. If
 * it fails, you can check in Transactions > Gateway Log"), with what those pages leave open taken
 * from decompiled copies of WHMCS 8 (behaviour only; probable): the refund of at most what is left
 * of the payment ("amounterror" otherwise), the parameters of the invoice page plus transid (the
 * payment's transaction ID), amount and currency (converted with "Convert To For Processing"),
 * `transid` and `rawdata` read from the answer whatever its status, the Gateway Log entry
 * "Refund " . ucfirst(status) with the rawdata, and only on "success" the refund transaction
 * (amountout, refundid = the payment, the answer's transid), the Activity Log entry, the invoice
 * Refunded once its payments are refunded in full, and the "Invoice Refund Confirmation" e-mail.
 *
 * @return array{result: string, infobox: string} the result and the admin's message box title
 */
function harness_refund_payment(int $transactionRowId, string $amount = '', bool $sendEmail = true): array
{
    harness_load_module();
    $payment = Capsule::table('tblaccounts')->where('id', $transactionRowId)->first();
    if ($payment === null) {
        return ['result' => 'amounterror', 'infobox' => 'Refund Failed'];
    }
    $refunded = 0.0;
    foreach (Capsule::table('tblaccounts')->where('refundid', (int) $payment->id)->get() as $row) {
        $refunded += (float) $row->amountout;
    }
    $left = round((float) $payment->amountin - $refunded, 2);
    $amount = $amount === '' ? $left : (float) $amount;
    if ($amount <= 0 || $left < $amount) {
        return ['result' => 'amounterror', 'infobox' => 'Refund Failed'];
    }
    $amount = number_format($amount, 2, '.', '');
    $gateway = (string) $payment->gateway;
    $params = harness_link_params((int) $payment->invoiceid);
    unset($params['basecurrencyamount'], $params['basecurrency'], $params['returnurl']);
    $client = Capsule::table('tblclients')->where('id', (int) $payment->userid)->first();
    $convertTo = (int) ($params['convertto'] ?? 0);
    $converted = $convertTo > 0 && $convertTo !== (int) $client->currency;
    $params['amount'] = $converted ? number_format(convertCurrency($amount, (int) $client->currency, $convertTo), 2, '.', '') : $amount;
    $params['currency'] = (string) Capsule::table('tblcurrencies')->where('id', $converted ? $convertTo : (int) $client->currency)->value('code');
    $params['transid'] = (string) $payment->transid;
    $params['paymentmethod'] = $gateway;
    $fees = 0.0;
    $answer = call_user_func($gateway . '_refund', $params);
    if (is_array($answer)) {
        $refundTransId = $answer['transid'];
        $rawdata = $answer['rawdata'];
        if (isset($answer['fees'])) {
            $fees = (float) $answer['fees'];
        }
        $status = (string) $answer['status'];
    } else {
        $refundTransId = '';
        $status = 'error';
        $rawdata = 'Returned false';
    }
    logTransaction($gateway, $rawdata, 'Refund ' . ucfirst($status));
    if ($status !== 'success') {
        return ['result' => $status, 'infobox' => 'Refund Failed'];
    }
    Capsule::table('tblaccounts')->insert([
        'userid' => (int) $payment->userid, 'currency' => 0, 'gateway' => $gateway, 'date' => date('Y-m-d H:i:s'),
        'description' => 'Refund of Transaction ID ' . $payment->transid, 'amountin' => '0.00', 'fees' => number_format(-$fees, 2, '.', ''),
        'amountout' => $amount, 'rate' => (string) $payment->rate, 'transid' => (string) $refundTransId,
        'invoiceid' => (int) $payment->invoiceid, 'refundid' => (int) $payment->id,
    ]);
    logActivity('Refunded Invoice Payment - Invoice ID: ' . $payment->invoiceid . ' - Transaction ID: ' . $payment->id, (int) $payment->userid);
    if (harness_amount_paid((int) $payment->invoiceid) <= 0) {
        Capsule::table('tblinvoices')->where('id', (int) $payment->invoiceid)->update(['status' => 'Refunded']);
    }
    if ($sendEmail) {
        localAPI('SendEmail', ['customtype' => 'invoice', 'id' => (int) $payment->invoiceid, 'customsubject' => 'Invoice Refund Confirmation', 'custommessage' => 'Invoice Refund Confirmation']);
    }
    return ['result' => 'success', 'infobox' => 'Refund Successful'];
}

/** The admin's invoice page: what the AdminInvoicesControlsOutput hook functions return, with its documented parameters. */
function harness_admin_invoice(int $invoiceId): string
{
    $invoice = localAPI('GetInvoice', ['invoiceid' => $invoiceId]);
    $output = run_hook('AdminInvoicesControlsOutput', [
        'invoiceid' => $invoiceId, 'userid' => (int) $invoice['userid'], 'subtotal' => $invoice['subtotal'], 'tax' => $invoice['tax'],
        'tax2' => $invoice['tax2'], 'credit' => $invoice['credit'], 'total' => $invoice['total'], 'balance' => $invoice['balance'],
        'taxrate' => '0.00', 'taxrate2' => '0.00', 'paymentmethod' => $invoice['paymentmethod'],
    ]);
    return implode('', array_map('strval', $output));
}

/** @return array<string, mixed> */
function harness_invoice_state(int $invoiceId): array
{
    return [
        'invoice' => localAPI('GetInvoice', ['invoiceid' => $invoiceId]),
        'payments' => Capsule::table('tblaccounts')->where('invoiceid', $invoiceId)->get()->all(),
        'emails' => Capsule::table('tblemails')->orderBy('id')->get()->all(),
        'gatewaylog' => Capsule::table('tblgatewaylog')->orderBy('id')->get()->all(),
        'notes' => Capsule::table('tblnotes')->orderBy('id')->get()->all(),
        'activity' => Capsule::table('tblactivitylog')->orderBy('id')->get()->all(),
    ];
}
