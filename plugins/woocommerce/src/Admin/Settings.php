<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Admin;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Gateway\Gateway;
use CryptoCheckout\WooCommerce\Helper\Kernel;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\SettingsRules;
use CryptoCheckout\WooCommerce\Vendor\Client\Wallet\Networks;

/**
 * The gateway's settings under the kernel's SettingsRules, whichever way they are written: the form
 * (Gateway::process_admin_options), WooCommerce's REST API (which checks field types only) and
 * update_option() from code or WP-CLI. Network, asset and wallet count as one. Saved settings that
 * cannot take payments take the method off the checkout, with a notice for shop managers.
 */
final class Settings
{
    public const OPTION = 'woocommerce_cryptocheckout_settings';
    public const REST_ERROR = 'cryptocheckout_invalid_settings';

    /** Network, asset and wallet: saved only together, and only when all three fit. */
    public const WALLET_FIELDS = [SettingsRules::NETWORK, SettingsRules::ASSET, SettingsRules::WALLET];

    private const REST_ROUTE = '#^/wc/v[23]/payment_gateways/' . Gateway::ID . '/?$#';

    private function __construct()
    {
    }

    /**
     * The four settings checked together, messages in the site's language (the merchant key, a
     * secret, is checked alone: MerchantKeyField).
     *
     * @param array<string, mixed> $settings
     * @return array{values: array<string, string>, errors: array<string, string>}
     */
    public static function validate(array $settings): array
    {
        return SettingsRules::validate(array_intersect_key($settings, array_flip(SettingsRules::FIELDS)), [Kernel::class, 'translate']);
    }

    /**
     * What is wrong with a write, by field: the errors of the settings it changes; those it leaves as
     * they were are not held against it (an older invalid configuration can still be switched off).
     *
     * @param array<string, mixed> $new
     * @param array<string, mixed> $old the stored settings ([] when there are none yet)
     * @return array<string, string> field => message; empty when the write may be stored
     */
    public static function refusedChanges(array $new, array $old): array
    {
        $errors = self::validate($new)['errors'];
        $old += SettingsRules::DEFAULTS;
        $changed = static function (array $fields) use ($new, $old): bool {
            foreach ($fields as $field) {
                if (SettingsRules::text($new[$field] ?? '') !== SettingsRules::text($old[$field])) {
                    return true;
                }
            }
            return false;
        };
        $refused = $changed([SettingsRules::SERVICE_URL]) ? array_intersect_key($errors, [SettingsRules::SERVICE_URL => true]) : [];
        $key = trim((string) ($new[MerchantKeyField::KEY] ?? ''));
        if ($key !== '' && !MerchantKeyField::isMasked($key) && $key !== (string) ($old[MerchantKeyField::KEY] ?? '')) {
            $problem = MerchantKeyField::problem($key);
            $refused += $problem === null ? [] : [MerchantKeyField::KEY => $problem];
        }
        return $changed(self::WALLET_FIELDS) ? $refused + array_intersect_key($errors, array_flip(self::WALLET_FIELDS)) : $refused;
    }

    /**
     * pre_update_option_woocommerce_cryptocheckout_settings, under every write: a refused one is
     * dropped whole (logged), an accepted one stored in canonical form (no trailing /api, EIP-55 …).
     */
    public static function keepValidSettings($value, $oldValue)
    {
        $refused = is_array($value)
            ? self::refusedChanges($value, is_array($oldValue) ? $oldValue : [])
            : ['settings' => 'The settings must be a list of fields (an array).'];
        if ($refused !== []) {
            Kernel::log('warning', 'Settings write refused, the stored settings are kept: ' . implode(' ', $refused), ['fields' => implode(', ', array_keys($refused))]);
            return $oldValue;
        }
        $checked = self::validate($value);
        foreach (SettingsRules::FIELDS as $field) {
            if (isset($value[$field]) && !isset($checked['errors'][$field])) {
                $value[$field] = $checked['values'][$field];
            }
        }
        if (array_key_exists(MerchantKeyField::KEY, $value)) {
            // The masked key a REST client read and wrote back is the saved key.
            $key = trim(is_scalar($value[MerchantKeyField::KEY]) ? (string) $value[MerchantKeyField::KEY] : '');
            $value[MerchantKeyField::KEY] = MerchantKeyField::isMasked($key) ? (string) ((is_array($oldValue) ? $oldValue : [])[MerchantKeyField::KEY] ?? '') : $key;
        }
        return $value;
    }

    /**
     * rest_request_before_callbacks: a REST write the rules refuse answers 400 naming each field and
     * its fix. WordPress runs this before the route's permission check, which is asked first here.
     *
     * @param array<string, mixed> $handler
     */
    public static function refuseInvalidRestWrite($response, $handler, $request)
    {
        if (is_wp_error($response) || !$request instanceof \WP_REST_Request || !is_array($request['settings'])
            || !in_array($request->get_method(), ['POST', 'PUT', 'PATCH'], true)
            || preg_match(self::REST_ROUTE, (string) $request->get_route()) !== 1
            || (!empty($handler['permission_callback']) && is_callable($handler['permission_callback']) && call_user_func($handler['permission_callback'], $request) !== true)) {
            return $response;
        }
        $new = $stored = (array) get_option(self::OPTION, []);
        foreach (array_merge(SettingsRules::FIELDS, [MerchantKeyField::KEY]) as $field) {
            $value = $request['settings'][$field] ?? null;
            if (is_scalar($value)) {
                // As WooCommerce's controller stores them: choices as sent, text through validate_setting_text_field.
                $new[$field] = in_array($field, [SettingsRules::NETWORK, SettingsRules::ASSET], true) ? (string) $value : wp_kses_post(trim(stripslashes((string) $value)));
            }
        }
        $refused = self::refusedChanges($new, $stored);
        return $refused === [] ? $response : new \WP_Error(self::REST_ERROR, implode(' ', $refused), ['status' => 400, 'params' => $refused]);
    }

    /** admin_notices: the method is switched on but its saved settings cannot take payments. */
    public static function configurationNotice(): void
    {
        $settings = (array) get_option(self::OPTION, []);
        $errors = self::validate($settings)['errors'];
        if (!current_user_can('manage_woocommerce') || ($settings['enabled'] ?? 'no') !== 'yes' || $errors === []) {
            return;
        }
        echo '<div class="notice notice-error cryptocheckout-configuration-notice"><p><strong>'
            . esc_html__('Crypto Checkout is not offered at checkout: its saved settings cannot take payments.', 'cryptocheckout-for-woocommerce')
            . '</strong></p><ul>';
        foreach ($errors as $message) {
            echo '<li>' . esc_html($message) . '</li>';
        }
        echo '</ul><p><a href="' . esc_url(admin_url('admin.php?page=wc-settings&tab=checkout&section=' . Gateway::ID)) . '">'
            . esc_html__('Fix the Crypto Checkout settings', 'cryptocheckout-for-woocommerce') . '</a></p></div>';
    }

    /** @return array<string, list<string>> asset choices per network, for the settings form and its script */
    public static function assetsByNetwork(): array
    {
        $map = [];
        foreach (Networks::all() as $info) {
            $map[(string) $info['id']] = array_map('strval', array_column($info['assets'], 'symbol'));
        }
        return $map;
    }
}
