<?php
/**
 * Harness (WooCommerce 10.0): Automattic\WooCommerce\Utilities\OrderUtil, the part that says which
 * order storage is authoritative. The harness stores orders HPOS-style only, so HPOS is in use.
 */

namespace Automattic\WooCommerce\Utilities;

defined('ABSPATH') || exit;

final class OrderUtil
{
    public static function custom_orders_table_usage_is_enabled(): bool
    {
        return true;
    }
}
