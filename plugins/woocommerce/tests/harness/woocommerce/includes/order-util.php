<?php
/**
 * Harness (WooCommerce 10.0): Automattic\WooCommerce\Utilities\OrderUtil, the part that says which
 * order storage is authoritative (the option woocommerce_custom_orders_table_enabled), and the order
 * edit URL.
 */

namespace Automattic\WooCommerce\Utilities;

defined('ABSPATH') || exit;

final class OrderUtil
{
    public static function custom_orders_table_usage_is_enabled(): bool
    {
        return \WC_Order_Data_Store::hpos_enabled();
    }

    /** The order edit screen's URL: HPOS's page, or the order post's. */
    public static function get_order_admin_edit_url(int $order_id): string
    {
        return self::custom_orders_table_usage_is_enabled() ? admin_url('admin.php?page=wc-orders&action=edit&id=' . absint($order_id)) : admin_url('post.php?post=' . absint($order_id) . '&action=edit');
    }
}
