<?php
/**
 * Plugin Name:          Crypto Checkout for WooCommerce
 * Plugin URI:           https://github.com/cryptocheckout/cryptocheckout
 * Description:          Accept crypto payments settled to your own wallet (USDC on Polygon by default) through a hosted Crypto Checkout page, in the classic and the block checkout.
 * Version:              0.2.0
 * Requires at least:    6.5
 * Requires PHP:         7.4
 * Requires Plugins:     woocommerce
 * Author:               Crypto Checkout
 * License:              GPL-2.0-or-later
 * License URI:          https://www.gnu.org/licenses/gpl-2.0.html
 * Text Domain:          cryptocheckout-for-woocommerce
 * Domain Path:          /languages
 * WC requires at least: 8.2
 * WC tested up to:      10.0
 *
 * @package CryptoCheckout\WooCommerce
 */

declare(strict_types=1);

defined('ABSPATH') || exit;

define('CRYPTOCHECKOUT_WC_VERSION', '0.2.0');
define('CRYPTOCHECKOUT_WC_FILE', __FILE__);
define('CRYPTOCHECKOUT_WC_DIR', plugin_dir_path(__FILE__));

require_once CRYPTOCHECKOUT_WC_DIR . 'lib/cryptocheckout-client/autoload.php';

// The plugin's own classes (PSR-4 under src/); the client's load through its autoload.php.
spl_autoload_register(static function (string $class): void {
    $prefix = 'CryptoCheckout\\WooCommerce\\';
    $file = CRYPTOCHECKOUT_WC_DIR . 'src/' . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
    if (strpos($class, $prefix) === 0 && strpos($class, $prefix . 'Vendor\\') !== 0 && is_readable($file)) {
        require_once $file;
    }
});

register_activation_hook(__FILE__, [\CryptoCheckout\WooCommerce\Plugin::class, 'activate']);
register_deactivation_hook(__FILE__, [\CryptoCheckout\WooCommerce\Plugin::class, 'deactivate']);

\CryptoCheckout\WooCommerce\Plugin::register();
