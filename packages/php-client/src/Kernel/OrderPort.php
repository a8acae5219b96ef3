<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

/**
 * The platform's order, as the kernel needs it: its state, its payments, its state changes, the
 * owner's notices and the log. Everything the kernel keeps for itself (checkouts, checks, claims,
 * what is due) is in its own ledger (Ledger\Ledger); each plugin implements only this. Order ids
 * are strings so every platform's key fits.
 *
 * Rules every implementation keeps (the kernel's tests hold the in-memory one to them):
 * - orderState() reads the order as it is now in the database, never a copy cached earlier in the
 *   request, and includes what the merchant changed by hand;
 * - bookPayment() is called only when isPaymentBooked() said no; isPaymentBooked() is true from the
 *   moment the platform holds a payment with that transaction id, even if nothing else happened yet;
 * - changeOrderState() leaves an order already in the target state as it is, and writes the
 *   decision's note in the order's history when it changes it; it says whether it wrote the note,
 *   so the owner's notice of the same decision is not written a second time.
 */
interface OrderPort
{
    /**
     * The order's state now, one of OrderState::ALL.
     *
     * @param string|null $recordedState the state the kernel last moved the order to (the ledger's
     *     record), for platforms whose order has no status of its own for a hold (WooCommerce's one
     *     "on hold", WHMCS's unpaid invoice); null when the kernel never changed the order
     */
    public function orderState(string $orderId, ?string $recordedState): string;

    /** True when the platform already holds a payment with this transaction id for the order. */
    public function isPaymentBooked(string $orderId, string $transactionCode): bool;

    /** Books the payment of $decision's checkout on the order, with the transaction code as its transaction id. */
    public function bookPayment(string $orderId, Decision $decision): void;

    /**
     * Moves the order to $state (OrderState::*) with $decision->note in its history; nothing when it is there.
     *
     * @return bool whether $decision->note was written where the owner sees it (then notifyOwner() is not called for it)
     */
    public function changeOrderState(string $orderId, string $state, Decision $decision): bool;

    /** Puts $decision->note where the owner will see it (an order note, an admin note), when changeOrderState() did not. */
    public function notifyOwner(string $orderId, Decision $decision): void;

    /**
     * @param string $level debug, info, warning or error
     * @param array<string, scalar|null> $context
     */
    public function log(string $level, string $message, array $context = []): void;
}
