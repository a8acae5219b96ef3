<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Gateway;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Helper\Assets;
use CryptoCheckout\WooCommerce\Helper\Kernel;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\StatusWidgetMarkup;

/**
 * The payment status box on the order-received page, for every order that has a Crypto Checkout
 * checkout — found by its stored checkouts, not by its payment method, which WooCommerce's Store
 * API may have changed since. The order is checked against the service as the buyer arrives; the
 * script (build/thankyou.js) then follows the status endpoint and, in the "payment window"
 * display, opens the hosted page over the shop.
 */
final class ThankYou
{
    public const SCRIPT_HANDLE = 'cryptocheckout-thankyou';

    private function __construct()
    {
    }

    /** woocommerce_thankyou, for whatever payment method the order shows. @param int $orderId */
    public static function render($orderId): void
    {
        $order = wc_get_order((int) $orderId);
        if (!$order instanceof \WC_Order) {
            return;
        }
        $status = StatusController::current((string) $order->get_id());
        if ($status === null) {
            return;
        }
        $openModal = isset($_GET[Gateway::PAY_QUERY_ARG]); // phpcs:ignore WordPress.Security.NonceVerification.Recommended -- display switch only
        if (Assets::register(self::SCRIPT_HANDLE, 'thankyou')) {
            wp_enqueue_script(self::SCRIPT_HANDLE);
        }
        // phpcs:ignore WordPress.Security.EscapeOutput.OutputNotEscaped -- StatusWidgetMarkup escapes every value it writes
        echo StatusWidgetMarkup::render($status, StatusController::url($order), [Kernel::class, 'translate'], $openModal);
    }
}
