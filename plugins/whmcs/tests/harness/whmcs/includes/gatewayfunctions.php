<?php
// Test harness (WHMCS 8.13): includes/gatewayfunctions.php, the callback helpers of the
// "Callback Files" page of the WHMCS developer documentation.

use WHMCS\Database\Capsule;

/** The gateway's settings (tblpaymentgateways) plus the system values WHMCS adds. */
function getGatewayVariables($gatewayName, $invoiceId = '')
{
    $params = ['paymentmethod' => $gatewayName];
    foreach (Capsule::table('tblpaymentgateways')->where('gateway', $gatewayName)->orderBy('order')->get() as $row) {
        $params[$row->setting] = $row->value;
    }
    $params['companyname'] = (string) Capsule::table('tblconfiguration')->where('setting', 'CompanyName')->value('value');
    $params['systemurl'] = (string) Capsule::table('tblconfiguration')->where('setting', 'SystemURL')->value('value');
    $params['langpaynow'] = 'Pay Now';
    return $params;
}

/** Dies unless the invoice exists (in any status); returns the normalised invoice ID. */
function checkCbInvoiceID($invoiceId, $gatewayName)
{
    $invoiceId = (int) $invoiceId;
    if (!Capsule::table('tblinvoices')->where('id', $invoiceId)->exists()) {
        logTransaction($gatewayName, $_REQUEST, 'Invoice ID Not Found');
        die('Invoice ID Not Found');
    }
    return $invoiceId;
}

/** Dies when a payment with this transaction ID is already recorded. */
function checkCbTransID($transactionId)
{
    if (Capsule::table('tblaccounts')->where('transid', (string) $transactionId)->exists()) {
        die('Transaction ID Already Exists');
    }
}

/** Adds an entry to the gateway log (Billing > Gateway Log). */
function logTransaction($gatewayName, $debugData, $transactionStatus)
{
    harness_fault('logTransaction', (string) $transactionStatus);
    if (is_array($debugData)) {
        $lines = [];
        foreach ($debugData as $key => $value) {
            $lines[] = $key . ' => ' . (is_scalar($value) ? (string) $value : json_encode($value));
        }
        $debugData = implode("\n", $lines);
    }
    Capsule::table('tblgatewaylog')->insert([
        'date' => date('Y-m-d H:i:s'),
        'gateway' => (string) $gatewayName,
        'data' => (string) $debugData,
        'result' => (string) $transactionStatus,
    ]);
}
