<?php
/** Harness (WooCommerce 10.0): the wc_* functions the plugin and the harness use, with WooCommerce's signatures. */

defined('ABSPATH') || exit;

function WC()
{
    return WooCommerce::instance();
}

/**
 * WC_Order_Factory::get_order() with the orders cache (OrderCache, on by default): the first read
 * of an order in a request is kept, and every later call in the request gets a copy of it, until the
 * order is saved in this request. Another request's write is not seen.
 */
function wc_get_order($the_order = false)
{
    $id = $the_order instanceof WC_Order || $the_order instanceof WC_Order_Refund ? $the_order->get_id() : (int) $the_order;
    if ($id <= 0) {
        return false;
    }
    if (!isset($GLOBALS['wc_harness_order_cache'][$id])) {
        try {
            // A refund is an order of its own type (WC_Order_Factory picks the class by type).
            $GLOBALS['wc_harness_order_cache'][$id] = WC_Order_Refund::exists($id) ? new WC_Order_Refund($id) : new WC_Order($id);
        } catch (Exception $e) {
            return false;
        }
    }
    return clone $GLOBALS['wc_harness_order_cache'][$id];
}

function wc_get_orders($args)
{
    return (new WC_Order_Data_Store())->query((array) $args);
}

function wc_create_order($args = [])
{
    $order = new WC_Order();
    $order->set_currency($args['currency'] ?? get_woocommerce_currency());
    $order->save();
    return $order;
}

function wc_get_order_statuses()
{
    return apply_filters('wc_order_statuses', [
        'wc-pending' => 'Pending payment',
        'wc-processing' => 'Processing',
        'wc-on-hold' => 'On hold',
        'wc-completed' => 'Completed',
        'wc-cancelled' => 'Cancelled',
        'wc-refunded' => 'Refunded',
        'wc-failed' => 'Failed',
        'wc-checkout-draft' => 'Draft',
    ]);
}

function wc_get_order_status_name($status)
{
    $statuses = wc_get_order_statuses();
    $status = 'wc-' === substr($status, 0, 3) ? substr($status, 3) : $status;
    return $statuses['wc-' . $status] ?? $status;
}

function wc_get_is_paid_statuses()
{
    return apply_filters('woocommerce_order_is_paid_statuses', ['processing', 'completed']);
}

function wc_generate_order_key($key = '')
{
    if ('' === $key) {
        $key = wp_generate_password(13, false);
    }
    return 'wc_' . apply_filters('woocommerce_generate_order_key', 'order_' . $key);
}

function get_woocommerce_currency()
{
    return apply_filters('woocommerce_currency', get_option('woocommerce_currency', 'USD'));
}

function wc_get_price_decimals()
{
    return absint(apply_filters('wc_get_price_decimals', get_option('woocommerce_price_num_decimals', 2)));
}

function wc_format_decimal($number, $dp = false, $trim_zeros = false)
{
    $number = (string) $number;
    if (!is_numeric($number)) {
        $number = '0';
    }
    if ($dp !== false) {
        $number = number_format((float) $number, (int) $dp, '.', '');
    }
    return $number;
}

function wc_clean($var)
{
    if (is_array($var)) {
        return array_map('wc_clean', $var);
    }
    return is_scalar($var) ? sanitize_text_field((string) $var) : $var;
}

function wc_get_logger()
{
    static $logger = null;
    if ($logger === null) {
        $class = apply_filters('woocommerce_logging_class', 'WC_Logger');
        $logger = is_object($class) ? $class : new $class();
    }
    return $logger;
}

function wc_doing_it_wrong($function, $message, $version)
{
    _doing_it_wrong($function, $message, $version); // phpcs:ignore
}

function wc_add_notice($message, $notice_type = 'success', $data = [])
{
    if (!did_action('woocommerce_init')) {
        wc_doing_it_wrong(__FUNCTION__, 'This function should not be called before woocommerce_init.', '2.3');
        return;
    }
    $message = apply_filters('woocommerce_add_' . $notice_type, $message);
    if (!empty($message)) {
        $GLOBALS['wc_harness_notices'][$notice_type][] = ['notice' => $message, 'data' => $data];
    }
}

function wc_get_notices($notice_type = '')
{
    $all = $GLOBALS['wc_harness_notices'] ?? [];
    if ($notice_type === '') {
        return $all;
    }
    return $all[$notice_type] ?? [];
}

function wc_clear_notices()
{
    $GLOBALS['wc_harness_notices'] = [];
}

/**
 * The admin screen id of a WooCommerce page (includes/admin/wc-admin-functions.php); for orders
 * "woocommerce_page_wc-orders" under HPOS, the post type "shop_order" otherwise.
 */
function wc_get_page_screen_id($for)
{
    $for = str_replace('-', '_', $for);
    if ('shop_order' !== $for) {
        return '';
    }
    return \Automattic\WooCommerce\Utilities\OrderUtil::custom_orders_table_usage_is_enabled() ? 'woocommerce_page_wc-orders' : $for;
}

function wc_get_page_permalink($page)
{
    return home_url('/' . $page . '/');
}

function wc_get_checkout_url()
{
    return apply_filters('woocommerce_get_checkout_url', wc_get_page_permalink('checkout'));
}

function wc_get_cart_url()
{
    return apply_filters('woocommerce_get_cart_url', wc_get_page_permalink('cart'));
}

function wc_get_endpoint_url($endpoint, $value = '', $permalink = '')
{
    if (!$permalink) {
        $permalink = get_permalink();
    }
    // Plain permalinks, as the test site uses: endpoints are query arguments.
    $url = add_query_arg($endpoint, $value, $permalink);
    return apply_filters('woocommerce_get_endpoint_url', $url, $endpoint, $value, $permalink);
}

function wc_get_product($the_product = false)
{
    $id = (int) $the_product;
    return $id > 0 && get_post_type($id) === 'product' ? new WC_Product($id) : false;
}
