<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

use CryptoCheckout\Client\Money;

/**
 * An order as one run sees it, read once under the order's claim: the platform's state, the
 * ledger's checkouts (newest first) and whether the platform holds the checkout's payment. The
 * Reconciler decides on this alone.
 */
final class OrderSnapshot
{
    public string $orderId;
    /** OrderState::* as the platform shows it now. */
    public string $state;
    /** @var list<StoredCheckout> newest first */
    public array $checkouts;
    /** The platform holds a payment with the run's transaction code. */
    public bool $paymentBooked;

    /** @param list<StoredCheckout> $checkouts newest first */
    public function __construct(string $orderId, string $state, array $checkouts, bool $paymentBooked)
    {
        $this->orderId = $orderId;
        $this->state = $state;
        $this->checkouts = $checkouts;
        $this->paymentBooked = $paymentBooked;
    }

    public function checkout(string $transactionCode): ?StoredCheckout
    {
        foreach ($this->checkouts as $checkout) {
            if ($checkout->hasCode($transactionCode)) {
                return $checkout;
            }
        }
        return null;
    }

    /**
     * The Reconciler's input for one of the order's checkouts (its "stored" side; see
     * packages/core/vectors/README.md).
     *
     * @return array<string, mixed>
     */
    public function reconcilerInput(StoredCheckout $checkout): array
    {
        $newest = $this->checkouts[0] ?? null;
        $replacement = $this->newerCheckoutWithOtherTerms($checkout);
        return [
            'transaction_code' => $checkout->transactionCode,
            'fiat_amount' => $checkout->fiatAmount,
            'fiat_currency' => $checkout->fiatCurrency,
            'wallet_address' => $checkout->walletAddress,
            'wallet_currency' => $checkout->walletCurrency,
            'wallet_network' => $checkout->walletNetwork,
            'order_state' => $this->state,
            'applied_action' => $checkout->appliedAction,
            'resolution' => $checkout->resolution,
            'payment_booked' => $this->paymentBooked,
            'newest' => $newest !== null && $newest->hasCode($checkout->transactionCode),
            'replaced_by' => $replacement === null ? null : [
                'transaction_code' => $replacement->transactionCode,
                'fiat_amount' => $replacement->fiatAmount,
                'fiat_currency' => $replacement->fiatCurrency,
            ],
        ];
    }

    /** A checkout created after $checkout for another amount or currency, or null. */
    private function newerCheckoutWithOtherTerms(StoredCheckout $checkout): ?StoredCheckout
    {
        foreach ($this->checkouts as $other) {
            if ($other->hasCode($checkout->transactionCode)) {
                return null;
            }
            $sameTerms = $other->fiatCurrency === $checkout->fiatCurrency
                && Money::compare($other->fiatAmount, $checkout->fiatAmount) === 0;
            if (!$sameTerms) {
                return $other;
            }
        }
        return null;
    }
}
