<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs;

use CryptoCheckout\Whmcs\Vendor\Client\Exception\MoneyException;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\Decision;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\OrderPort;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\OrderState;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\PollPolicy;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\StoredCheckout;
use CryptoCheckout\Whmcs\Vendor\Client\Money;

/**
 * WHMCS as the kernel sees it. The "order" is the invoice (its id as a string); its checkouts are
 * rows of mod_cryptocheckout_transactions; its claim marker is the setting "claim:<invoice id>" of
 * mod_cryptocheckout_settings; a payment is booked with addInvoicePayment under the transaction
 * code, which is what isPaymentBooked() looks for in tblaccounts.
 *
 * WHMCS invoices have no "on hold" or "expired" status, so those are recorded on the checkout's
 * row ("state") and never change the invoice: an expired checkout leaves the invoice Unpaid (the
 * client may start another), and the invoice history the kernel writes to goes to the admin as a
 * client note and an Activity Log entry.
 */
final class InvoicePort implements OrderPort
{
    /** Invoice statuses in which a client can still pay. */
    private const OPEN_STATUSES = ['Unpaid', 'Payment Pending'];

    /** Invoice statuses that hold a payment already. */
    private const PAID_STATUSES = ['Paid', 'Refunded'];

    /** Checkout states that put the invoice on hold, strongest first. */
    private const HOLD_STATES = [OrderState::LATE_PAYMENT_REVIEW, OrderState::UNDERPAID];

    /** Gateway Log results of what notifyOwner() reports, by the decision's reason, else its action. */
    private const OWNER_RESULTS = [
        'settled_after_cancel' => 'Paid on Cancelled Invoice',
        'settled_replaced' => 'Paid for Changed Invoice',
        Decision::HOLD_LATE_PAYMENT => 'Late Payment',
        Decision::REJECT_MISMATCH => 'Ignored: mismatch',
        Decision::FLAG_EXTRA_PAYMENT => 'Extra Payment',
    ];

    private TransactionStore $store;
    private InvoiceLedger $ledger;
    private Settings $settings;
    /** @var array<string, array{0: string, 1: string}> invoice id => [amount, currency] to book for its next checkout */
    private array $invoiceAmounts = [];

    public function __construct(TransactionStore $store, InvoiceLedger $ledger, Settings $settings)
    {
        $this->store = $store;
        $this->ledger = $ledger;
        $this->settings = $settings;
    }

    /**
     * What a checkout created next for the invoice books on it: the invoice's own amount and
     * currency, which differ from the checkout's with "Convert To For Processing".
     */
    public function bookAs(string $invoiceId, string $amount, string $currency): void
    {
        $this->invoiceAmounts[$invoiceId] = [$amount, $currency];
    }

    public function findOrderByTransactionCode(string $transactionCode): ?string
    {
        $row = $this->store->findByCode($transactionCode);
        return $row === null ? null : (string) $row->invoice_id;
    }

    public function checkouts(string $orderId): array
    {
        $checkouts = [];
        foreach ($this->store->forInvoice((int) $orderId) as $row) {
            $checkout = StoredCheckout::fromArray($row);
            if ($checkout->serviceUrl === '') {
                // Rows from before the service URL was kept were made with the configured one.
                $checkout->serviceUrl = $this->settings->serviceUrl;
            }
            $checkouts[] = $checkout;
        }
        return $checkouts;
    }

    public function addCheckout(string $orderId, StoredCheckout $checkout): void
    {
        if (!isset($this->invoiceAmounts[$orderId])) {
            throw new \LogicException('bookAs() names the invoice amount before a checkout is created for invoice #' . $orderId);
        }
        [$amount, $currency] = $this->invoiceAmounts[$orderId];
        $this->store->insert([
            'invoice_id' => (int) $orderId,
            'transaction_code' => $checkout->transactionCode,
            'checkout_url' => $checkout->checkoutUrl,
            'service_url' => $checkout->serviceUrl,
            'fiat_amount' => $checkout->fiatAmount,
            'fiat_currency' => $checkout->fiatCurrency,
            'invoice_amount' => $amount,
            'invoice_currency' => $currency,
            'wallet_address' => $checkout->walletAddress,
            'wallet_currency' => $checkout->walletCurrency,
            'wallet_network' => $checkout->walletNetwork,
            'state' => OrderState::AWAITING_PAYMENT,
            'created_at' => TransactionStore::time($checkout->createdAt),
        ] + $this->checkFields($checkout));
    }

