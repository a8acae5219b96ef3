<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

use CryptoCheckout\Client\Money;

/**
 * One checkout created for an order, as the kernel's ledger keeps it (Ledger\Ledger): the terms it
 * was created with (what every lookup must match), and the kernel's progress on it. An order keeps
 * every checkout it ever had: a replaced checkout stays payable at the service until it expires, so
 * it is watched too. Only the Runner writes the progress, under the order's claim.
 */
final class StoredCheckout
{
    /** The service settles a full payment that arrives up to 24 hours after expiry. */
    public const LATE_WINDOW_SECONDS = 24 * 3600;

    /** Watched a little longer than the late window, for clocks that disagree and a last poll. */
    public const WATCH_MARGIN_SECONDS = 3600;

    /** When the service gave no expiry: its default payment window. */
    public const DEFAULT_EXPIRY_SECONDS = 3600;

    /** resolution: the payment of this checkout is booked on the order. */
    public const RESOLUTION_BOOKED = 'booked';

    /** resolution: handed to the owner (late payment, extra payment, mismatch); never changes the order by itself again. */
    public const RESOLUTION_FLAGGED = 'flagged';

    // Terms, fixed when the checkout is created.
    public string $transactionCode = '';
    public string $checkoutUrl = '';
    public string $serviceUrl = '';
    public string $fiatAmount = '';
    public string $fiatCurrency = '';
    public string $walletAddress = '';
    public string $walletCurrency = '';
    public string $walletNetwork = '';
    /**
     * What a payment books on the order when the platform's amount differs from the checkout's
     * (WHMCS "Convert To For Processing"): decimal string and ISO 4217 code, or null for the
     * checkout's own fiat amount and currency.
     */
    public ?string $orderAmount = null;
    public ?string $orderCurrency = null;
    /** Unix seconds. */
    public int $createdAt = 0;
    /** 1 for the order's first checkout, 2 for the next…: orders checkouts created in the same second. */
    public int $ordinal = 0;

    // Check fields: what the last lookup said.
    /** Unix seconds, or null when the service gave none. */
    public ?int $expiresAt = null;
    /** Unix seconds: the poll looks at this checkout until then. */
    public int $watchUntil = 0;
    /** Unix seconds of the last lookup attempt, or null. */
    public ?int $checkedAt = null;
    /** The transaction status of the last successful lookup, or null. */
    public ?string $lastStatus = null;
    /** received_usd of the last successful lookup (decimal string), or null. */
    public ?string $receivedUsd = null;

    // Applied fields: what the kernel did.
    /** The last action applied for this checkout (Decision::*), or null. */
    public ?string $appliedAction = null;
    /** null while the checkout is watched; RESOLUTION_BOOKED or RESOLUTION_FLAGGED when it is done. */
    public ?string $resolution = null;
    /** "action|reason" of the last notice given to the owner about this checkout, so each is given once. */
    public ?string $notified = null;
    /**
     * Unix seconds when a later run saw the order paid after this checkout's payment was booked.
     * Until then the poll looks again, so a save that undid the booking is repaired (PollPolicy).
     */
    public ?int $confirmedAt = null;

    /**
     * The checkout the service just created, with the terms it was created with.
     *
     * @param array<string, mixed> $created the data of POST /checkout
     * @param array{fiat_amount: string, fiat_currency: string, wallet_address: string, wallet_currency: string, wallet_network: string, service_url: string, order_amount?: string, order_currency?: string} $terms
     */
    public static function fromCreated(array $created, array $terms, int $now): self
    {
        $checkout = new self();
        $checkout->transactionCode = strtolower((string) $created['transaction_code']);
        $checkout->checkoutUrl = (string) $created['checkout_url'];
        $checkout->serviceUrl = (string) $terms['service_url'];
        $checkout->fiatAmount = Money::normalizeFiatAmount((string) $terms['fiat_amount'], (string) $terms['fiat_currency']);
        $checkout->fiatCurrency = (string) $terms['fiat_currency'];
        $checkout->walletAddress = (string) $terms['wallet_address'];
        $checkout->walletCurrency = (string) $terms['wallet_currency'];
        $checkout->walletNetwork = (string) $terms['wallet_network'];
        if (isset($terms['order_amount'], $terms['order_currency']) && $terms['order_amount'] !== '') {
            $checkout->orderAmount = (string) $terms['order_amount'];
            $checkout->orderCurrency = (string) $terms['order_currency'];
        }
        $checkout->createdAt = $now;
        $checkout->expiresAt = self::parseTime($created['expires_at'] ?? null) ?? $now + self::DEFAULT_EXPIRY_SECONDS;
        $checkout->watchUntil = self::watchDeadline($checkout->expiresAt);
        $checkout->lastStatus = is_string($created['status'] ?? null) ? (string) $created['status'] : null;
        return $checkout;
    }

