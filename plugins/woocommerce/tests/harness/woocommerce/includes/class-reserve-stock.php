<?php
/**
 * Harness (WooCommerce 10.0.2): src/Checkout/Helpers/ReserveStock.php. Holds are rows of
 * {prefix}wc_reserved_stock (order, product, quantity, expiry); a hold counts while its order is
 * pending or a checkout draft and it has not expired. WooCommerce inserts a hold with one
 * INSERT … SELECT … FOR UPDATE (MySQL only); the harness, on SQLite, checks the same condition —
 * stock minus the other orders' holds covers the quantity — and then writes the row. WooCommerce's
 * woocommerce_schema_version gate (the table exists from 4.3) is left out: the harness creates the
 * table when it is activated.
 */

namespace Automattic\WooCommerce\Checkout\Helpers;

defined('ABSPATH') || exit;

final class ReserveStock
{
    private static function table(): string
    {
        global $wpdb;
        return $wpdb->prefix . 'wc_reserved_stock';
    }

    /** @param \WC_Product $product */
    public function get_reserved_stock($product, $exclude_order_id = 0)
    {
        global $wpdb;
        return (int) $wpdb->get_var($this->get_query_for_reserved_stock($product->get_stock_managed_by_id(), $exclude_order_id));
    }

    /**
     * Holds the order's line items for $minutes (default woocommerce_hold_stock_minutes, filtered by
     * woocommerce_order_hold_stock_minutes), with the "Stock hold of N minutes applied to" note.
     *
     * @param \WC_Order $order
     * @throws ReserveStockException when an item is out of stock or not enough of it is left
     */
    public function reserve_stock_for_order($order, $minutes = 0)
    {
        $minutes = $minutes ? $minutes : (int) get_option('woocommerce_hold_stock_minutes', 60);
        $minutes = (int) apply_filters('woocommerce_order_hold_stock_minutes', $minutes, $order);
        if (!$minutes) {
            return;
        }
        $held_stock_notes = [];
        try {
            $rows = [];
            foreach ($order->get_harness_items() as $item) {
                $product = wc_get_product($item['product_id']);
                if (!$product || $item['qty'] <= 0) {
                    continue;
                }
                if (!$product->is_in_stock()) {
                    /* translators: %s: product name */
                    throw new ReserveStockException('woocommerce_product_out_of_stock', sprintf(__('&quot;%s&quot; is out of stock and cannot be purchased.', 'woocommerce'), $product->get_name()), 403);
                }
                if (!$product->managing_stock() || $product->backorders_allowed()) {
                    continue;
                }
                $managed_by_id = $product->get_stock_managed_by_id();
                $item_quantity = apply_filters('woocommerce_order_item_quantity', $item['qty'], $order, $item);
                $rows[$managed_by_id] = isset($rows[$managed_by_id]) ? $rows[$managed_by_id] + $item_quantity : $item_quantity;
                if (count($held_stock_notes) < 5) {
                    $held_stock_notes[] = sprintf(_x('- %1$s &times; %2$d', 'held stock note', 'woocommerce'), $product->get_formatted_name(), $rows[$managed_by_id]);
                }
            }
            foreach ($rows as $product_id => $quantity) {
                $this->reserve_stock_for_product($product_id, $quantity, $order, $minutes);
            }
        } catch (ReserveStockException $e) {
            $this->release_stock_for_order($order);
            throw $e;
        }
        if ($held_stock_notes !== []) {
            /* translators: %1$s is a time in minutes, %2$s is a list of products and quantities. */
            $order->add_order_note(sprintf(_x('Stock hold of %1$s minutes applied to: %2$s', 'held stock note', 'woocommerce'), $minutes, '<br>' . implode('<br>', $held_stock_notes)));
        }
    }

    /** @param \WC_Order $order */
    public function release_stock_for_order($order)
    {
        global $wpdb;
        $wpdb->delete(self::table(), ['order_id' => $order->get_id()]);
    }

    private function reserve_stock_for_product($product_id, $stock_quantity, $order, $minutes)
    {
        global $wpdb;
        $product = wc_get_product($product_id);
        $in_stock = $product ? (int) $product->get_stock_quantity() : 0;
        $reserved = (int) $wpdb->get_var($this->get_query_for_reserved_stock($product_id, $order->get_id()));
        if ($in_stock - $reserved < $stock_quantity) {
            /* translators: %s: product name */
            throw new ReserveStockException('woocommerce_product_not_enough_stock', sprintf(__('Not enough units of %s are available in stock to fulfil this order.', 'woocommerce'), $product ? $product->get_name() : '#' . $product_id), 403);
        }
        // ON DUPLICATE KEY UPDATE expires, stock_quantity.
        $wpdb->replace(self::table(), [
            'order_id' => $order->get_id(),
            'product_id' => $product_id,
            'stock_quantity' => $stock_quantity,
            'timestamp' => gmdate('Y-m-d H:i:s'),
            'expires' => gmdate('Y-m-d H:i:s', time() + $minutes * MINUTE_IN_SECONDS),
        ]);
    }

    /** The held quantity of a product: unexpired holds of pending or draft orders other than $exclude_order_id (joined to the authoritative order table). */
    private function get_query_for_reserved_stock($product_id, $exclude_order_id = 0)
    {
        global $wpdb;
        [$join, $status] = \Automattic\WooCommerce\Utilities\OrderUtil::custom_orders_table_usage_is_enabled()
            ? [$wpdb->prefix . 'wc_orders orders ON stock_table.order_id = orders.id', 'orders.status']
            : [$wpdb->posts . ' posts ON stock_table.order_id = posts.ID', 'posts.post_status'];
        $query = $wpdb->prepare(
            'SELECT COALESCE(SUM(stock_table.stock_quantity), 0) FROM ' . self::table() . ' stock_table
            LEFT JOIN ' . $join . "
            WHERE {$status} IN ('wc-checkout-draft', 'wc-pending')
            AND stock_table.expires > %s
            AND stock_table.product_id = %d
            AND stock_table.order_id != %d",
            gmdate('Y-m-d H:i:s'),
            $product_id,
            $exclude_order_id
        );
        return apply_filters('woocommerce_query_for_reserved_stock', $query, $product_id, $exclude_order_id);
    }
}
