<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

/** What one run did to an order. */
final class RunOutcome
{
    /** This run changed the order. */
    public const APPLIED = 'applied';
    /** The order is as the service says it should be; nothing to do. */
    public const UNCHANGED = 'unchanged';
    /** Another run holds the order; it does the work. */
    public const BUSY = 'busy';
    /** The service could not be asked (down, timeout, unreadable answer); the next run tries again. */
    public const LOOKUP_FAILED = 'lookup_failed';
    /** Applying failed on the platform's side; logged, and the next run tries again. */
    public const FAILED = 'failed';
    /** The order has no checkout to look at. */
    public const NO_CHECKOUT = 'no_checkout';

    private const WEIGHT = [self::NO_CHECKOUT => 0, self::UNCHANGED => 1, self::BUSY => 2, self::LOOKUP_FAILED => 3, self::FAILED => 4, self::APPLIED => 5];

    public string $result;
    /** The action decided for the checkout this outcome is about (Decision::*), or null. */
    public ?string $action;
    public ?string $reason;
    /** The transaction status the service reported, or null. */
    public ?string $status;
    public ?string $transactionCode;

    public function __construct(string $result, ?string $transactionCode = null, ?string $action = null, ?string $reason = null, ?string $status = null)
    {
        $this->result = $result;
        $this->transactionCode = $transactionCode;
        $this->action = $action;
        $this->reason = $reason;
        $this->status = $status;
    }

    /** The outcome that says most about an order whose checkouts had $outcomes. @param list<self> $outcomes */
    public static function combine(array $outcomes): self
    {
        $best = new self(self::NO_CHECKOUT);
        foreach ($outcomes as $outcome) {
            if (self::WEIGHT[$outcome->result] > self::WEIGHT[$best->result]) {
                $best = $outcome;
            }
        }
        return $best;
    }

    /** @return array{result: string, transaction_code: string|null, action: string|null, reason: string|null, status: string|null} */
    public function toArray(): array
    {
        return [
            'result' => $this->result,
            'transaction_code' => $this->transactionCode,
            'action' => $this->action,
            'reason' => $this->reason,
            'status' => $this->status,
        ];
    }
}
