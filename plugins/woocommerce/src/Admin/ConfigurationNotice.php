<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Admin;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Gateway\Gateway;

/**
 * Tells shop managers, on every admin page, when the method is switched on but its saved settings
 * cannot take payments (written by an older version, by hand or by another tool): the method is
 * then off the checkout, and this says what is wrong and where to fix it.
 */
final class ConfigurationNotice
{
    private function __construct()
    {
    }

    /** admin_notices */
    public static function render(): void
    {
        if (!current_user_can('manage_woocommerce')) {
            return;
        }
        $settings = get_option(SettingsGuard::OPTION, []);
        if (!is_array($settings) || ($settings['enabled'] ?? 'no') !== 'yes') {
            return;
        }
        $errors = SettingsValidator::validateTogether($settings)['errors'];
        if ($errors === []) {
            return;
        }
        $url = admin_url('admin.php?page=wc-settings&tab=checkout&section=' . Gateway::ID);
        echo '<div class="notice notice-error cryptocheckout-configuration-notice"><p><strong>'
            . esc_html__('Crypto Checkout is not offered at checkout: its saved settings cannot take payments.', 'cryptocheckout-for-woocommerce')
            . '</strong></p><ul>';
        foreach ($errors as $message) {
            echo '<li>' . esc_html($message) . '</li>';
        }
        echo '</ul><p><a href="' . esc_url($url) . '">'
            . esc_html__('Fix the Crypto Checkout settings', 'cryptocheckout-for-woocommerce')
            . '</a></p></div>';
    }
}
