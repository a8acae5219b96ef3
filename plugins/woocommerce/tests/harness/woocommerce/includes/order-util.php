<?php
/**
 * Harness (WooCommerce 10.0): Automattic\WooCommerce\Utilities\OrderUtil, the part that says which
 * order storage is authoritative, and the order edit URL. The harness stores orders HPOS-style only, so HPOS is in use.
 */

namespace Automattic\WooCommerce\Utilities;

defined('ABSPATH') || exit;

final class OrderUtil
{
    public static function custom_orders_table_usage_is_enabled(): bool
    {
        return true;
    }

    /** The HPOS order edit screen's URL. */
    public static function get_order_admin_edit_url(int $order_id): string
    {
        return admin_url('admin.php?page=wc-orders&action=edit&id=' . absint($order_id));
    }
}
