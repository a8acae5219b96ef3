<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Gateway;

defined('ABSPATH') || exit;

/**
 * What the plugin keeps on a WooCommerce order, read and written through the order CRUD API only
 * (HPOS and legacy storage alike), and how a WooCommerce status maps to the shared order states.
 */
final class OrderData
{
    public const TRANSACTION_CODE = '_cryptocheckout_transaction_code';
    public const CHECKOUT_URL = '_cryptocheckout_checkout_url';
    public const AMOUNT_IN_USD = '_cryptocheckout_amount_in_usd';
    public const FIAT_AMOUNT = '_cryptocheckout_fiat_amount';
    public const FIAT_CURRENCY = '_cryptocheckout_fiat_currency';
    public const WALLET_ADDRESS = '_cryptocheckout_wallet_address';
    public const WALLET_CURRENCY = '_cryptocheckout_wallet_currency';
    public const WALLET_NETWORK = '_cryptocheckout_wallet_network';
    public const SERVICE_URL = '_cryptocheckout_service_url';
    public const EXPIRES_AT = '_cryptocheckout_expires_at';
    public const POLL_UNTIL = '_cryptocheckout_poll_until';
    public const HOLD_REASON = '_cryptocheckout_hold_reason';
    public const RECEIVED_USD = '_cryptocheckout_received_usd';
    public const MISMATCH_NOTED = '_cryptocheckout_mismatch_noted';

    public const HOLD_UNDERPAID = 'underpaid';
    public const HOLD_LATE_PAYMENT = 'late_payment';

    /** How long after expiry the service still accepts a late payment, plus a margin. */
    public const LATE_WINDOW_SECONDS = 25 * HOUR_IN_SECONDS;

    private function __construct()
    {
    }

    public static function transactionCode(\WC_Order $order): string
    {
        return (string) $order->get_meta(self::TRANSACTION_CODE);
    }

    /**
     * The order as the shared Reconciler expects it: what was agreed when the checkout was created.
     *
     * @return array<string, string>
     */
    public static function storedForReconciler(\WC_Order $order): array
    {
        return [
            'transaction_code' => self::transactionCode($order),
            'fiat_amount' => (string) $order->get_meta(self::FIAT_AMOUNT),
            'fiat_currency' => (string) $order->get_meta(self::FIAT_CURRENCY),
            'wallet_address' => (string) $order->get_meta(self::WALLET_ADDRESS),
            'wallet_currency' => (string) $order->get_meta(self::WALLET_CURRENCY),
            'wallet_network' => (string) $order->get_meta(self::WALLET_NETWORK),
            'order_state' => self::orderState($order),
        ];
    }

    /** Maps the WooCommerce status (and why the plugin put an order on hold) to a shared order state. */
    public static function orderState(\WC_Order $order): string
    {
        if ($order->has_status(['processing', 'completed', 'refunded'])) {
            return 'paid';
        }
        if ($order->has_status('cancelled')) {
            return 'cancelled';
        }
        if ($order->has_status('on-hold')) {
            $reason = (string) $order->get_meta(self::HOLD_REASON);
            if ($reason === self::HOLD_UNDERPAID) {
                return 'underpaid';
            }
            if ($reason === self::HOLD_LATE_PAYMENT) {
                return 'late_payment_review';
            }
        }
        return 'awaiting_payment';
    }

    /** Whether the scheduled poll still has a reason to look at this order. */
    public static function isWatched(\WC_Order $order, int $now): bool
    {
        if (self::transactionCode($order) === '' || in_array(self::orderState($order), ['paid', 'late_payment_review'], true)) {
            return false;
        }
        $until = (int) $order->get_meta(self::POLL_UNTIL);
        return $until === 0 || $until >= $now;
    }
}