    public function recordCheck(string $orderId, StoredCheckout $checkout): void
    {
        $this->store->update($checkout->transactionCode, $this->checkFields($checkout));
    }

    public function recordApplied(string $orderId, StoredCheckout $checkout): void
    {
        $this->store->update($checkout->transactionCode, ['applied_action' => $checkout->appliedAction, 'resolution' => $checkout->resolution]);
    }

    /** @return array<string, string|null> */
    private function checkFields(StoredCheckout $checkout): array
    {
        return [
            'expires_at' => TransactionStore::time($checkout->expiresAt),
            'watch_until' => TransactionStore::time($checkout->watchUntil),
            'checked_at' => TransactionStore::time($checkout->checkedAt),
            'last_status' => $checkout->lastStatus,
            'received_usd' => $checkout->receivedUsd,
        ];
    }

    public function orderState(string $orderId): string
    {
        $invoice = $this->ledger->invoice((int) $orderId);
        $status = $invoice === null ? '' : (string) ($invoice['status'] ?? '');
        if (in_array($status, self::PAID_STATUSES, true)) {
            return OrderState::PAID;
        }
        if (!in_array($status, self::OPEN_STATUSES, true)) {
            return OrderState::CANCELLED;
        }
        $recorded = array_map(static function ($row): string {
            return (string) $row->state;
        }, $this->store->forInvoice((int) $orderId));
        foreach (self::HOLD_STATES as $hold) {
            if (in_array($hold, $recorded, true)) {
                return $hold;
            }
        }
        return OrderState::AWAITING_PAYMENT;
    }

    public function readClaim(string $orderId): ?string
    {
        return $this->store->setting(self::claimKey($orderId));
    }

    public function swapClaim(string $orderId, ?string $expected, ?string $replacement): bool
    {
        return $this->store->swapSetting(self::claimKey($orderId), $expected, $replacement);
    }

    public function isPaymentBooked(string $orderId, string $transactionCode): bool
    {
        return $this->ledger->isPaymentRecorded(strtolower($transactionCode));
    }

    public function bookPayment(string $orderId, Decision $decision): void
    {
        $code = $decision->transactionCode();
        $row = $this->store->findByCode($code);
        if ($row === null) {
            throw new \RuntimeException('No stored checkout has transaction code ' . $code);
        }
        $invoiceAmount = (string) $row->invoice_amount;
        $booked = self::receivedInInvoiceCurrency($invoiceAmount, $decision);
        $this->ledger->addPayment((int) $orderId, $code, $booked);
        $overpaid = Money::compare($booked, $invoiceAmount) > 0;
        $details = $this->details($orderId, $decision) + ['booked' => $booked . ' ' . (string) $row->invoice_currency];
        $this->ledger->log($decision->isLate() ? 'Success (late payment)' : ($overpaid ? 'Success (overpaid)' : 'Success'), $details);
        if ($decision->isLate()) {
            // Paid after the checkout had expired: worth a look before anything is provisioned.
            $this->ledger->adminNote((int) $orderId, $decision->note);
        }
        if ($overpaid) {
            $this->ledger->adminNote((int) $orderId, sprintf(
                'Crypto Checkout: transaction %s paid %s USD where %s USD was due. The payment is recorded as %s %s; WHMCS adds the %s %s above the invoice amount to the client\'s credit balance (Manage Credits). Refund it from there if the client asks.',
                $code,
                Money::roundHalfUp($decision->receivedUsd(), 2),
                Money::roundHalfUp($decision->lookup['amount_in_usd'], 2),
                $booked,
                (string) $row->invoice_currency,
                Money::roundHalfUp(Money::subtractAtLeastZero($booked, $invoiceAmount), 2),
                (string) $row->invoice_currency
            ));
        }
    }

