<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Admin;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Helper\Kernel;
use CryptoCheckout\WooCommerce\Vendor\Client\Exception\SettingsException;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\SettingsRules;
use CryptoCheckout\WooCommerce\Vendor\Client\Wallet\Networks;

/**
 * The gateway's settings checks as WooCommerce's settings form expects them: a value to store, or
 * an \Exception whose message WooCommerce shows (it then keeps the field's previous value). The
 * rules are the kernel's SettingsRules, one field at a time, with messages in the site's language.
 */
final class SettingsValidator
{
    public const DEFAULT_ASSET = 'USDC';
    public const DEFAULT_NETWORK = 'POLYGON';

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
