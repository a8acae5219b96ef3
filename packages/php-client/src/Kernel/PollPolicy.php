<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

/**
 * Which checkouts the scheduled poll looks at, and in which order. Webhooks are sent once, so the
 * poll is what finds a payment whose webhook was lost, including a late one.
 *
 * Due: not resolved (payment booked, or handed to the owner), still inside its watch window
 * (expiry + the service's 24 h late window + a margin; StoredCheckout::watchDeadline()), whatever
 * the order's state — a cancelled order can still receive a late payment, and a replaced checkout
 * can still be paid — and not checked recently: once a minute while the checkout can be paid,
 * every ten minutes in the late window.
 *
 * Order: never-checked first, then the least recently checked, newest first among equals. Every
 * due checkout is reached within (due / batch) runs, however many old ones there are: the filter
 * is part of the query, never applied after a LIMIT.
 *
 * A port with SQL storage implements dueCheckouts() as:
 *   WHERE resolution IS NULL AND watch_until >= :now
 *     AND (checked_at IS NULL OR checked_at <= :late_checked_before
 *          OR (checked_at <= :open_checked_before AND (expires_at IS NULL OR expires_at > :now)))
 *   ORDER BY checked_at IS NOT NULL, checked_at ASC, created_at DESC LIMIT :batch
 * and may return a few more than are due: the Runner checks isDue() again.
 */
final class PollPolicy
{
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
        return $checkout->isWatched($now) && $this->dueAt($checkout, $now) <= $now;
    }

    /**
     * When the checkout is next due (Unix seconds; 0 when it was never checked), for ports that
     * keep a "next due" index instead of querying the rule. Whether it is still watched then is
     * the caller's question (StoredCheckout::isWatched()).
     */
    public function dueAt(StoredCheckout $checkout, int $now): int
    {
        if ($checkout->checkedAt === null) {
            return 0;
        }
        $whileOpen = $checkout->checkedAt + $this->openRecheckSeconds;
        if ($checkout->expiresAt === null || ($whileOpen < $checkout->expiresAt && $now < $checkout->expiresAt)) {
            return $whileOpen;
        }
        // Past expiry the late-window interval applies, and never before the expiry itself.
        return max($checkout->checkedAt + $this->lateRecheckSeconds, $checkout->expiresAt);
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
     * The due checkouts among $entries in poll order, at most batchSize: for ports that keep
     * checkouts without a query language, and the reference every SQL port is tested against.
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
        return $b->createdAt <=> $a->createdAt;
    }
}
