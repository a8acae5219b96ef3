<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Order;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Helper\Kernel;

/**
 * Keeps WooCommerce's unpaid-order cancel (wc_cancel_unpaid_orders, every "Hold stock" minutes)
 * off an order whose Crypto Checkout payment window is still open: cancelling it then would turn a
 * buyer who pays on time into a late payment put on hold for review. Once the window has closed,
 * WooCommerce cancels the order as it does any other.
 */
final class UnpaidOrderGuard
{
    private function __construct()
    {
    }

    /**
     * Filter woocommerce_cancel_unpaid_order.
     *
     * @param mixed $cancel whether WooCommerce (or an earlier filter) would cancel the order
     * @param mixed $order \WC_Order
     */
    public static function allowCancel($cancel, $order): bool
    {
        if (!$cancel || !$order instanceof \WC_Order) {
            return (bool) $cancel;
        }
        $newest = Kernel::port()->checkouts((string) $order->get_id())[0] ?? null;
        return $newest === null || !$newest->isPayable(time());
    }
}
