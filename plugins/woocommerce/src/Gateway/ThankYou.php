<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Gateway;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Helper\Assets;
use CryptoCheckout\WooCommerce\Helper\Kernel;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\OrderState;
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
        $restartUrl = self::restartUrl($order, $status);
        if ($restartUrl !== null) {
            echo '<p class="cryptocheckout-status__restart"><a class="button" href="' . esc_url($restartUrl) . '">'
                . esc_html__('Start a new payment', 'cryptocheckout-for-woocommerce') . '</a></p>';
        }
    }

    /**
     * WooCommerce's own "pay for order" page, for an unpaid order whose payment window closed and
     * that still needs payment: paying from there opens a new checkout. A part-paid order gets no
     * such link (the shop settles the rest with the buyer), and neither does a cancelled one.
     *
     * @param array{state: string, message: string, terminal: bool, checkout_url: string|null} $status
     */
    public static function restartUrl(\WC_Order $order, array $status): ?string
    {
        if ($status['state'] !== OrderState::AWAITING_PAYMENT || $status['checkout_url'] !== null || !$order->needs_payment()) {
            return null;
        }
        return (string) $order->get_checkout_payment_url();
    }
}
