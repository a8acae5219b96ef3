<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Admin;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Gateway\Gateway;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\SettingsRules;

/**
 * WooCommerce's REST API writes the gateway's settings (`PUT /wc/v3/payment_gateways/cryptocheckout`,
 * and wc/v2) checking each value by its field type only, then update_option(). Here the write is
 * checked by the kernel's rules first, as the settings form checks it: a refused write answers 400
 * naming each field and its fix, and nothing is stored; an accepted one is stored in canonical form.
 */
final class RestSettings
{
    public const ERROR_CODE = 'cryptocheckout_invalid_settings';

    private const ROUTE = '#^/wc/v[23]/payment_gateways/' . Gateway::ID . '/?$#';

    private function __construct()
    {
    }

    /**
     * rest_request_before_callbacks. WordPress runs it before the route's permission check, so a
     * request that the check would refuse is left to it (it learns nothing about the settings).
     *
     * @param mixed $response
     * @param array<string, mixed> $handler
     * @param mixed $request
     * @return mixed
     */
    public static function refuseInvalid($response, $handler, $request)
    {
        if (is_wp_error($response) || !$request instanceof \WP_REST_Request
            || !in_array($request->get_method(), ['POST', 'PUT', 'PATCH'], true)
            || preg_match(self::ROUTE, (string) $request->get_route()) !== 1) {
            return $response;
        }
        $posted = $request['settings'];
        if (!is_array($posted)) {
            return $response;
        }
        if (!empty($handler['permission_callback']) && is_callable($handler['permission_callback'])
            && call_user_func($handler['permission_callback'], $request) !== true) {
            return $response;
        }
        $stored = get_option(SettingsGuard::OPTION, []);
        $stored = is_array($stored) ? $stored : [];
        $new = $stored;
        foreach (SettingsRules::FIELDS as $field) {
            if (isset($posted[$field])) {
                $new[$field] = self::asWooCommerceStoresIt($field, $posted[$field]);
            }
        }
        $refused = SettingsValidator::refusedChanges($new, $stored);
        if ($refused === []) {
            return $response;
        }
        return new \WP_Error(self::ERROR_CODE, implode(' ', $refused), ['status' => 400, 'params' => $refused]);
    }

    /**
     * woocommerce_gateway_cryptocheckout_settings_values: the REST API's write, with the service
     * URL and the wallet in the form the settings form stores (no trailing /api, EIP-55 …).
     *
     * @param mixed $settings
     * @return mixed
     */
    public static function canonicalValues($settings)
    {
        if (!is_array($settings)) {
            return $settings;
        }
        $checked = SettingsValidator::validateTogether($settings);
        foreach (SettingsRules::FIELDS as $field) {
            if (isset($settings[$field]) && !isset($checked['errors'][$field])) {
                $settings[$field] = $checked['values'][$field];
            }
        }
        return $settings;
    }

    /**
     * The value WooCommerce's controller would store: text through
     * validate_setting_text_field (trim, stripslashes, wp_kses_post), a choice as sent.
     *
     * @param mixed $value
     */
    private static function asWooCommerceStoresIt(string $field, $value): string
    {
        if (!is_scalar($value)) {
            return '';
        }
        if (in_array($field, [SettingsRules::NETWORK, SettingsRules::ASSET], true)) {
            return (string) $value;
        }
        return wp_kses_post(trim(stripslashes((string) $value)));
    }
}
