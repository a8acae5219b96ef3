<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

use CryptoCheckout\Client\LockedRate;

/**
 * What the kernel will do to an order for one checkout: the Reconciler's decision, with the
 * checkout and the lookup it was taken on.
 */
final class Decision
{
    public const NONE = 'none';
    public const MARK_PAID = 'mark_paid';
    public const HOLD_UNDERPAID = 'hold_underpaid';
    public const CANCEL_EXPIRED = 'cancel_expired';
    public const HOLD_LATE_PAYMENT = 'hold_late_payment';
    public const REJECT_MISMATCH = 'reject_mismatch';
    /** Money arrived on a checkout of an order that is already paid through another one. */
    public const FLAG_EXTRA_PAYMENT = 'flag_extra_payment';
    /** The payment is booked and the order paid, but an interrupted run did not record it. */
    public const RECORD_BOOKED = 'record_booked';

    /** @var string one of the constants above */
    public string $action;
    /** @var string a stable code (the Reconciler's reasons) */
    public string $reason;
    /** A sentence for the order's history, in English (platforms may translate by reason). */
    public string $note;
    /** With hold_underpaid: USD still due (decimal string). */
    public ?string $amountDueUsd;
    public StoredCheckout $checkout;
    /** @var array<string, mixed> the data of GET /transaction the decision was taken on */
    public array $lookup;
    /** The order's state the decision was taken in. */
    public string $orderState;

    /** @param array<string, mixed> $lookup */
    public function __construct(string $action, string $reason, string $note, StoredCheckout $checkout, array $lookup, string $orderState, ?string $amountDueUsd = null)
    {
        $this->action = $action;
        $this->reason = $reason;
        $this->note = $note;
        $this->checkout = $checkout;
        $this->lookup = $lookup;
        $this->orderState = $orderState;
        $this->amountDueUsd = $amountDueUsd;
    }

    /**
     * @param array{action: string, reason: string, note: string, amount_due_usd?: string} $decided Reconciler::decide()
     * @param array<string, mixed> $lookup
     */
    public static function fromReconciler(array $decided, StoredCheckout $checkout, array $lookup, string $orderState): self
    {
        return new self($decided['action'], $decided['reason'], $decided['note'], $checkout, $lookup, $orderState, $decided['amount_due_usd'] ?? null);
    }

    /** "action|reason": what a notice to the owner is about, so each is given once. */
    public function noticeKey(): string
    {
        return $this->action . '|' . $this->reason;
    }

    /** True when nothing is to be changed. */
    public function isNone(): bool
    {
        return $this->action === self::NONE;
    }

    /** The transaction code the decision is about. */
    public function transactionCode(): string
    {
        return $this->checkout->transactionCode;
    }

    /** received_usd of the lookup as a decimal string ("0" when unreadable). */
    public function receivedUsd(): string
    {
        return $this->checkout->receivedUsd ?? '0';
    }

    /** The rate the checkout was priced at, when the lookup carries one that reads (older services send none). */
    public function lockedRate(): ?LockedRate
    {
        return LockedRate::fromLookup($this->lookup);
    }

    /** "Priced at 1 EUR = … USD (sources), held until …." for the checkout's currency, or null without a readable rate. */
    public function priceLine(): ?string
    {
        $rate = $this->lockedRate();
        return $rate === null ? null : $rate->priceLine($this->checkout->fiatCurrency);
    }

    /**
     * The price line of a decision that books a payment, for where the platform records the
     * payment; null for any other decision, without a readable rate, and for the repair of a
     * booking a save undid (the first booking said it already).
     */
    public function bookingPriceLine(): ?string
    {
        return $this->action === self::MARK_PAID && $this->reason !== 'booked_undone' ? $this->priceLine() : null;
    }

    /** The decision's note, followed by bookingPriceLine() when there is one. */
    public function noteWithPriceLine(): string
    {
        $line = $this->bookingPriceLine();
        return $line === null ? $this->note : $this->note . ' ' . $line;
    }

    /** True when the service flagged the settlement as late (after the checkout had expired). */
    public function isLate(): bool
    {
        return ($this->lookup['late'] ?? false) === true;
    }
}
