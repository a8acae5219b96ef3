<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Admin;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Helper\Kernel;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\CheckoutLabels;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\RunOutcome;

/**
 * The "Crypto Checkout" box on the order edit screen (HPOS: woocommerce_page_wc-orders, legacy:
 * shop_order), for orders that hold a Crypto Checkout checkout: every transaction of the order with
 * what the service last said about it and what the plugin did, a link to its payment page, and
 * "Check payment now", which runs the kernel for the order at once (admin-post.php, nonce and
 * edit_shop_orders) and comes back with a notice of the outcome.
 */
final class OrderPanel
{
    public const BOX_ID = 'cryptocheckout-order-panel';
    public const CHECK_ACTION = 'cryptocheckout_check_order';
    /** The query argument that carries the check's outcome back to the order screen. */
    public const OUTCOME_ARG = 'cryptocheckout_checked';

    private function __construct()
    {
    }

    /**
     * add_meta_boxes: ($screen id, WC_Order) on the HPOS screen, ($post type, WP_Post) on the legacy one.
     *
     * @param string $screenId
     * @param mixed $object
     */
    public static function register($screenId, $object = null): void
    {
        if (!in_array((string) $screenId, self::screens(), true)) {
            return;
        }
        $order = self::orderOf($object);
        if ($order === null || Kernel::port()->checkouts((string) $order->get_id()) === []) {
            return;
        }
        add_meta_box(self::BOX_ID, __('Crypto Checkout', 'cryptocheckout-for-woocommerce'), [self::class, 'render'], (string) $screenId, 'normal', 'default');
    }

    /** @return list<string> the order edit screens of WooCommerce 10.0, whichever storage is on */
    public static function screens(): array
    {
        $current = function_exists('wc_get_page_screen_id') ? (string) wc_get_page_screen_id('shop-order') : '';
        return array_values(array_unique(array_filter([$current, 'woocommerce_page_wc-orders', 'shop_order'])));
    }

    /** The box; $object is the WC_Order (HPOS) or the order's WP_Post (legacy). @param mixed $object */
    public static function render($object): void
    {
        $order = self::orderOf($object);
        if ($order === null) {
            return;
        }
        $now = time();
        $checkouts = Kernel::port()->checkouts((string) $order->get_id());
        echo '<table class="widefat striped cryptocheckout-order-panel"><thead><tr>';
        foreach ([
            __('Transaction', 'cryptocheckout-for-woocommerce'),
            __('State', 'cryptocheckout-for-woocommerce'),
            __('Amount', 'cryptocheckout-for-woocommerce'),
            __('Received', 'cryptocheckout-for-woocommerce'),
            __('Created', 'cryptocheckout-for-woocommerce'),
            __('Expires', 'cryptocheckout-for-woocommerce'),
            __('Resolution', 'cryptocheckout-for-woocommerce'),
        ] as $heading) {
            echo '<th scope="col">' . esc_html($heading) . '</th>';
        }
        echo '</tr></thead><tbody>';
        foreach ($checkouts as $checkout) {
            echo '<tr data-transaction="' . esc_attr($checkout->transactionCode) . '">';
            echo '<td><code>' . esc_html($checkout->transactionCode) . '</code>';
            if ($checkout->checkoutUrl !== '') {
                echo '<br><a href="' . esc_url($checkout->checkoutUrl) . '" target="_blank" rel="noopener noreferrer">' . esc_html__('Payment page', 'cryptocheckout-for-woocommerce') . '</a>';
            }
            echo '</td>';
            echo '<td>' . esc_html(CheckoutLabels::state($checkout, $now, [Kernel::class, 'translate'])) . '</td>';
            echo '<td>' . esc_html($checkout->fiatAmount . ' ' . $checkout->fiatCurrency) . '</td>';
            echo '<td>' . esc_html(CheckoutLabels::receivedUsd($checkout)) . '</td>';
            echo '<td>' . esc_html(self::date($checkout->createdAt)) . '</td>';
            echo '<td>' . esc_html($checkout->expiresAt === null ? '—' : self::date($checkout->expiresAt)) . '</td>';
            echo '<td>' . esc_html(CheckoutLabels::resolution($checkout, $now, [Kernel::class, 'translate'])) . '</td>';
            echo '</tr>';
        }
        echo '</tbody></table>';
        echo '<p><a class="button" href="' . esc_url(self::checkUrl((int) $order->get_id())) . '">' . esc_html__('Check payment now', 'cryptocheckout-for-woocommerce') . '</a> ';
        echo '<span class="description">' . esc_html__('Asks the payment service about this order now and applies what it says.', 'cryptocheckout-for-woocommerce') . '</span></p>';
    }

