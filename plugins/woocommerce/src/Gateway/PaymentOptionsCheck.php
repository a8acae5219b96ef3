<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Gateway;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Helper\ClientFactory;
use CryptoCheckout\WooCommerce\Helper\Kernel;
use CryptoCheckout\WooCommerce\Vendor\Client\Exception\CryptoCheckoutException;
use CryptoCheckout\WooCommerce\Vendor\Client\Exception\MoneyException;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\RailAvailability;
use CryptoCheckout\WooCommerce\Vendor\Client\Money;

/**
 * Asks the service (GET /payment_options) whether any rail takes the order's total before a checkout
 * is created: the service accepts a checkout below every rail's minimum, and its payment page would
 * then offer the buyer nothing to pay with.
 */
final class PaymentOptionsCheck
{
    private function __construct()
    {
    }

    /**
     * Null when the buyer can pay the order's total (or the order's open checkout for that total is
     * reused, which needs no question); otherwise what the service answered.
     *
     * @param array{service_url: string, wallet_address: string, wallet_currency: string, wallet_network: string} $config
     * @return array{total: string, currency: string, amount_usd: string|null, smallest_minimum_usd: string|null, below_minimum: bool}|null
     * @throws CryptoCheckoutException when the service cannot be asked, or the total is not an amount
     */
    public static function refusal(\WC_Order $order, array $config): ?array
    {
        $currency = (string) $order->get_currency();
        $total = Money::normalizeFiatAmount((string) $order->get_total(), $currency);
        $newest = Kernel::port()->checkouts((string) $order->get_id())[0] ?? null;
        if ($newest !== null && $newest->isPayable(time()) && $newest->fiatCurrency === $currency && Money::compare($newest->fiatAmount, $total) === 0) {
            return null;
        }
        $options = ClientFactory::forOrigin($config['service_url'])->getPaymentOptions($total, $currency);
        if (RailAvailability::anyAvailable($options)) {
            return null;
        }
        $amountUsd = self::usd($options['amount_in_usd'] ?? null);
        $smallest = RailAvailability::smallestMinimumUsd($options);
        return [
            'total' => $total,
            'currency' => $currency,
            'amount_usd' => $amountUsd,
            'smallest_minimum_usd' => $smallest,
            'below_minimum' => $amountUsd !== null && $smallest !== null && Money::compare($amountUsd, $smallest) < 0,
        ];
    }

    /** @param mixed $amount */
    private static function usd($amount): ?string
    {
        try {
            return Money::normalizeFiatAmount($amount, 'USD');
        } catch (MoneyException $exception) {
            return null;
        }
    }
}
