<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Admin;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Helper\Assets;

/** Loads the settings-form script (live wallet check, assets per network) on the gateway's settings page. */
final class SettingsScript
{
    public const HANDLE = 'cryptocheckout-admin-settings';

    private function __construct()
    {
    }

    /** @param string $hookSuffix */
    public static function enqueue($hookSuffix): void
    {
        // phpcs:ignore WordPress.Security.NonceVerification.Recommended -- choosing a screen, not acting on input
        $section = isset($_GET['section']) ? sanitize_key(wp_unslash((string) $_GET['section'])) : '';
        if ($hookSuffix !== 'woocommerce_page_wc-settings' || $section !== 'cryptocheckout' || !current_user_can('manage_woocommerce')) {
            return;
        }
        if (!Assets::register(self::HANDLE, 'admin-settings')) {
            return;
        }
        wp_add_inline_script(
            self::HANDLE,
            'window.cryptocheckoutSettings = ' . wp_json_encode([
                'fieldPrefix' => 'woocommerce_cryptocheckout_',
                'assetsByNetwork' => SettingsValidator::assetsByNetwork(),
                'recommendedAsset' => SettingsValidator::DEFAULT_ASSET,
            ]) . ';',
            'before'
        );
        wp_enqueue_script(self::HANDLE);
    }
}
