<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

/**
 * Which checkouts the scheduled poll looks at, and in which order. Webhooks are sent once, so the
 * poll is what finds a payment whose webhook was lost, including a late one. The plugins run the
 * poll every five minutes (WooCommerce's Action Scheduler, PrestaShop's cron URL, WHMCS's cron);
 * a checkout that is due is looked at by the next poll.
 *
 * Due, for a checkout still inside its watch window (expiry + the service's 24 h late window + a
 * margin; StoredCheckout::watchDeadline()), whatever the order's state — a cancelled order can
 * still receive a late payment, and a replaced checkout can still be paid:
 * - never checked;
 * - while it can be paid: not checked in the last minute;
 * - its expiry passed since the last check: at once, so an expired order is cancelled and its
 *   stock freed by the first poll after the expiry;
 * - in the late window: not checked in the last ten minutes;
 * - its payment booked but not yet seen on the order by a later poll: not checked in the last
 *   minute (a save that did not see the payment is repaired, once; Reconciler "booked_undone").
 * Resolved otherwise (handed to the owner, or booked and seen), it is not looked at again.
 *
 * Order: never-checked first, then the least recently checked, newest first among equals. Every
 * due checkout is reached within (due / batch) runs, however many old ones there are: the filter
 * is part of the ledger's query (Ledger::due()), never applied after a LIMIT. select() is the same
 * rule over checkouts in memory, the reference the query is tested against.
 */
final class PollPolicy
{
    /** How often the plugins run the poll (their schedules and READMEs say the same). */
    public const INTERVAL_SECONDS = 300;

    public int $batchSize;
    public int $openRecheckSeconds;
    public int $lateRecheckSeconds;
    /** The poll stops starting new lookups after this long, so a cron run ends in time. */
    public int $timeBudgetSeconds;

    public function __construct(int $batchSize = 50, int $openRecheckSeconds = 60, int $lateRecheckSeconds = 600, int $timeBudgetSeconds = 50)
    {
        $this->batchSize = max(1, $batchSize);
        $this->openRecheckSeconds = max(0, $openRecheckSeconds);
        $this->lateRecheckSeconds = max(0, $lateRecheckSeconds);
        $this->timeBudgetSeconds = max(1, $timeBudgetSeconds);
    }

    public function isDue(StoredCheckout $checkout, int $now): bool
    {
        if ($checkout->watchUntil < $now) {
            return false;
        }
        if ($checkout->resolution === StoredCheckout::RESOLUTION_BOOKED) {
            return $checkout->awaitsConfirmation($now) && ($checkout->checkedAt === null || $checkout->checkedAt <= $this->openCheckedBefore($now));
        }
        return $checkout->resolution === null && $this->dueAt($checkout, $now) <= $now;
    }

    /**
     * When a watched checkout is next due (Unix seconds; 0 when it was never checked).
     */
    public function dueAt(StoredCheckout $checkout, int $now): int
    {
        if ($checkout->checkedAt === null) {
            return 0;
        }
        $whileOpen = $checkout->checkedAt + $this->openRecheckSeconds;
        $late = $checkout->checkedAt + $this->lateRecheckSeconds;
        if ($checkout->expiresAt === null) {
            return $whileOpen;
        }
        if ($checkout->checkedAt < $checkout->expiresAt) {
            // Checked while it could be paid: again a minute later, and at the latest at the expiry.
            return min($whileOpen, $checkout->expiresAt);
        }
        return $late;
    }

    /** Checked at or before this, a checkout that can still be paid is due. */
    public function openCheckedBefore(int $now): int
    {
        return $now - $this->openRecheckSeconds;
    }

    /** Checked at or before this, a checkout in its late window is due. */
    public function lateCheckedBefore(int $now): int
    {
        return $now - $this->lateRecheckSeconds;
    }

    /**
     * The due checkouts among $entries in poll order, at most batchSize.
     *
     * @param iterable<array{0: string, 1: StoredCheckout}> $entries [order id, checkout]
     * @return list<array{0: string, 1: string}> [order id, transaction code]
     */
    public function select(iterable $entries, int $now): array
    {
        $due = [];
        foreach ($entries as [$orderId, $checkout]) {
            if ($this->isDue($checkout, $now)) {
                $due[] = [(string) $orderId, $checkout];
            }
        }
        usort($due, static function (array $a, array $b): int {
            return self::compare($a[1], $b[1]);
        });
        $picked = [];
        foreach (array_slice($due, 0, $this->batchSize) as [$orderId, $checkout]) {
            $picked[] = [$orderId, $checkout->transactionCode];
        }
        return $picked;
    }

    /** Poll order: never checked first, then least recently checked, then newest. */
    public static function compare(StoredCheckout $a, StoredCheckout $b): int
    {
        if (($a->checkedAt === null) !== ($b->checkedAt === null)) {
            return $a->checkedAt === null ? -1 : 1;
        }
        if ($a->checkedAt !== $b->checkedAt) {
            return $a->checkedAt <=> $b->checkedAt;
        }
        return [$b->createdAt, $b->ordinal] <=> [$a->createdAt, $a->ordinal];
    }
}
