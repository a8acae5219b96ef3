<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Gateway;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Helper\Assets;

/**
 * The payment status box on the order-received page. The order is checked against the service as
 * the buyer arrives; the script (build/thankyou.js) then follows the status endpoint and, in the
 * "payment window" display, opens the hosted page over the shop.
 */
final class ThankYou
{
    public const SCRIPT_HANDLE = 'cryptocheckout-thankyou';

    private function __construct()
    {
    }

    /** @param int $orderId */
    public static function render($orderId): void
    {
        $order = wc_get_order((int) $orderId);
        if (!$order instanceof \WC_Order || $order->get_payment_method() !== Gateway::ID || OrderData::transactionCode($order) === '') {
            return;
        }
        if (OrderData::isWatched($order, time())) {
            (new OrderSync())->sync($order->get_id(), 'return');
            $order = wc_get_order($order->get_id());
            if (!$order instanceof \WC_Order) {
                return;
            }
        }

        $status = OrderStatus::forBuyer($order);
        $openModal = isset($_GET[Gateway::PAY_QUERY_ARG]) && $status['checkout_url'] !== null; // phpcs:ignore WordPress.Security.NonceVerification.Recommended -- display switch only
        $config = [
            'statusUrl' => StatusController::url($order),
            'status' => $status,
            'openModal' => $openModal,
            'i18n' => [
                'pay' => __('Pay now', 'cryptocheckout-for-woocommerce'),
                'modalTitle' => __('Crypto Checkout payment', 'cryptocheckout-for-woocommerce'),
                'close' => __('Close payment', 'cryptocheckout-for-woocommerce'),
                'offline' => __('Checking the payment status failed; retrying…', 'cryptocheckout-for-woocommerce'),
            ],
        ];

        if (Assets::register(self::SCRIPT_HANDLE, 'thankyou')) {
            wp_enqueue_script(self::SCRIPT_HANDLE);
        }

        echo '<section class="cryptocheckout-status" id="cryptocheckout-status" data-state="' . esc_attr($status['state']) . '" data-config="' . esc_attr((string) wp_json_encode($config)) . '">';
        echo '<h2 class="cryptocheckout-status__title">' . esc_html__('Crypto payment', 'cryptocheckout-for-woocommerce') . '</h2>';
        echo '<p class="cryptocheckout-status__message" role="status" aria-live="polite">' . esc_html($status['message']) . '</p>';
        if ($status['checkout_url'] !== null) {
            echo '<p><a class="button cryptocheckout-status__pay" href="' . esc_url($status['checkout_url']) . '">' . esc_html__('Pay now', 'cryptocheckout-for-woocommerce') . '</a></p>';
        }
        echo '</section>';
    }
}
