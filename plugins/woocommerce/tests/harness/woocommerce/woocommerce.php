<?php
/**
 * Plugin Name: WooCommerce
 * Description: Test harness reproducing the WooCommerce 10.0 API surface that Crypto Checkout for WooCommerce uses.
 * Version: 10.0.0
 * Requires at least: 6.5
 * Requires PHP: 7.4
 * Text Domain: woocommerce
 *
 * HARNESS, NOT WOOCOMMERCE. It follows WooCommerce 10.0 (10.0.2): the classes, functions, hooks and
 * storage behaviour listed in plugins/woocommerce/README.md ("Harness"), with WooCommerce's public
 * signatures and the hook order of the real code paths (settings save, order status transitions
 * with their notes, payment_complete, stock reduce/restore, blocks payment registry, feature
 * compatibility, Action Scheduler, wc-api routing, refunds through the gateway and the customer-note
 * e-mail). Orders live in HPOS-style tables
 * ({prefix}wc_orders, {prefix}wc_orders_meta, {prefix}wc_order_operational_data) so nothing reaches
 * them through post meta. It is installed under the slug "woocommerce" so WordPress' own
 * "Requires Plugins" check runs against it, and it loads after plugins that sort before it, as the
 * real plugin does.
 */

defined('ABSPATH') || exit;

define('WC_VERSION', '10.0.0');
define('WC_PLUGIN_FILE', __FILE__);

require_once __DIR__ . '/includes/functions.php';
require_once __DIR__ . '/includes/action-scheduler.php';
require_once __DIR__ . '/includes/class-woocommerce.php';
require_once __DIR__ . '/includes/class-wc-settings-api.php';
require_once __DIR__ . '/includes/class-wc-payment-gateway.php';
require_once __DIR__ . '/includes/class-wc-payment-gateways.php';
require_once __DIR__ . '/includes/class-wc-admin-settings.php';
require_once __DIR__ . '/includes/class-wc-logger.php';
require_once __DIR__ . '/includes/class-wc-datetime.php';
require_once __DIR__ . '/includes/class-wc-meta-data.php';
require_once __DIR__ . '/includes/class-wc-order.php';
require_once __DIR__ . '/includes/class-wc-order-data-store.php';
require_once __DIR__ . '/includes/class-wc-order-refund.php';
require_once __DIR__ . '/includes/class-wc-product.php';
require_once __DIR__ . '/includes/class-reserve-stock-exception.php';
require_once __DIR__ . '/includes/class-reserve-stock.php';
require_once __DIR__ . '/includes/wc-stock-functions.php';
require_once __DIR__ . '/includes/wc-order-functions.php';
require_once __DIR__ . '/includes/wc-refund-functions.php';
require_once __DIR__ . '/includes/features-util.php';
require_once __DIR__ . '/includes/order-util.php';
require_once __DIR__ . '/includes/blocks.php';
require_once __DIR__ . '/includes/rest-payment-gateways.php';
require_once __DIR__ . '/includes/harness-api.php';

$GLOBALS['woocommerce'] = WooCommerce::instance();

// WC_Install::create_roles(): the shop manager role and the WooCommerce capabilities of administrators,
// including the shop_order capabilities (WC_Install::get_core_capabilities).
register_activation_hook(__FILE__, static function () {
    $order_caps = [];
    foreach (['edit_shop_order', 'read_shop_order', 'delete_shop_order', 'edit_shop_orders', 'edit_others_shop_orders', 'publish_shop_orders', 'read_private_shop_orders', 'delete_shop_orders', 'delete_private_shop_orders', 'delete_published_shop_orders', 'delete_others_shop_orders', 'edit_private_shop_orders', 'edit_published_shop_orders'] as $cap) {
        $order_caps[$cap] = true;
    }
    add_role('shop_manager', 'Shop manager', ['read' => true, 'manage_woocommerce' => true, 'view_woocommerce_reports' => true] + $order_caps);
    $administrator = get_role('administrator');
    if ($administrator) {
        $administrator->add_cap('manage_woocommerce');
        $administrator->add_cap('view_woocommerce_reports');
        foreach (array_keys($order_caps) as $cap) {
            $administrator->add_cap($cap);
        }
    }
});
