<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Helper;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Admin\Settings;
use CryptoCheckout\WooCommerce\Gateway\Gateway;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\SettingsRules;

/**
 * The built scripts (build/*.js, their dependencies in build/*.asset.php): the block checkout's, the
 * order-received page's, and the settings form's (live wallet check, assets per network).
 */
final class Assets
{
    public const SETTINGS_HANDLE = 'cryptocheckout-admin-settings';

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
        $asset = (array) require $assetFile;
        $registered = wp_register_script($handle, plugins_url('build/' . $name . '.js', CRYPTOCHECKOUT_WC_FILE), (array) ($asset['dependencies'] ?? []), (string) ($asset['version'] ?? CRYPTOCHECKOUT_WC_VERSION), true);
        if ($registered && function_exists('wp_set_script_translations')) {
            wp_set_script_translations($handle, 'cryptocheckout-for-woocommerce', CRYPTOCHECKOUT_WC_DIR . 'languages');
        }
        return $registered;
    }

    /** admin_enqueue_scripts. @param string $hookSuffix */
    public static function enqueueSettingsScript($hookSuffix): void
    {
        // phpcs:ignore WordPress.Security.NonceVerification.Recommended -- choosing a screen, not acting on input
        $section = isset($_GET['section']) ? sanitize_key(wp_unslash((string) $_GET['section'])) : '';
        if ($hookSuffix !== 'woocommerce_page_wc-settings' || $section !== Gateway::ID || !current_user_can('manage_woocommerce') || !self::register(self::SETTINGS_HANDLE, 'admin-settings')) {
            return;
        }
        $settings = [
            'fieldPrefix' => 'woocommerce_cryptocheckout_',
            'assetsByNetwork' => Settings::assetsByNetwork(),
            'recommendedAsset' => SettingsRules::DEFAULTS[SettingsRules::ASSET],
        ];
        wp_add_inline_script(self::SETTINGS_HANDLE, 'window.cryptocheckoutSettings = ' . wp_json_encode($settings) . ';', 'before');
        wp_enqueue_script(self::SETTINGS_HANDLE);
    }
}
