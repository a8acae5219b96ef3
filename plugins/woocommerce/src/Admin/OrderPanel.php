<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Admin;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Helper\Kernel;
use CryptoCheckout\WooCommerce\Order\WooCommerceRefundPort;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\CheckoutLabels;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\Kernel as PluginKernel;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\RefundLabels;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\RefundRecord;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\RunOutcome;

/**
 * The "Crypto Checkout" box on the order edit screen (HPOS and legacy), for orders with a checkout:
 * each transaction in the kernel's words (CheckoutLabels), its payment page, the order's refunds
 * (RefundLabels: waiting for the buyer's address, the payment to send with its wallet link, paid
 * with the transaction's link), and "Check payment now", the kernel's check() of the order and of
 * its open refunds (admin-post.php, nonce, edit_shop_orders) with its outcome. Opening the screen
 * checks the order's open refunds with the service first, so a paid one shows paid and is recorded.
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
     */
    public static function register($screenId, $object = null): void
    {
        if (!in_array((string) $screenId, self::screens(), true)) {
            return;
        }
        $order = self::orderOf($object);
        $id = $order === null ? '' : (string) $order->get_id();
        if ($id === '' || Kernel::get($id)->checkouts($id) === []) {
            return;
        }
        add_meta_box(self::BOX_ID, __('Crypto Checkout', 'cryptocheckout-for-woocommerce'), [self::class, 'render'], (string) $screenId, 'normal', 'default');
    }

    /** @return list<string> the order edit screens of WooCommerce 10.0, whichever storage is on */
    public static function screens(): array
    {
        return array_values(array_unique([(string) wc_get_page_screen_id('shop-order'), 'woocommerce_page_wc-orders', 'shop_order']));
    }

    /** @param mixed $object */
    public static function render($object): void
    {
        $order = self::orderOf($object);
        if ($order === null) {
            return;
        }
        $formatTime = static fn (int $timestamp): string => (string) wp_date(get_option('date_format') . ' ' . get_option('time_format'), $timestamp);
        $columns = [
            'state' => __('State', 'cryptocheckout-for-woocommerce'),
            'amount' => __('Amount', 'cryptocheckout-for-woocommerce'),
            'received' => __('Received', 'cryptocheckout-for-woocommerce'),
            'created' => __('Created', 'cryptocheckout-for-woocommerce'),
            'expires' => __('Expires', 'cryptocheckout-for-woocommerce'),
            'resolution' => __('Resolution', 'cryptocheckout-for-woocommerce'),
        ];
        echo '<table class="widefat striped cryptocheckout-order-panel"><thead><tr><th scope="col">' . esc_html__('Transaction', 'cryptocheckout-for-woocommerce') . '</th>';
        foreach ($columns as $heading) {
            echo '<th scope="col">' . esc_html($heading) . '</th>';
        }
        echo '</tr></thead><tbody>';
        $id = (string) $order->get_id();
        foreach (CheckoutLabels::rows(Kernel::get($id)->checkouts($id), time(), $formatTime, [Kernel::class, 'translate']) as $row) {
            echo '<tr data-transaction="' . esc_attr($row['transaction_code']) . '"><td><code>' . esc_html($row['transaction_code']) . '</code>';
            if ($row['checkout_url'] !== '') {
                echo '<br><a href="' . esc_url($row['checkout_url']) . '" target="_blank" rel="noopener noreferrer">' . esc_html__('Payment page', 'cryptocheckout-for-woocommerce') . '</a>';
            }
            echo '</td>';
            foreach (array_keys($columns) as $column) {
                echo '<td>' . esc_html($row[$column]) . '</td>';
            }
            echo '</tr>';
        }
        echo '</tbody></table>';
        self::renderRefunds($id);
        $checkUrl = wp_nonce_url(add_query_arg(['action' => self::CHECK_ACTION, 'order_id' => $id], admin_url('admin-post.php')), self::CHECK_ACTION . '_' . $id);
        echo '<p><a class="button" href="' . esc_url($checkUrl) . '">' . esc_html__('Check payment now', 'cryptocheckout-for-woocommerce') . '</a> ';
        echo '<span class="description">' . esc_html__('Asks the payment service about this order now and applies what it says.', 'cryptocheckout-for-woocommerce') . '</span></p>';
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
        $id = (string) $order->get_id();
        $kernel = Kernel::get($id);
        $outcome = $kernel->check($id);
        self::checkRefunds($kernel, $id);
        Kernel::log('info', 'Payment checked from the order screen.', ['order' => $id, 'result' => $outcome->result, 'user' => get_current_user_id()]);
        wp_safe_redirect(add_query_arg(self::OUTCOME_ARG, $outcome->result, $order->get_edit_order_url()));
        exit;
    }

    /**
     * The order's refunds, newest first, each as RefundLabels words it, after a check of the open
     * ones (and of a paid one not yet recorded) with the service.
     */
    private static function renderRefunds(string $orderId): void
    {
        $kernel = Kernel::get($orderId);
        self::checkRefunds($kernel, $orderId);
        $refunds = $kernel->refunds($orderId);
        if ($refunds === []) {
            return;
        }
        echo '<h4>' . esc_html__('Refunds', 'cryptocheckout-for-woocommerce') . '</h4><table class="widefat striped cryptocheckout-refunds"><tbody>';
        foreach ($refunds as $refund) {
            $wcRefundId = WooCommerceRefundPort::wcRefundIdOf($refund->platformRefundId);
            echo '<tr data-refund="' . esc_attr($refund->refundId) . '" data-status="' . esc_attr($refund->status) . '"><td>';
            if ($wcRefundId !== null) {
                /* translators: %d: WooCommerce refund number */
                echo '<strong>' . esc_html(sprintf(__('Refund #%d', 'cryptocheckout-for-woocommerce'), $wcRefundId)) . '</strong><br>';
            }
            $lines = [];
            foreach (RefundLabels::lines($refund, [Kernel::class, 'translate']) as $line) {
                $text = esc_html($line['text']);
                $link = $line['link'] === null ? '' : esc_url($line['link'], ['http', 'https', 'ethereum', 'bitcoin', 'solana', 'tron']);
                if ($link !== '') {
                    $text .= ' <a href="' . $link . '" target="_blank" rel="noopener noreferrer">' . esc_html((string) $line['link_text']) . '</a>';
                }
                $lines[] = $text;
            }
            echo implode('<br>', $lines) . '</td></tr>'; // phpcs:ignore WordPress.Security.EscapeOutput.OutputNotEscaped -- every part escaped above
        }
        echo '</tbody></table>';
    }

    /** Checks the order's refunds the service may still change, or that are paid and not recorded yet. */
    private static function checkRefunds(PluginKernel $kernel, string $orderId): void
    {
        $port = new WooCommerceRefundPort();
        foreach ($kernel->refunds($orderId) as $refund) {
            if ($refund->isOpen() || ($refund->status === RefundRecord::PAID && $refund->recordedAt === null)) {
                $outcome = $kernel->checkRefunds($port, $refund->refundId)[0] ?? null;
                Kernel::log('debug', 'Refund checked from the order screen.', ['order' => $orderId, 'refund' => $refund->refundId, 'result' => $outcome === null ? '' : $outcome['result']]);
            }
        }
    }

    /** admin_notices: the outcome of "Check payment now", on the screen it came back to. */
    public static function showOutcome(): void
    {
        // phpcs:ignore WordPress.Security.NonceVerification.Recommended -- display only; unknown values show nothing
        $result = isset($_GET[self::OUTCOME_ARG]) ? sanitize_key(wp_unslash((string) $_GET[self::OUTCOME_ARG])) : '';
        $messages = [
            RunOutcome::APPLIED => ['success', __('Crypto Checkout: the payment was checked and the order updated from the service\'s record (see the order notes).', 'cryptocheckout-for-woocommerce')],
            RunOutcome::UNCHANGED => ['info', __('Crypto Checkout: the payment was checked; the order already matches the service\'s record.', 'cryptocheckout-for-woocommerce')],
            RunOutcome::BUSY => ['warning', __('Crypto Checkout: another check of this order is running; its result appears in the order notes shortly.', 'cryptocheckout-for-woocommerce')],
            RunOutcome::LOOKUP_FAILED => ['error', __('Crypto Checkout: the payment service could not be reached, so nothing changed. Try again in a moment.', 'cryptocheckout-for-woocommerce')],
            RunOutcome::FAILED => ['error', __('Crypto Checkout: updating the order failed; the log (source "cryptocheckout") says why. The next check tries again.', 'cryptocheckout-for-woocommerce')],
            RunOutcome::NO_CHECKOUT => ['info', __('Crypto Checkout: nothing left to check; every transaction of this order is settled, handed to you, or past its late window.', 'cryptocheckout-for-woocommerce')],
        ];
        if (isset($messages[$result]) && current_user_can('edit_shop_orders')) {
            echo '<div class="notice notice-' . esc_attr($messages[$result][0]) . ' is-dismissible"><p>' . esc_html($messages[$result][1]) . '</p></div>';
        }
    }

    /** @param mixed $object the WC_Order (HPOS screen) or the order's WP_Post (legacy screen) */
    private static function orderOf($object): ?\WC_Order
    {
        $order = $object instanceof \WP_Post ? wc_get_order($object->ID) : $object;
        return $order instanceof \WC_Order ? $order : null;
    }
}
