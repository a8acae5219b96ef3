<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

use CryptoCheckout\Client\Money;

/**
 * What a stored checkout stands at, in words for the merchant's order screen: never the service's
 * status codes nor the kernel's action names. Every platform's order panel shows the same words,
 * translated through the platform's callable.
 */
final class CheckoutLabels
{
    /** Actions that hand the transaction to the merchant, and what the panel calls them. */
    private const REVIEW_ACTIONS = [
        Decision::HOLD_LATE_PAYMENT => 'Late payment — review',
        Decision::REJECT_MISMATCH => 'Does not match the order — review',
        Decision::FLAG_EXTRA_PAYMENT => 'Extra payment — review',
    ];

    private function __construct()
    {
    }

    /**
     * The transaction's state: paid, part paid, awaiting payment, expired, or handed over for review.
     *
     * @param int $now Unix seconds
     * @param callable(string, array<string, string>): string|null $translate
     */
    public static function state(StoredCheckout $checkout, int $now, ?callable $translate = null): string
    {
        if ($checkout->appliedAction !== null && isset(self::REVIEW_ACTIONS[$checkout->appliedAction])) {
            return self::say(self::REVIEW_ACTIONS[$checkout->appliedAction], $translate);
        }
        $received = $checkout->receivedUsd !== null && Money::compare($checkout->receivedUsd, '0') > 0;
        switch ($checkout->lastStatus) {
            case 'settled':
                return self::say('Paid', $translate);
            case 'underpaid':
                return self::say($checkout->isPayable($now) ? 'Part paid' : 'Part paid — window closed', $translate);
            case 'processing':
                return self::say('Payment seen — confirming', $translate);
            case 'expired':
                return self::say($received ? 'Expired — part paid' : 'Expired without payment', $translate);
            case 'pending':
                return self::say($checkout->isPayable($now) ? 'Awaiting payment' : 'Window closed', $translate);
            default:
                return self::say('Not checked yet', $translate);
        }
    }

    /**
     * What the plugin did with the transaction, or whether it is still watched.
     *
     * @param int $now Unix seconds
     * @param callable(string, array<string, string>): string|null $translate
     */
    public static function resolution(StoredCheckout $checkout, int $now, ?callable $translate = null): string
    {
        if ($checkout->resolution === StoredCheckout::RESOLUTION_BOOKED) {
            return self::say('Payment booked on the order', $translate);
        }
        if ($checkout->resolution === StoredCheckout::RESOLUTION_FLAGGED) {
            return self::say('Handed to you for review', $translate);
        }
        if ($checkout->appliedAction === Decision::CANCEL_EXPIRED) {
            return self::say($checkout->isWatched($now) ? 'Order cancelled; watched for a late payment' : 'Order cancelled', $translate);
        }
        if ($checkout->appliedAction === Decision::HOLD_UNDERPAID) {
            return self::say($checkout->isWatched($now) ? 'Order on hold for the rest' : 'Order on hold; no longer watched', $translate);
        }
        return self::say($checkout->isWatched($now) ? 'Watched' : 'No longer watched', $translate);
    }

    /**
     * One row per checkout for the order screen's panel, newest first, every value plain text (the
     * platform escapes as it prints): transaction_code, checkout_url, amount, wallet, received,
     * state, resolution, created, expires, checked.
     *
     * @param list<StoredCheckout> $checkouts
     * @param callable(int): string $formatTime Unix seconds in the shop's date and time format
     * @param callable(string, array<string, string>): string|null $translate
     * @return list<array<string, string>>
     */
    public static function rows(array $checkouts, int $now, callable $formatTime, ?callable $translate = null): array
    {
        $time = static function (?int $unix) use ($formatTime): string {
            return $unix === null ? '—' : (string) $formatTime($unix);
        };
        $rows = [];
        foreach ($checkouts as $checkout) {
            $rows[] = [
                'transaction_code' => $checkout->transactionCode,
                'checkout_url' => $checkout->checkoutUrl,
                'amount' => $checkout->fiatAmount . ' ' . $checkout->fiatCurrency,
                'wallet' => $checkout->walletAddress . ' (' . $checkout->walletCurrency . ', ' . $checkout->walletNetwork . ')',
                'received' => self::receivedUsd($checkout),
                'state' => self::state($checkout, $now, $translate),
                'resolution' => self::resolution($checkout, $now, $translate),
                'created' => $time($checkout->createdAt),
                'expires' => $time($checkout->expiresAt),
                'checked' => $time($checkout->checkedAt),
            ];
        }
        return $rows;
    }

    /** The USD received so far with two decimals ("4.00 USD"), or "—" before the first check. */
    public static function receivedUsd(StoredCheckout $checkout): string
    {
        if ($checkout->receivedUsd === null) {
            return '—';
        }
        try {
            return Money::normalizeFiatAmount($checkout->receivedUsd, 'USD') . ' USD';
        } catch (\Throwable $exception) {
            return $checkout->receivedUsd . ' USD';
        }
    }

    private static function say(string $text, ?callable $translate): string
    {
        return $translate === null ? $text : (string) $translate($text, []);
    }
}
