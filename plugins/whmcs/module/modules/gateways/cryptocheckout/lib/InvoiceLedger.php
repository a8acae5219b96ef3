<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs;

use WHMCS\Database\Capsule;

/**
 * The WHMCS side of a payment: invoices, the payment ledger, the Gateway Log and notes for the
 * admin, all through WHMCS's documented functions.
 */
final class InvoiceLedger
{
    /** @var Settings */
    private $settings;

    public function __construct(Settings $settings)
    {
        $this->settings = $settings;
        // The cron and the hooks run without the callback's includes.
        if (!function_exists('logTransaction') && defined('ROOTDIR')) {
            require_once ROOTDIR . '/includes/gatewayfunctions.php';
        }
        if (!function_exists('addInvoicePayment') && defined('ROOTDIR')) {
            require_once ROOTDIR . '/includes/invoicefunctions.php';
        }
    }

    /** @return array<string, mixed>|null GetInvoice's answer, null when there is no such invoice */
    public function invoice(int $invoiceId): ?array
    {
        $invoice = localAPI('GetInvoice', ['invoiceid' => $invoiceId]);
        return is_array($invoice) && ($invoice['result'] ?? '') === 'success' ? $invoice : null;
    }

    /** True once WHMCS holds a payment with this transaction id (what checkCbTransID looks for). */
    public function isPaymentRecorded(string $transactionCode): bool
    {
        return Capsule::table('tblaccounts')->where('transid', $transactionCode)->exists();
    }

    /**
     * Applies the payment in the invoice's own currency and amount.
     *
     * @throws \RuntimeException when WHMCS refuses it (no such invoice, or a cancelled one)
     */
    public function addPayment(int $invoiceId, string $transactionCode, string $invoiceAmount): void
    {
        if (addInvoicePayment($invoiceId, $transactionCode, $invoiceAmount, 0, Settings::GATEWAY) === false) {
            throw new \RuntimeException(sprintf('WHMCS refused the payment of transaction %s on invoice #%d.', $transactionCode, $invoiceId));
        }
    }

    /** @param array<string, mixed> $data */
    public function log(string $result, array $data): void
    {
        logTransaction($this->settings->displayName, $data, $result);
    }

    /** A note the admin sees: a sticky note on the client's profile and an Activity Log entry. */
    public function adminNote(int $invoiceId, string $note): void
    {
        $invoice = $this->invoice($invoiceId);
        $userId = $invoice === null ? 0 : (int) $invoice['userid'];
        $text = sprintf('Invoice #%d: %s', $invoiceId, $note);
        if ($userId > 0) {
            localAPI('AddClientNote', ['userid' => $userId, 'notes' => $text, 'sticky' => true]);
        }
        logActivity($text, $userId);
    }
}
