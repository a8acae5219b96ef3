<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs;

use CryptoCheckout\Whmcs\Vendor\Client\Exception\MoneyException;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\Decision;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\OrderPort;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\OrderState;
use CryptoCheckout\Whmcs\Vendor\Client\Money;
use WHMCS\Database\Capsule;

/**
 * WHMCS as the kernel sees it, through WHMCS's documented functions: the "order" is the invoice; a
 * payment is booked with addInvoicePayment under the transaction code (what isPaymentBooked() finds
 * in tblaccounts); the log is the Gateway Log; the owner is told with a sticky client note and an
 * Activity Log entry. Invoices have no "on hold" or "expired" status: an underpaid invoice or one
 * held for review stays Unpaid (orderState() reads the hold the kernel recorded), and so does one
 * whose checkout expired, so the client may start another.
 */
final class InvoicePort implements OrderPort
{
    /** Invoice statuses in which a client can still pay. */
    private const OPEN_STATUSES = ['Unpaid', 'Payment Pending'];

    /** Gateway Log results of what notifyOwner() reports, by the decision's reason, else its action. */
    private const OWNER_RESULTS = [
        'settled_after_cancel' => 'Paid on Cancelled Invoice',
        'settled_replaced' => 'Paid for Changed Invoice',
        Decision::HOLD_LATE_PAYMENT => 'Late Payment',
        Decision::REJECT_MISMATCH => 'Ignored: mismatch',
        Decision::FLAG_EXTRA_PAYMENT => 'Extra Payment',
    ];

    private Settings $settings;

    public function __construct(Settings $settings)
    {
        $this->settings = $settings;
        // The cron and the invoice page run without the callback's includes.
        foreach (['logTransaction' => 'gatewayfunctions', 'addInvoicePayment' => 'invoicefunctions'] as $function => $file) {
            if (!function_exists($function) && defined('ROOTDIR')) {
                require_once ROOTDIR . '/includes/' . $file . '.php';
            }
        }
    }

    public function orderState(string $orderId, ?string $recordedState): string
    {
        $status = (string) ($this->invoice((int) $orderId)['status'] ?? '');
        if ($status === 'Paid' || $status === 'Refunded') {
            return OrderState::PAID;
        }
        if (!in_array($status, self::OPEN_STATUSES, true)) {
            return OrderState::CANCELLED;
        }
        // The kernel's hold, which WHMCS cannot show.
        $holds = [OrderState::UNDERPAID, OrderState::LATE_PAYMENT_REVIEW];
        return in_array($recordedState, $holds, true) ? (string) $recordedState : OrderState::AWAITING_PAYMENT;
    }

    /** True once WHMCS holds a payment with this transaction id (what checkCbTransID looks for). */
    public function isPaymentBooked(string $orderId, string $transactionCode): bool
    {
        return Capsule::table('tblaccounts')->where('transid', strtolower($transactionCode))->exists();
    }

    /**
     * Adds the payment in the invoice's own amount and currency (the checkout's order amount, which
     * differs from what the client paid with "Convert To For Processing"), or what arrived at the
     * checkout's own rate when more than was due did (WHMCS credits the excess to the client).
     */
    public function bookPayment(string $orderId, Decision $decision): void
    {
        $code = $decision->transactionCode();
        $due = $decision->checkout->orderAmount ?? $decision->checkout->fiatAmount;
        $currency = $decision->checkout->orderCurrency ?? $decision->checkout->fiatCurrency;
        $dueUsd = $decision->lookup['amount_in_usd'] ?? null;
        try {
            $more = $dueUsd !== null && Money::compare($dueUsd, '0') > 0 && Money::compare($decision->receivedUsd(), $dueUsd) > 0;
            $booked = $more ? Money::scaleByRatio($due, $decision->receivedUsd(), $dueUsd, 2) : $due;
        } catch (MoneyException $unreadable) {
            $booked = $due;
        }
        $overpaid = Money::compare($booked, $due) > 0;
        $booked = $overpaid ? $booked : $due;
        if (addInvoicePayment((int) $orderId, $code, $booked, 0, Settings::GATEWAY) === false) {
            throw new \RuntimeException(sprintf('WHMCS refused the payment of transaction %s on invoice #%s.', $code, $orderId));
        }
        $result = $decision->isLate() ? 'Success (late payment)' : ($overpaid ? 'Success (overpaid)' : 'Success');
        $extra = ['booked' => $booked . ' ' . $currency];
        // The rate the checkout locked, when the service sent one: in the payment's Gateway Log
        // entry, written once, as the payment is booked ("Priced at 1 EUR = … USD (sources), held until …").
        $price = $decision->bookingPriceLine();
        if ($price !== null) {
            $extra['price'] = $price;
        }
        $this->logDecision($result, $orderId, $decision, $extra);
        if ($decision->isLate()) {
            // Paid after the checkout had expired: worth a look before anything is provisioned.
            $this->adminNote($orderId, $decision->note);
        }
        if ($overpaid) {
            $this->adminNote($orderId, sprintf(
                'Crypto Checkout: transaction %s paid %s USD where %s USD was due. The payment is recorded as %s %s; WHMCS adds the %s %s above the invoice amount to the client\'s credit balance (Manage Credits). Refund it from there if the client asks.',
                $code,
                Money::roundHalfUp($decision->receivedUsd(), 2),
                Money::roundHalfUp((string) $dueUsd, 2),
                $booked,
                $currency,
                Money::roundHalfUp(Money::subtractAtLeastZero($booked, $due), 2),
                $currency
            ));
        }
    }

