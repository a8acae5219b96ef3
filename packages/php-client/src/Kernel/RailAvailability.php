<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

use CryptoCheckout\Client\Exception\MoneyException;
use CryptoCheckout\Client\Exception\NoRailAvailableException;
use CryptoCheckout\Client\Money;

/**
 * Reads the service's GET /payment_options answer (Client::getPaymentOptions), which CheckoutOpener
 * asks before it creates a checkout: an amount below every rail's minimum (or above every maximum)
 * would give the buyer a payment page that offers nothing, so the order is refused at the shop's
 * own checkout instead.
 *
 *   data.payment_options[] = {slug, kind, min_usd, max_usd, available, …}
 */
final class RailAvailability
{
    private function __construct()
    {
    }

    /**
     * True when the service offers at least one rail (crypto or fiat) for the priced amount.
     *
     * @param array<string, mixed> $paymentOptions the data of GET /payment_options
     */
    public static function anyAvailable(array $paymentOptions): bool
    {
        return self::availableSlugs($paymentOptions) !== [];
    }

    /**
     * @param array<string, mixed> $paymentOptions the data of GET /payment_options for the amount
     * @param string $fiatAmount decimal string
     * @throws NoRailAvailableException when no rail takes the amount
     */
    public static function assertPayable(array $paymentOptions, string $fiatAmount, string $fiatCurrency): void
    {
        if (!self::anyAvailable($paymentOptions)) {
            throw new NoRailAvailableException($fiatAmount, $fiatCurrency, self::usd($paymentOptions['amount_in_usd'] ?? null), self::smallestMinimumUsd($paymentOptions));
        }
    }

    /**
     * The slugs of the rails the buyer could pay with, in the service's order.
     *
     * @param array<string, mixed> $paymentOptions
     * @return list<string>
     */
    public static function availableSlugs(array $paymentOptions): array
    {
        $slugs = [];
        foreach (self::options($paymentOptions) as $option) {
            if (($option['available'] ?? false) === true) {
                $slugs[] = (string) ($option['slug'] ?? '');
            }
        }
        return $slugs;
    }

    /**
     * The smallest amount any rail accepts, in USD as a decimal string ("0.50"), or null when the
     * answer lists no rail; for the log and the shop owner's note.
     *
     * @param array<string, mixed> $paymentOptions
     */
    public static function smallestMinimumUsd(array $paymentOptions): ?string
    {
        $smallest = null;
        foreach (self::options($paymentOptions) as $option) {
            $minimum = self::usd($option['min_usd'] ?? null);
            if ($minimum !== null && ($smallest === null || Money::compare($minimum, $smallest) < 0)) {
                $smallest = $minimum;
            }
        }
        return $smallest;
    }

    /**
     * @param array<string, mixed> $paymentOptions
     * @return list<array<string, mixed>>
     */
    private static function options(array $paymentOptions): array
    {
        $list = $paymentOptions['payment_options'] ?? [];
        return is_array($list) ? array_values(array_filter($list, 'is_array')) : [];
    }

    /**
     * A USD amount with its two decimals ("0.50"), or null for anything that is not one.
     *
     * @param mixed $amount a JSON number as decoded, or a decimal string
     */
    private static function usd($amount): ?string
    {
        try {
            return Money::normalizeFiatAmount($amount, 'USD');
        } catch (MoneyException $exception) {
            return null;
        }
    }
}