    /** Where "Check payment now" goes: admin-post.php with the order and a nonce for it. */
    public static function checkUrl(int $orderId): string
    {
        return wp_nonce_url(
            add_query_arg(['action' => self::CHECK_ACTION, 'order_id' => $orderId], admin_url('admin-post.php')),
            self::CHECK_ACTION . '_' . $orderId
        );
    }

    /** admin_post_cryptocheckout_check_order: checks the order against the service, then back to its screen. */
    public static function handleCheck(): void
    {
        // phpcs:ignore WordPress.Security.NonceVerification.Recommended -- the nonce is checked next, for this order id
        $orderId = isset($_GET['order_id']) ? absint(wp_unslash($_GET['order_id'])) : 0;
        check_admin_referer(self::CHECK_ACTION . '_' . $orderId);
        if (!current_user_can('edit_shop_orders')) {
            wp_die(esc_html__('You are not allowed to check the payment of this order.', 'cryptocheckout-for-woocommerce'), '', ['response' => 403]);
        }
        $order = wc_get_order($orderId);
        if (!$order instanceof \WC_Order) {
            wp_die(esc_html__('The order could not be found.', 'cryptocheckout-for-woocommerce'), '', ['response' => 404]);
        }
        $port = Kernel::port();
        $outcome = Kernel::runner($port)->run((string) $order->get_id(), 'admin');
        $port->log('info', 'Payment checked from the order screen.', ['order' => (string) $order->get_id(), 'result' => $outcome->result, 'user' => get_current_user_id()]);
        wp_safe_redirect(add_query_arg(self::OUTCOME_ARG, $outcome->result, self::editUrl($order)));
        exit;
    }

    /** admin_notices: the outcome of "Check payment now", on the screen it came back to. */
    public static function showOutcome(): void
    {
        // phpcs:ignore WordPress.Security.NonceVerification.Recommended -- display only; unknown values show nothing
        $result = isset($_GET[self::OUTCOME_ARG]) ? sanitize_key(wp_unslash((string) $_GET[self::OUTCOME_ARG])) : '';
        $messages = self::outcomeMessages();
        if (!isset($messages[$result]) || !current_user_can('edit_shop_orders')) {
            return;
        }
        [$type, $message] = $messages[$result];
        echo '<div class="notice notice-' . esc_attr($type) . ' is-dismissible"><p>' . esc_html($message) . '</p></div>';
    }

    /** @return array<string, array{0: string, 1: string}> RunOutcome result => [notice type, message] */
    public static function outcomeMessages(): array
    {
        return [
            RunOutcome::APPLIED => ['success', __('Crypto Checkout: the payment was checked and the order updated from the service\'s record (see the order notes).', 'cryptocheckout-for-woocommerce')],
            RunOutcome::UNCHANGED => ['info', __('Crypto Checkout: the payment was checked; the order already matches the service\'s record.', 'cryptocheckout-for-woocommerce')],
            RunOutcome::BUSY => ['warning', __('Crypto Checkout: another check of this order is running; its result appears in the order notes shortly.', 'cryptocheckout-for-woocommerce')],
            RunOutcome::LOOKUP_FAILED => ['error', __('Crypto Checkout: the payment service could not be reached, so nothing changed. Try again in a moment.', 'cryptocheckout-for-woocommerce')],
            RunOutcome::FAILED => ['error', __('Crypto Checkout: updating the order failed; the log (source "cryptocheckout") says why. The next check tries again.', 'cryptocheckout-for-woocommerce')],
            RunOutcome::NO_CHECKOUT => ['info', __('Crypto Checkout: nothing left to check; every transaction of this order is settled, handed to you, or past its late window.', 'cryptocheckout-for-woocommerce')],
        ];
    }

    /** @param mixed $object */
    private static function orderOf($object): ?\WC_Order
    {
        if ($object instanceof \WC_Order) {
            return $object;
        }
        if ($object instanceof \WP_Post) {
            $order = wc_get_order($object->ID);
            return $order instanceof \WC_Order ? $order : null;
        }
        return null;
    }

    private static function editUrl(\WC_Order $order): string
    {
        if (method_exists($order, 'get_edit_order_url')) {
            return (string) $order->get_edit_order_url();
        }
        return admin_url('post.php?post=' . absint($order->get_id()) . '&action=edit');
    }

    private static function date(int $timestamp): string
    {
        return (string) wp_date(get_option('date_format') . ' ' . get_option('time_format'), $timestamp);
    }
}