    /**
     * What WHMCS can show: an underpaid invoice stays Unpaid with a note; an expired checkout only
     * logs; an invoice whose payments cover it that an admin's save set back to Unpaid is Paid again
     * (one with a balance left keeps it). A hold for review is the recorded state alone: WHMCS shows
     * no hold, so its note is the owner's notice (notifyOwner), and this says no note was written.
     */
    public function changeOrderState(string $orderId, string $state, Decision $decision): bool
    {
        if ($state === $decision->orderState) {
            return false;
        }
        if ($state === OrderState::UNDERPAID) {
            $this->logDecision('Underpaid', $orderId, $decision);
            $this->adminNote($orderId, $decision->note);
            return true;
        }
        if ($state === OrderState::CANCELLED) {
            $this->logDecision('Expired', $orderId, $decision);
        } elseif ($state === OrderState::PAID) {
            $invoice = $this->invoice((int) $orderId);
            if ($invoice !== null && in_array($invoice['status'], self::OPEN_STATUSES, true) && Money::compare((string) $invoice['balance'], '0') <= 0) {
                localAPI('UpdateInvoice', ['invoiceid' => (int) $orderId, 'status' => 'Paid']);
                $this->logDecision('Set Back to Paid', $orderId, $decision);
                $this->adminNote($orderId, $decision->note);
                return true;
            }
        }
        return false;
    }

    public function notifyOwner(string $orderId, Decision $decision): void
    {
        $this->logDecision(self::OWNER_RESULTS[$decision->reason] ?? self::OWNER_RESULTS[$decision->action] ?? 'Review', $orderId, $decision);
        $this->adminNote($orderId, $decision->note);
    }

    /**
     * The kernel's lines in the Gateway Log: errors and warnings, but an applied action (logged by
     * the port call under WHMCS's names) only as an error (a payment that does not match its
     * invoice); routine lines only with the Debug log setting.
     */
    public function log(string $level, string $message, array $context = []): void
    {
        $action = $context['action'] ?? null;
        if ($action === Decision::RECORD_BOOKED) {
            // The payment an interrupted run booked: its "Success" entry is written now.
            $this->gatewayLog('Success', ['message' => $message] + $context);
        } elseif ($this->settings->debug || $level === 'error' || ($level === 'warning' && $action === null)) {
            $this->gatewayLog(ucfirst($level), ['message' => $message] + $context);
        }
    }

    /** @return array<string, mixed>|null GetInvoice's answer, null when there is no such invoice */
    public function invoice(int $invoiceId): ?array
    {
        $invoice = localAPI('GetInvoice', ['invoiceid' => $invoiceId]);
        return is_array($invoice) && ($invoice['result'] ?? '') === 'success' ? $invoice : null;
    }

    /** @param array<string, mixed> $data */
    public function gatewayLog(string $result, array $data): void
    {
        logTransaction($this->settings->displayName, $data, $result);
    }

    /** @param array<string, string> $extra */
    private function logDecision(string $result, string $orderId, Decision $decision, array $extra = []): void
    {
        $this->gatewayLog($result, [
            'invoice' => $orderId,
            'transaction_code' => $decision->transactionCode(),
            'status' => (string) ($decision->lookup['status'] ?? ''),
            'received_usd' => $decision->receivedUsd(),
            'amount_in_usd' => (string) ($decision->lookup['amount_in_usd'] ?? ''),
            'decision' => $decision->action . '/' . $decision->reason,
            'note' => $decision->note,
        ] + $extra);
    }

    /**
     * A note the admin sees: a note on the client's profile (sticky unless told: it stays at the
     * top until the admin deals with it) and an Activity Log entry.
     */
    public function adminNote(string $invoiceId, string $note, bool $sticky = true): void
    {
        $userId = (int) ($this->invoice((int) $invoiceId)['userid'] ?? 0);
        $text = sprintf('Invoice #%s: %s', $invoiceId, $note);
        if ($userId > 0) {
            localAPI('AddClientNote', ['userid' => $userId, 'notes' => $text, 'sticky' => $sticky]);
        }
        logActivity($text, $userId);
    }
}
