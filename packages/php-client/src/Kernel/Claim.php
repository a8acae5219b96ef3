<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

/**
 * A run's hold on an order while it changes the order: a random token and a lease end, written on
 * the order's ledger row by compare-and-swap (Ledger::claim()), so one run at a time changes an
 * order. A lease that ended belongs to a run that died mid-way; the next run takes it over and
 * decides again on what the order is now, which completes the work.
 */
final class Claim
{
    /** Longer than any run holds it (a few writes; lookups happen before the claim is taken). */
    public const LEASE_SECONDS = 60;

    public string $orderId;
    public string $token;
    /** What the run is doing (a Decision action, "run" or "open_checkout"), for the log. */
    public string $action;
    public string $transactionCode;
    /** Unix seconds: the lease ends then. */
    public int $until;
    /** "action code" of the dead run's claim this one took over, or null. */
    public ?string $tookOver = null;

    public function __construct(string $orderId, string $token, string $action, string $transactionCode, int $until)
    {
        $this->orderId = $orderId;
        $this->token = $token;
        $this->action = $action;
        $this->transactionCode = $transactionCode;
        $this->until = $until;
    }

    public static function create(string $orderId, string $action, string $transactionCode, int $now): self
    {
        return new self($orderId, bin2hex(random_bytes(8)), $action, $transactionCode, $now + self::LEASE_SECONDS);
    }
}
