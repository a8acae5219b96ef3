<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

use CryptoCheckout\Client\Exception\MoneyException;
use CryptoCheckout\Client\Exception\NoRailAvailableException;
use CryptoCheckout\Client\Exception\SettlementUnavailableException;
use CryptoCheckout\Client\Money;

/**
 * Reads the service's GET /payment_options answer (Client::getPaymentOptions), which CheckoutOpener
 * asks before it creates a checkout, and the payment_options of the POST /checkout answer, which the
 * service prices for the merchant's wallet. Whether an order can be paid is read from the one option
 * of the merchant's own settlement (the crypto rail whose asset and network are the merchant's, such
 * as usdc_polygon for USDC on POLYGON), never from the other rails: in live mode the service offers
 * a checkout only that rail (docs/live-mode.md), so another rail being available pays nothing. An
 * amount outside that option's bounds, or an option the service does not offer for another reason
 * (its unavailable_reason) or does not list, would give the buyer a payment page that offers
 * nothing, so the order is refused at the shop's own checkout instead, each with its own reason.
 *
 *   data.payment_options[] = {slug, kind, asset, network, min_usd, max_usd, amount_usd, available, unavailable_reason?, …}
 */
final class RailAvailability
{
    private function __construct()
    {
    }

    /**
     * True when the service offers at least one rail (crypto or fiat) for the priced amount; not
     * whether a merchant can be paid (assertPayable, settlementOption).
     *
     * @param array<string, mixed> $paymentOptions the data of GET /payment_options
     */
    public static function anyAvailable(array $paymentOptions): bool
    {
        return self::availableSlugs($paymentOptions) !== [];
    }

    /**
     * Refuses an order whose payment page would offer nothing: the option of the merchant's
     * settlement ($asset on $network) must be listed and available.
     *
     * @param array<string, mixed> $paymentOptions the data of GET /payment_options for the amount (or of POST /checkout)
     * @param string $fiatAmount decimal string
     * @param string $asset the merchant's settlement asset ("USDC")
     * @param string $network the merchant's network id ("POLYGON")
     * @throws NoRailAvailableException when the amount is outside the bounds of the settlement's option
     * @throws SettlementUnavailableException when the service does not offer the settlement for another
     *     reason (its unavailable_reason), or lists no option for it
     */
    public static function assertPayable(array $paymentOptions, string $fiatAmount, string $fiatCurrency, string $asset, string $network): void
    {
        $option = self::settlementOption($paymentOptions, $asset, $network);
        if ($option === null) {
            throw new SettlementUnavailableException($fiatAmount, $fiatCurrency, $asset, $network, null);
        }
        if (($option['available'] ?? false) === true) {
            return;
        }
        $amountUsd = self::usd($paymentOptions['amount_in_usd'] ?? null) ?? self::usd($option['amount_usd'] ?? null);
        $minimum = self::usd($option['min_usd'] ?? null);
        $maximum = self::usd($option['max_usd'] ?? null);
        if ($amountUsd !== null && (($minimum !== null && Money::compare($amountUsd, $minimum) < 0) || ($maximum !== null && Money::compare($amountUsd, $maximum) > 0))) {
            throw new NoRailAvailableException($fiatAmount, $fiatCurrency, $amountUsd, $minimum);
        }
        $reason = $option['unavailable_reason'] ?? null;
        throw new SettlementUnavailableException(
            $fiatAmount,
            $fiatCurrency,
            $asset,
            $network,
            is_string($reason) && trim($reason) !== '' ? $reason : sprintf('The service lists %s as not available, without a reason.', (string) ($option['slug'] ?? 'its option'))
        );
    }

    /**
     * The option of the merchant's settlement: the first crypto option whose asset and network are
     * $asset and $network (compared without regard to case), or null when the answer lists none.
     *
     * @param array<string, mixed> $paymentOptions
     * @return array<string, mixed>|null
     */
    public static function settlementOption(array $paymentOptions, string $asset, string $network): ?array
    {
        foreach (self::options($paymentOptions) as $option) {
            if (($option['kind'] ?? 'crypto') === 'crypto'
                && is_string($option['asset'] ?? null) && strtoupper($option['asset']) === strtoupper($asset)
                && is_string($option['network'] ?? null) && strtoupper($option['network']) === strtoupper($network)) {
                return $option;
            }
        }
        return null;
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
