<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Admin;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Helper\Logger;

/**
 * The last line for every way the settings are written (update_option from code, WP-CLI's
 * `wp option update`, an import): a write that would store a service URL, network, asset or
 * wallet the kernel's rules refuse is dropped whole, the stored settings stay, and the log says why.
 * The settings form and the REST API refuse such a write before it gets here, with a message.
 */
final class SettingsGuard
{
    public const OPTION = 'woocommerce_cryptocheckout_settings';

    private function __construct()
    {
    }

    /**
     * pre_update_option_woocommerce_cryptocheckout_settings
     *
     * @param mixed $value
     * @param mixed $oldValue
     * @return mixed the value to store: $value, or $oldValue when the write is refused
     */
    public static function keepValidSettings($value, $oldValue)
    {
        $old = is_array($oldValue) ? $oldValue : [];
        if (!is_array($value)) {
            $refused = ['settings' => 'The settings must be a list of fields (an array).'];
        } else {
            $refused = SettingsValidator::refusedChanges($value, $old);
        }
        if ($refused === []) {
            return $value;
        }
        Logger::fromSettings()->log('warning', sprintf(
            'Settings write refused, the stored settings are kept: %s',
            implode(' ', $refused)
        ), ['fields' => implode(', ', array_keys($refused))]);
        return $oldValue;
    }
}
