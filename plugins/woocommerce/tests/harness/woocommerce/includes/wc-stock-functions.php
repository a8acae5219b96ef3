<?php
/**
 * Harness (WooCommerce 10.0.2): the stock functions of includes/wc-stock-functions.php, with their
 * hooks, over the harness' simple products and line items.
 *
 * - Stock is reduced by wc_maybe_reduce_stock_levels on woocommerce_payment_complete and on the
 *   processing, completed and on-hold statuses, once per order (the order's stock_reduced flag) and
 *   once per line item (its _reduced_stock quantity); it is restored by wc_maybe_increase_stock_levels
 *   on cancelled and pending, only when it was reduced, by the quantity each item recorded.
 * - While an order is pending (or a checkout draft) its items are only *held*: the checkout
 *   reserves them (woocommerce_checkout_order_created → wc_reserve_stock_for_order, ReserveStock
 *   rows in {prefix}wc_reserved_stock for woocommerce_hold_stock_minutes), the holds are released
 *   when the payment completes or the order moves to cancelled, completed, processing or on-hold
 *   (priority 11, after the reduction), and other buyers see the stock less the unexpired holds of
 *   other pending orders (wc_get_held_stock_quantity, WC_Cart::check_cart_item_stock).
 * - Both stop when the store does not manage stock (woocommerce_manage_stock, default "yes").
 */

defined('ABSPATH') || exit;

use Automattic\WooCommerce\Checkout\Helpers\ReserveStock;

function wc_string_to_bool($string)
{
    $string = $string ?? '';
    return is_bool($string) ? $string : ('yes' === strtolower($string) || 1 === $string || 'true' === strtolower($string) || '1' === $string);
}

function wc_update_product_stock($product, $stock_quantity = null, $operation = 'set', $updating = false)
{
    if (!is_a($product, 'WC_Product')) {
        $product = wc_get_product($product);
    }
    if (!$product) {
        return false;
    }
    if (!is_null($stock_quantity) && $product->managing_stock()) {
        do_action('woocommerce_product_before_set_stock', $product);
        $current = (int) $product->get_stock_quantity();
        if ($operation === 'increase') {
            $new = $current + (int) $stock_quantity;
        } elseif ($operation === 'decrease') {
            $new = $current - (int) $stock_quantity;
        } else {
            $new = (int) $stock_quantity;
        }
        update_post_meta($product->get_id(), '_stock', (string) $new);
        do_action('woocommerce_product_set_stock', $product);
        return $product->get_stock_quantity();
    }
    return $product->get_stock_quantity();
}

function wc_maybe_reduce_stock_levels($order_id)
{
    $order = wc_get_order($order_id);
    if (!$order) {
        return;
    }
    $stock_reduced = $order->get_data_store()->get_stock_reduced($order_id);
    $trigger_reduce = apply_filters('woocommerce_payment_complete_reduce_order_stock', !$stock_reduced, $order_id);
    if (!$trigger_reduce) {
        return;
    }
    wc_reduce_stock_levels($order);
    $order->get_data_store()->set_stock_reduced($order_id, true);
}
add_action('woocommerce_payment_complete', 'wc_maybe_reduce_stock_levels');
add_action('woocommerce_order_status_completed', 'wc_maybe_reduce_stock_levels');
add_action('woocommerce_order_status_processing', 'wc_maybe_reduce_stock_levels');
add_action('woocommerce_order_status_on-hold', 'wc_maybe_reduce_stock_levels');

function wc_maybe_increase_stock_levels($order_id)
{
    $order = wc_get_order($order_id);
    if (!$order) {
        return;
    }
    $stock_reduced = $order->get_data_store()->get_stock_reduced($order_id);
    if (!(bool) $stock_reduced) {
        return;
    }
    wc_increase_stock_levels($order);
    $order->get_data_store()->set_stock_reduced($order_id, false);
}
add_action('woocommerce_order_status_cancelled', 'wc_maybe_increase_stock_levels');
add_action('woocommerce_order_status_pending', 'wc_maybe_increase_stock_levels');

/** Reduces each line item's stock once (its _reduced_stock quantity records it); one order note. */
function wc_reduce_stock_levels($order_id)
{
    $order = $order_id instanceof WC_Order ? $order_id : wc_get_order($order_id);
    if (!$order || 'yes' !== get_option('woocommerce_manage_stock') || !apply_filters('woocommerce_can_reduce_order_stock', true, $order)) {
        return;
    }
    $store = $order->get_data_store();
    $changes = [];
    foreach ($store->read_items($order->get_id()) as $item) {
        $product = wc_get_product($item['product_id']);
        if ($item['reduced_stock'] > 0 || !$product || !$product->managing_stock()) {
            continue;
        }
        $qty = apply_filters('woocommerce_order_item_quantity', $item['qty'], $order, $item);
        $new_stock = wc_update_product_stock($product, $qty, 'decrease');
        $store->set_item_reduced_stock($item['id'], (int) $qty);
        $changes[] = $product->get_formatted_name() . ' ' . ($new_stock + $qty) . '&rarr;' . $new_stock;
    }
    if ($changes !== []) {
        $order->add_order_note(__('Stock levels reduced:', 'woocommerce') . ' ' . implode(', ', $changes));
    }
    do_action('woocommerce_reduce_order_stock', $order);
}

