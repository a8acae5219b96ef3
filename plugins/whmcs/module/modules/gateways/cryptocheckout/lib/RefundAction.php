<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs;

use CryptoCheckout\Whmcs\Vendor\Client\Kernel\Kernel;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\RefundStart;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\StoredCheckout;

/**
 * The gateway's refund function (cryptocheckout_refund), called by the invoice's Refund tab with
 * "Refund through Gateway". It starts the refund through the kernel (Kernel::startRefund): the
 * service makes it, WHMCS e-mails the client the claim link, a note says so.
 *
 * What WHMCS does with the answer (its refund function documents "success", "declined" and
 * "error"): "success" records a refund transaction at once, so it is never answered: nothing has
 * left the wallet yet. A refund requested is answered "declined" (WHMCS records nothing; its Gateway
 * Log entry "Refund Declined" carries "Refund requested, not paid yet: …"), every problem "error"
 * ("Not refunded: …"). The refund transaction is recorded by the module once the refund
 * is paid (InvoiceRefunds), and the invoice's Crypto Checkout panel shows where each refund stands
 * and what the last request answered (AdminPanel).
 */
final class RefundAction
{
    /** The refund is requested and waits for the client's address and the merchant's payment. */
    public const REQUESTED = 'declined';
    /** Nothing was requested: no key, the service down or refusing, not this module's payment. */
    public const FAILED = 'error';

    /** The ledger state key of an invoice's last refund request (for the admin panel). */
    public const LAST_ATTEMPT = 'whmcs_refund_attempt:';

    /**
     * @param array<string, mixed> $params the refund function's parameters: the gateway's settings,
     *     invoiceid, transid (the payment refunded), amount and currency (converted with "Convert To
     *     For Processing" when set, as the checkout was)
     * @return array{status: string, rawdata: array<string, string>, transid: string}
     */
    public static function run(array $params): array
    {
        $gateway = new Gateway($params);
        $invoiceId = (string) (int) ($params['invoiceid'] ?? 0);
        $amount = trim((string) ($params['amount'] ?? ''));
        $currency = strtoupper(trim((string) ($params['currency'] ?? '')));
        $payment = strtolower(trim((string) ($params['transid'] ?? '')));
        $asked = ['invoice' => $invoiceId, 'payment' => $payment, 'amount' => $amount . ' ' . $currency];
        try {
            $kernel = $gateway->kernel();
            if (!self::holdsPayment($kernel, $invoiceId, $payment)) {
                return self::answer($gateway, $invoiceId, self::FAILED, sprintf(
                    'transaction %s is not a Crypto Checkout payment of invoice #%s; use "Record Only" for a payment the module did not record.',
                    $payment,
                    $invoiceId
                ), $asked);
            }
            // WHMCS names no refund request: the invoice's next refund number. A retry after a
            // failure asks with the same one, so a refund the service made while its answer was
            // lost is found again instead of made twice; each refund started takes the next.
            $reference = sprintf('whmcs-invoice-%s-refund-%d', $invoiceId, count($kernel->refunds($invoiceId)) + 1);
            $start = $kernel->startRefund($invoiceId, $amount, $currency, $reference, null, $gateway->settings->merchantKey, $gateway->refunds());
        } catch (\RuntimeException $failed) {
            // The database failed, or the first use after an upgrade did (Upgrade logged why).
            return self::answer($gateway, $invoiceId, self::FAILED, 'the module\'s records could not be read (' . $failed->getMessage() . '); try again in a minute.', $asked);
        }
        if (!$start->ok || $start->refund === null) {
            return self::answer($gateway, $invoiceId, self::FAILED, (string) $start->message, $asked + array_filter([
                'problem' => (string) $start->problem,
                'service_error' => (string) $start->errorCode,
                'field' => (string) $start->field,
            ]));
        }
        $refund = $start->refund;
        return self::answer($gateway, $invoiceId, self::REQUESTED, $start->message . ' WHMCS records the refund transaction once it is paid.', $asked + [
            'reference' => $reference,
            'refund_id' => $refund->refundId,
            'refund' => $refund->amount . ' ' . $refund->asset,
            'claim_link_emailed' => $start->linkSent ? 'yes' : 'no',
        ], $refund->refundId);
    }

    /**
     * The invoice's last refund request, for the admin panel.
     *
     * @return array{at: int, status: string, message: string}|null
     */
    public static function lastAttempt(Kernel $kernel, string $invoiceId): ?array
    {
        $stored = json_decode((string) $kernel->ledger()->value(self::LAST_ATTEMPT . $invoiceId, 0), true);
        return is_array($stored) && isset($stored['at'], $stored['status'], $stored['message']) ? $stored : null;
    }

    /** Whether the payment refunded is one the module booked on this invoice. */
    private static function holdsPayment(Kernel $kernel, string $invoiceId, string $payment): bool
    {
        foreach ($kernel->checkouts($invoiceId) as $checkout) {
            if ($checkout->hasCode($payment) && $checkout->resolution === StoredCheckout::RESOLUTION_BOOKED) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param array<string, string> $details
     * @return array{status: string, rawdata: array<string, string>, transid: string}
     */
    private static function answer(Gateway $gateway, string $invoiceId, string $status, string $message, array $details, string $refundId = ''): array
    {
        $said = ($status === self::REQUESTED ? 'Refund requested, not paid yet: ' : 'Not refunded: ') . $message;
        try {
            $gateway->kernel()->ledger()->putValue(self::LAST_ATTEMPT . $invoiceId, (string) json_encode(['at' => time(), 'status' => $status, 'message' => $said]));
        } catch (\RuntimeException $unavailable) {
            // The database is what failed: the Gateway Log entry WHMCS writes still says why.
        }
        // WHMCS writes rawdata to the Gateway Log ("Refund Declined" / "Refund Error") and reads transid.
        return ['status' => $status, 'rawdata' => ['result' => $said] + $details, 'transid' => $refundId];
    }
}
