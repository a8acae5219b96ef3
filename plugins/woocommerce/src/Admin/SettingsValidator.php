<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Admin;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Helper\Kernel;
use CryptoCheckout\WooCommerce\Vendor\Client\Exception\SettingsException;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\SettingsRules;
use CryptoCheckout\WooCommerce\Vendor\Client\Wallet\Networks;

/**
 * The gateway's settings checks, all by the kernel's SettingsRules with messages in the site's
 * language: one field at a time as WooCommerce's settings form expects them (a value to store, or
 * an \Exception whose message WooCommerce shows; it then keeps the field's previous value), and
 * the four together for every other way settings are written (REST API, update_option) and for
 * deciding whether the saved settings can take payments.
 */
final class SettingsValidator
{
    public const DEFAULT_ASSET = 'USDC';
    public const DEFAULT_NETWORK = 'POLYGON';

    /** Network, asset and wallet: saved only together, and only when all three fit. */
    public const WALLET_FIELDS = [SettingsRules::NETWORK, SettingsRules::ASSET, SettingsRules::WALLET];

    /** @var array<string, array{values: array<string, string>, errors: array<string, string>}> */
    private static array $checked = [];

    private function __construct()
    {
    }

    /**
     * @param string $field one of SettingsRules::FIELDS
     * @param string $network the (checked) network, for the asset and the wallet
     * @return string the value to store
     * @throws \Exception
     */
    public static function check(string $field, string $value, string $network = ''): string
    {
        $translate = [Kernel::class, 'translate'];
        try {
            switch ($field) {
                case SettingsRules::SERVICE_URL:
                    return esc_url_raw(SettingsRules::serviceUrl($value, $translate), ['http', 'https']);
                case SettingsRules::NETWORK:
                    return SettingsRules::network($value, $translate);
                case SettingsRules::ASSET:
                    return SettingsRules::asset($value, $network, $translate);
                case SettingsRules::WALLET:
                    return SettingsRules::walletAddress($value, $network, $translate);
            }
        } catch (SettingsException $exception) {
            throw new \Exception($exception->getMessage());
        }
        throw new \InvalidArgumentException('Unknown setting ' . $field);
    }

    /**
     * The four settings checked together (SettingsRules::validate, translated), remembered for
     * the request: is_available asks on every checkout page load.
     *
     * @param array<string, mixed> $settings the gateway's settings (other keys are ignored)
     * @return array{values: array<string, string>, errors: array<string, string>}
     */
    public static function validateTogether(array $settings): array
    {
        $input = [];
        foreach (SettingsRules::FIELDS as $field) {
            $input[$field] = is_scalar($settings[$field] ?? null) ? (string) $settings[$field] : '';
        }
        $key = md5((string) wp_json_encode($input) . '|' . determine_locale());
        if (!isset(self::$checked[$key])) {
            $result = SettingsRules::validate($input, [Kernel::class, 'translate']);
            if (isset($result['values'][SettingsRules::SERVICE_URL]) && !isset($result['errors'][SettingsRules::SERVICE_URL])) {
                $result['values'][SettingsRules::SERVICE_URL] = esc_url_raw($result['values'][SettingsRules::SERVICE_URL], ['http', 'https']);
            }
            self::$checked[$key] = $result;
        }
        return self::$checked[$key];
    }

    /**
     * What is wrong with a write of the settings, by field: the errors of the settings it changes.
     * Network, asset and wallet count as one (a new network needs an asset and a wallet that fit
     * it); settings it leaves as they were are not held against it, so a site that is not set up
     * yet, or an older invalid configuration, can still change its title or switch the method off.
     *
     * @param array<string, mixed> $new
     * @param array<string, mixed> $old the stored settings ([] when there are none yet)
     * @return array<string, string> field => message; empty when the write may be stored
     */
    public static function refusedChanges(array $new, array $old): array
    {
        $old += self::defaults();
        $errors = self::validateTogether($new)['errors'];
        $refused = [];
        if (isset($errors[SettingsRules::SERVICE_URL]) && self::changed($new, $old, [SettingsRules::SERVICE_URL])) {
            $refused[SettingsRules::SERVICE_URL] = $errors[SettingsRules::SERVICE_URL];
        }
        if (self::changed($new, $old, self::WALLET_FIELDS)) {
            foreach (self::WALLET_FIELDS as $field) {
                if (isset($errors[$field])) {
                    $refused[$field] = $errors[$field];
                }
            }
        }
        return $refused;
    }

    /**
     * The stored value of the four settings before anything is saved (the form's defaults).
     *
     * @return array<string, string>
     */
    public static function defaults(): array
    {
        return [
            SettingsRules::SERVICE_URL => '',
            SettingsRules::NETWORK => self::DEFAULT_NETWORK,
            SettingsRules::ASSET => self::DEFAULT_ASSET,
            SettingsRules::WALLET => '',
        ];
    }

    /**
     * @param array<string, mixed> $new
     * @param array<string, mixed> $old
     * @param string[] $fields
     */
    public static function changed(array $new, array $old, array $fields): bool
    {
        foreach ($fields as $field) {
            $before = is_scalar($old[$field] ?? null) ? (string) $old[$field] : '';
            $after = is_scalar($new[$field] ?? null) ? (string) $new[$field] : '';
            if ($before !== $after) {
                return true;
            }
        }
        return false;
    }

    /** @throws \Exception */
    public static function checkoutDisplay(string $value): string
    {
        if (!in_array($value, ['redirect', 'modal'], true)) {
            throw new \Exception(__('Checkout display: choose "Redirect to the payment page" or "Payment window over the shop".', 'cryptocheckout-for-woocommerce'));
        }
        return $value;
    }

    /**
     * Asset choices per network, for the settings form and its script.
     *
     * @return array<string, string[]>
     */
    public static function assetsByNetwork(): array
    {
        $map = [];
        foreach (Networks::all() as $info) {
            $map[(string) $info['id']] = array_map('strval', array_column($info['assets'], 'symbol'));
        }
        return $map;
    }
}