    /**
     * A checkout from a ledger row or any stored record (snake_case keys, as toArray() writes them).
     * Times may be Unix seconds or any text strtotime() reads as UTC ("2026-11-01 10:00:00").
     *
     * @param array<string, mixed>|object $row
     */
    public static function fromArray($row): self
    {
        $row = is_object($row) ? get_object_vars($row) : $row;
        $checkout = new self();
        $checkout->transactionCode = strtolower((string) ($row['transaction_code'] ?? ''));
        $checkout->checkoutUrl = (string) ($row['checkout_url'] ?? '');
        $checkout->serviceUrl = (string) ($row['service_url'] ?? '');
        $checkout->fiatAmount = (string) ($row['fiat_amount'] ?? '');
        $checkout->fiatCurrency = (string) ($row['fiat_currency'] ?? '');
        $checkout->walletAddress = (string) ($row['wallet_address'] ?? '');
        $checkout->walletCurrency = (string) ($row['wallet_currency'] ?? '');
        $checkout->walletNetwork = (string) ($row['wallet_network'] ?? '');
        $checkout->orderAmount = self::optionalText($row['order_amount'] ?? null);
        $checkout->orderCurrency = self::optionalText($row['order_currency'] ?? null);
        $checkout->createdAt = self::parseTime($row['created_at'] ?? null) ?? 0;
        $checkout->ordinal = (int) ($row['ordinal'] ?? 0);
        $checkout->expiresAt = self::parseTime($row['expires_at'] ?? null);
        $watchUntil = self::parseTime($row['watch_until'] ?? null);
        $checkout->watchUntil = $watchUntil ?? self::watchDeadline($checkout->expiresAt ?? $checkout->createdAt + self::DEFAULT_EXPIRY_SECONDS);
        $checkout->checkedAt = self::parseTime($row['checked_at'] ?? null);
        $checkout->lastStatus = self::optionalText($row['last_status'] ?? null);
        $checkout->receivedUsd = self::optionalText($row['received_usd'] ?? null);
        $checkout->appliedAction = self::optionalText($row['applied_action'] ?? null);
        $checkout->resolution = self::optionalText($row['resolution'] ?? null);
        $checkout->notified = self::optionalText($row['notified'] ?? null);
        $checkout->confirmedAt = self::parseTime($row['confirmed_at'] ?? null);
        return $checkout;
    }

    /** @return array<string, string|int|null> snake_case keys, times in Unix seconds */
    public function toArray(): array
    {
        return [
            'transaction_code' => $this->transactionCode,
            'checkout_url' => $this->checkoutUrl,
            'service_url' => $this->serviceUrl,
            'fiat_amount' => $this->fiatAmount,
            'fiat_currency' => $this->fiatCurrency,
            'wallet_address' => $this->walletAddress,
            'wallet_currency' => $this->walletCurrency,
            'wallet_network' => $this->walletNetwork,
            'order_amount' => $this->orderAmount,
            'order_currency' => $this->orderCurrency,
            'created_at' => $this->createdAt,
            'ordinal' => $this->ordinal,
            'expires_at' => $this->expiresAt,
            'watch_until' => $this->watchUntil,
            'checked_at' => $this->checkedAt,
            'last_status' => $this->lastStatus,
            'received_usd' => $this->receivedUsd,
            'applied_action' => $this->appliedAction,
            'resolution' => $this->resolution,
            'notified' => $this->notified,
            'confirmed_at' => $this->confirmedAt,
        ];
    }

    /**
     * Takes in what a successful lookup said: status, amount received and the expiry, from which
     * the end of watching follows.
     *
     * @param array<string, mixed> $lookup the data of GET /transaction
     */
    public function recordLookup(array $lookup, int $now): void
    {
        $this->checkedAt = $now;
        $this->lastStatus = (string) ($lookup['status'] ?? '');
        try {
            $this->receivedUsd = Money::parseDecimal($lookup['received_usd'] ?? null, 'USD amount');
        } catch (\Exception $unreadable) {
            $this->receivedUsd = null;
        }
        $expiresAt = self::parseTime($lookup['expires_at'] ?? null);
        if ($expiresAt !== null) {
            $this->expiresAt = $expiresAt;
            $this->watchUntil = self::watchDeadline($expiresAt);
        }
    }

    /** True while the buyer can still pay into this checkout, as far as the last lookup knows. */
    public function isPayable(int $now): bool
    {
        $open = $this->lastStatus === null || in_array($this->lastStatus, ['pending', 'processing', 'underpaid'], true);
        return $open && $this->resolution === null && ($this->expiresAt === null || $this->expiresAt > $now);
    }

    /** True while the poll should look at this checkout (whatever the order's state). */
    public function isWatched(int $now): bool
    {
        return $this->resolution === null && $this->watchUntil >= $now;
    }

    /**
     * True while this checkout's payment is booked but no poll has seen the order paid since: runs
     * look at it, so an order a stale save put back to unpaid is repaired (PollPolicy).
     */
    public function awaitsConfirmation(int $now): bool
    {
        return $this->resolution === self::RESOLUTION_BOOKED && $this->confirmedAt === null && $this->watchUntil >= $now;
    }

    public function hasCode(string $transactionCode): bool
    {
        return $this->transactionCode === strtolower(trim($transactionCode));
    }

    /** When watching ends for a checkout that expires at $expiresAt (Unix seconds). */
    public static function watchDeadline(int $expiresAt): int
    {
        return $expiresAt + self::LATE_WINDOW_SECONDS + self::WATCH_MARGIN_SECONDS;
    }

    /** @param mixed $value Unix seconds, ISO 8601 or "Y-m-d H:i:s" (read as UTC), or null */
    public static function parseTime($value): ?int
    {
        if (is_int($value)) {
            return $value;
        }
        if (!is_string($value) || trim($value) === '') {
            return null;
        }
        if (ctype_digit($value)) {
            return (int) $value;
        }
        $text = preg_match('/(Z|[+-]\d\d:?\d\d|UTC|GMT)\z/i', $value) === 1 ? $value : $value . ' UTC';
        $time = strtotime($text);
        return $time === false ? null : $time;
    }

    /** @param mixed $value */
    private static function optionalText($value): ?string
    {
        return is_scalar($value) && (string) $value !== '' ? (string) $value : null;
    }
}
