<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Helper;

defined('ABSPATH') || exit;

/** Registers the built front-end scripts with the dependencies their build recorded (build/*.asset.php). */
final class Assets
{
    private function __construct()
    {
    }

    public static function register(string $handle, string $name): bool
    {
        if (wp_script_is($handle, 'registered')) {
            return true;
        }
        $assetFile = CRYPTOCHECKOUT_WC_DIR . 'build/' . $name . '.asset.php';
        if (!is_readable($assetFile)) {
            return false;
        }
        $asset = require $assetFile;
        $registered = wp_register_script(
            $handle,
            plugins_url('build/' . $name . '.js', CRYPTOCHECKOUT_WC_FILE),
            is_array($asset) && isset($asset['dependencies']) ? (array) $asset['dependencies'] : [],
            is_array($asset) && isset($asset['version']) ? (string) $asset['version'] : CRYPTOCHECKOUT_WC_VERSION,
            true
        );
        if ($registered && function_exists('wp_set_script_translations')) {
            wp_set_script_translations($handle, 'cryptocheckout-for-woocommerce', CRYPTOCHECKOUT_WC_DIR . 'languages');
        }
        return $registered;
    }
}
