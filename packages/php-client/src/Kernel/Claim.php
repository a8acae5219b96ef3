<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

/**
 * The marker a run writes on an order before it changes the order, and removes when it is done:
 * "action|transaction code|claimed at|token". Writing it is a compare-and-swap
 * (OrderPort::swapClaim()), so one run at a time changes an order. A marker older than the lease
 * belongs to a run that died mid-way; the next run takes it over and completes the work.
 */
final class Claim
{
    /** Longer than any run takes (one lookup of at most 5 s, then a few writes). */
    public const LEASE_SECONDS = 60;

    public string $action;
    public string $transactionCode;
    public int $claimedAt;
    public string $token;

    private function __construct(string $action, string $transactionCode, int $claimedAt, string $token)
    {
        $this->action = $action;
        $this->transactionCode = $transactionCode;
        $this->claimedAt = $claimedAt;
        $this->token = $token;
    }

    public static function create(string $action, string $transactionCode, int $now): self
    {
        return new self($action, $transactionCode, $now, bin2hex(random_bytes(6)));
    }

    /** A stored marker, or null when it is not one (an unreadable marker counts as expired). */
    public static function parse(string $marker): ?self
    {
        $parts = explode('|', $marker);
        if (count($parts) !== 4 || !ctype_digit($parts[2])) {
            return null;
        }
        return new self($parts[0], $parts[1], (int) $parts[2], $parts[3]);
    }

    /** True when the run that wrote $marker may be presumed dead. */
    public static function isExpired(string $marker, int $now): bool
    {
        $claim = self::parse($marker);
        return $claim === null || $claim->claimedAt + self::LEASE_SECONDS <= $now;
    }

    public function marker(): string
    {
        return implode('|', [$this->action, $this->transactionCode, (string) $this->claimedAt, $this->token]);
    }
}
