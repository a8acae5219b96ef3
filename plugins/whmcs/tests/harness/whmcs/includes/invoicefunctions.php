<?php
// Test harness (WHMCS 8.13): includes/invoicefunctions.php, addInvoicePayment as the callback
// documentation describes it: records the transaction, marks the invoice Paid once its balance
// reaches zero, and runs the AddInvoicePayment and InvoicePaid hooks; an unknown or Cancelled
// invoice takes no payment (false). What a payment brings above the balance is added to the
// client's credit balance ("Credits are automatically issued to a customers account balance when
// an invoice overpayment occurs", https://docs.whmcs.com/Credit/Prefunding).

use WHMCS\Database\Capsule;

function addInvoicePayment($invoiceId, $transactionId, $amount = '', $fees = 0, $gatewayModule = '', $noEmail = false, $date = null)
{
    $invoice = Capsule::table('tblinvoices')->where('id', (int) $invoiceId)->first();
    if ($invoice === null || $invoice->status === 'Cancelled') {
        return false;
    }
    $balance = max(0, (float) $invoice->total - harness_amount_paid((int) $invoice->id));
    $paying = ($amount === '' || $amount === null) ? $balance : (float) $amount;
    Capsule::table('tblaccounts')->insert([
        'userid' => (int) $invoice->userid,
        'currency' => 0,
        'gateway' => (string) $gatewayModule,
        'date' => $date ?? date('Y-m-d H:i:s'),
        'description' => 'Invoice Payment',
        'amountin' => number_format($paying, 2, '.', ''),
        'fees' => number_format((float) $fees, 2, '.', ''),
        'amountout' => '0.00',
        'rate' => '1',
        'transid' => (string) $transactionId,
        'invoiceid' => (int) $invoice->id,
    ]);
    run_hook('AddInvoicePayment', ['invoiceid' => (int) $invoice->id]);
    $remaining = round((float) $invoice->total - harness_amount_paid((int) $invoice->id), 2);
    if ($invoice->status === 'Unpaid' && $remaining < 0) {
        $client = Capsule::table('tblclients')->where('id', (int) $invoice->userid)->first();
        Capsule::table('tblclients')->where('id', (int) $invoice->userid)
            ->update(['credit' => number_format((float) $client->credit - $remaining, 2, '.', '')]);
    }
    if ($invoice->status === 'Unpaid' && $remaining <= 0) {
        Capsule::table('tblinvoices')->where('id', (int) $invoice->id)->update([
            'status' => 'Paid',
            'datepaid' => date('Y-m-d H:i:s'),
        ]);
        run_hook('InvoicePaid', ['invoiceid' => (int) $invoice->id]);
    }
    harness_fault('addInvoicePayment', (string) $transactionId);
    return true;
}
