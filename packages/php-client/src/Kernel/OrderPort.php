<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

/**
 * What a platform gives the kernel: its storage of checkouts, its order states, and its side
 * effects. Each plugin implements this once (WooCommerce over order meta, PrestaShop and WHMCS over
 * their module tables); the Runner does the rest. Order ids are strings so every platform's key fits.
 *
 * Rules every implementation keeps (the kernel's tests hold the in-memory one to them):
 * - swapClaim() is atomic: among any number of callers, one wins each swap.
 * - recordCheck() writes only the check fields of StoredCheckout; recordApplied() only the applied ones.
 * - bookPayment() is called only when isPaymentBooked() said no; isPaymentBooked() is true from the
 *   moment the platform holds a payment with that transaction id, even if nothing else happened yet.
 * - changeOrderState() leaves an order already in the target state as it is.
 */
interface OrderPort
{
    /** The order one of whose checkouts has this transaction code (compared lowercase), or null. */
    public function findOrderByTransactionCode(string $transactionCode): ?string;

    /** @return list<StoredCheckout> every checkout created for the order, newest first */
    public function checkouts(string $orderId): array;

    /** Keeps a newly created checkout with the order's earlier ones. */
    public function addCheckout(string $orderId, StoredCheckout $checkout): void;

    /** Writes the check fields (expiresAt, watchUntil, checkedAt, lastStatus, receivedUsd). */
    public function recordCheck(string $orderId, StoredCheckout $checkout): void;

    /** Writes the applied fields (appliedAction, resolution). */
    public function recordApplied(string $orderId, StoredCheckout $checkout): void;

    /** The order's state now, one of OrderState::ALL, including what the merchant changed by hand. */
    public function orderState(string $orderId): string;

    /** The order's claim marker, or null when no run holds it. */
    public function readClaim(string $orderId): ?string;

    /** Replaces the claim marker only if it is still $expected (null: none); true for exactly one caller. */
    public function swapClaim(string $orderId, ?string $expected, ?string $replacement): bool;

    /** True when the platform already holds a payment with this transaction id for the order. */
    public function isPaymentBooked(string $orderId, string $transactionCode): bool;

    /** Books the payment of $decision's checkout on the order, with the transaction code as its transaction id. */
    public function bookPayment(string $orderId, Decision $decision): void;

    /**
     * Moves the order to $state (OrderState::*) with $decision->note in its history; does nothing
     * when it is already there.
     */
    public function changeOrderState(string $orderId, string $state, Decision $decision): void;

    /** Puts $decision->note where the owner will see it (an order note, an admin note). */
    public function notifyOwner(string $orderId, Decision $decision): void;

    /**
     * Checkouts the scheduled poll should look at, in the policy's order (PollPolicy::describe()).
     *
     * @return list<array{0: string, 1: string}> [order id, transaction code]
     */
    public function dueCheckouts(PollPolicy $policy, int $now): array;

    /**
     * @param string $level debug, info, warning or error
     * @param array<string, scalar|null> $context
     */
    public function log(string $level, string $message, array $context = []): void;
}