    /**
     * What the client paid, in the invoice's currency at the checkout's own rate (the USD value the
     * service locked when the checkout was created): the invoice amount, or more when more than was
     * due arrived. Two decimals, as WHMCS keeps every amount.
     */
    private static function receivedInInvoiceCurrency(string $invoiceAmount, Decision $decision): string
    {
        $due = $decision->lookup['amount_in_usd'] ?? null;
        try {
            if ($due === null || Money::compare($due, '0') <= 0 || Money::compare($decision->receivedUsd(), $due) <= 0) {
                return $invoiceAmount;
            }
            $received = Money::scaleByRatio($invoiceAmount, $decision->receivedUsd(), $due, 2);
        } catch (MoneyException $error) {
            return $invoiceAmount;
        }
        return Money::compare($received, $invoiceAmount) > 0 ? $received : $invoiceAmount;
    }

    public function changeOrderState(string $orderId, string $state, Decision $decision): void
    {
        // The state lives on the checkout's row; the conditional write lets one request report it.
        if (!$this->store->update($decision->transactionCode(), ['state' => $state, 'note' => $decision->note], 'state', $state)) {
            return;
        }
        if ($state === OrderState::UNDERPAID) {
            $this->ledger->log('Underpaid', $this->details($orderId, $decision));
            $this->ledger->adminNote((int) $orderId, $decision->note);
        } elseif ($state === OrderState::CANCELLED) {
            // Only the checkout is over: the invoice stays Unpaid and the client may start another.
            $this->ledger->log('Expired', $this->details($orderId, $decision));
        }
    }

    public function notifyOwner(string $orderId, Decision $decision): void
    {
        if (!$this->store->update($decision->transactionCode(), ['notified_action' => $decision->action], 'notified_action', $decision->action)) {
            return;
        }
        $result = self::OWNER_RESULTS[$decision->reason] ?? self::OWNER_RESULTS[$decision->action] ?? 'Review';
        $this->ledger->log($result, $this->details($orderId, $decision));
        $this->ledger->adminNote((int) $orderId, $decision->note);
    }

    public function dueCheckouts(PollPolicy $policy, int $now): array
    {
        $due = [];
        foreach ($this->store->due($now, $policy->openCheckedBefore($now), $policy->lateCheckedBefore($now), $policy->batchSize) as $row) {
            $due[] = [(string) $row->invoice_id, (string) $row->transaction_code];
        }
        return $due;
    }

    public function log(string $level, string $message, array $context = []): void
    {
        $action = $context['action'] ?? null;
        if ($action === Decision::RECORD_BOOKED) {
            // The payment an interrupted run booked: its "Success" entry is written now.
            $this->ledger->log('Success', ['message' => $message] + $context);
            return;
        }
        // Other applied actions were logged by the port call that applied them, under WHMCS's
        // names; routine messages (a check that changed nothing, a checkout created) only in debug.
        if (($action !== null || in_array($level, ['debug', 'info'], true)) && !$this->settings->debug) {
            return;
        }
        $this->ledger->log(ucfirst($level), ['message' => $message] + $context);
    }

    /** @return array<string, string> */
    private function details(string $orderId, Decision $decision): array
    {
        return [
            'invoice' => $orderId,
            'transaction_code' => $decision->transactionCode(),
            'status' => (string) ($decision->lookup['status'] ?? ''),
            'received_usd' => $decision->receivedUsd(),
            'amount_in_usd' => (string) ($decision->lookup['amount_in_usd'] ?? ''),
            'decision' => $decision->action . '/' . $decision->reason,
            'note' => $decision->note,
        ];
    }

    private static function claimKey(string $orderId): string
    {
        return 'claim:' . $orderId;
    }
}