/** Gives back what each line item recorded as reduced; one order note. */
function wc_increase_stock_levels($order_id)
{
    $order = $order_id instanceof WC_Order ? $order_id : wc_get_order($order_id);
    if (!$order || 'yes' !== get_option('woocommerce_manage_stock') || !apply_filters('woocommerce_can_restore_order_stock', true, $order)) {
        return;
    }
    $store = $order->get_data_store();
    $changes = [];
    foreach ($store->read_items($order->get_id()) as $item) {
        $product = wc_get_product($item['product_id']);
        if ($item['reduced_stock'] <= 0 || !$product || !$product->managing_stock()) {
            continue;
        }
        $new_stock = wc_update_product_stock($product, $item['reduced_stock'], 'increase');
        $store->set_item_reduced_stock($item['id'], 0);
        $changes[] = $product->get_formatted_name() . ' ' . ($new_stock - $item['reduced_stock']) . '&rarr;' . $new_stock;
    }
    if ($changes !== []) {
        $order->add_order_note(__('Stock levels increased:', 'woocommerce') . ' ' . implode(', ', $changes));
    }
    do_action('woocommerce_restore_order_stock', $order);
}

/** How much of the product unexpired holds of pending orders (other than $exclude_order_id) keep. */
function wc_get_held_stock_quantity(WC_Product $product, $exclude_order_id = 0)
{
    if (!apply_filters('woocommerce_hold_stock_for_checkout', wc_string_to_bool(get_option('woocommerce_manage_stock', 'yes')))) {
        return 0;
    }
    return (new ReserveStock())->get_reserved_stock($product, $exclude_order_id);
}

function wc_reserve_stock_for_order($order)
{
    if (!apply_filters('woocommerce_hold_stock_for_checkout', wc_string_to_bool(get_option('woocommerce_manage_stock', 'yes')))) {
        return;
    }
    $order = $order instanceof WC_Order ? $order : wc_get_order($order);
    if ($order) {
        (new ReserveStock())->reserve_stock_for_order($order);
    }
}
add_action('woocommerce_checkout_order_created', 'wc_reserve_stock_for_order');

function wc_release_stock_for_order($order)
{
    if (!apply_filters('woocommerce_hold_stock_for_checkout', wc_string_to_bool(get_option('woocommerce_manage_stock', 'yes')))) {
        return;
    }
    $order = $order instanceof WC_Order ? $order : wc_get_order($order);
    if ($order) {
        (new ReserveStock())->release_stock_for_order($order);
    }
}
add_action('woocommerce_checkout_order_exception', 'wc_release_stock_for_order');
add_action('woocommerce_payment_complete', 'wc_release_stock_for_order', 11);
add_action('woocommerce_order_status_cancelled', 'wc_release_stock_for_order', 11);
add_action('woocommerce_order_status_completed', 'wc_release_stock_for_order', 11);
add_action('woocommerce_order_status_processing', 'wc_release_stock_for_order', 11);
add_action('woocommerce_order_status_on-hold', 'wc_release_stock_for_order', 11);

/**
 * WC_Cart::check_cart_item_stock() for a cart of [product_id => qty]: every product managing its
 * stock must have the quantity left once the holds of other pending orders are counted.
 *
 * @return true|WP_Error
 */
function wc_harness_check_cart_item_stock(array $cart, int $current_session_order_id = 0)
{
    foreach ($cart as $product_id => $qty) {
        $product = wc_get_product((int) $product_id);
        if (!$product) {
            continue;
        }
        if (!$product->is_in_stock()) {
            /* translators: %s: product name */
            return new WP_Error('out-of-stock', sprintf(__('Sorry, "%s" is not in stock. Please edit your cart and try again. We apologize for any inconvenience caused.', 'woocommerce'), $product->get_name()));
        }
        if (!$product->managing_stock() || $product->backorders_allowed()) {
            continue;
        }
        $held_stock = wc_get_held_stock_quantity($product, $current_session_order_id);
        if (apply_filters('woocommerce_cart_item_required_stock_is_not_enough', $product->get_stock_quantity() < ($held_stock + (int) $qty), $product, ['product_id' => $product_id, 'quantity' => $qty])) {
            /* translators: 1: product name 2: quantity in stock */
            return new WP_Error('out-of-stock', sprintf(__('Sorry, we do not have enough "%1$s" in stock to fulfill your order (%2$s available). We apologize for any inconvenience caused.', 'woocommerce'), $product->get_name(), $product->get_stock_quantity() - $held_stock));
        }
    }
    return true;
}

/** WC_Install: the inventory options' defaults (Settings > Products > Inventory) and the reserved stock table. */
function wc_harness_install_stock()
{
    global $wpdb;
    add_option('woocommerce_manage_stock', 'yes');
    add_option('woocommerce_hold_stock_minutes', '60', '', false);
    $wpdb->query('CREATE TABLE IF NOT EXISTS ' . $wpdb->prefix . 'wc_reserved_stock (`order_id` bigint(20) NOT NULL, `product_id` bigint(20) NOT NULL, `stock_quantity` double NOT NULL DEFAULT 0, `timestamp` datetime NOT NULL, `expires` datetime NOT NULL, PRIMARY KEY (`order_id`, `product_id`))');
}
register_activation_hook(WC_PLUGIN_FILE, 'wc_harness_install_stock');
