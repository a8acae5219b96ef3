<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Admin;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Vendor\Client\Wallet\AddressValidator;
use CryptoCheckout\WooCommerce\Vendor\Client\Wallet\Networks;

/**
 * Checks the gateway settings when they are saved. Each check returns the value to store or throws
 * an \Exception whose message names the field and says how to fix it; WooCommerce shows the message
 * and keeps the previous value of that field.
 */
final class SettingsValidator
{
    public const DEFAULT_ASSET = 'USDC';
    public const DEFAULT_NETWORK = 'POLYGON';

    private function __construct()
    {
    }

    /** @throws \Exception */
    public static function serviceUrl(string $value): string
    {
        $value = trim($value);
        if ($value === '') {
            throw new \Exception(__('Service URL: enter the address of your Crypto Checkout service, for example https://pay.example.com.', 'cryptocheckout-for-woocommerce'));
        }
        $parts = wp_parse_url($value);
        $scheme = is_array($parts) ? strtolower((string) ($parts['scheme'] ?? '')) : '';
        if (!is_array($parts) || !in_array($scheme, ['http', 'https'], true) || empty($parts['host']) || isset($parts['query']) || isset($parts['fragment'])) {
            throw new \Exception(__('Service URL: enter a full http:// or https:// address without a query, for example https://pay.example.com.', 'cryptocheckout-for-woocommerce'));
        }
        $url = esc_url_raw(rtrim($value, '/'), ['http', 'https']);
        // The API lives under /api; accept either form and store the service origin.
        if (substr($url, -4) === '/api') {
            $url = substr($url, 0, -4);
        }
        return $url;
    }

    /** @throws \Exception */
    public static function network(string $value): string
    {
        $value = strtoupper(trim($value));
        if (Networks::get($value) === null) {
            throw new \Exception(sprintf(
                /* translators: %s: list of network ids */
                __('Network: choose one of %s.', 'cryptocheckout-for-woocommerce'),
                implode(', ', Networks::ids())
            ));
        }
        return $value;
    }

    /** @throws \Exception */
    public static function asset(string $value, string $network): string
    {
        $value = strtoupper(trim($value));
        if (!Networks::isAssetOnNetwork($value, $network)) {
            $info = Networks::get($network);
            $symbols = [];
            foreach ((array) ($info['assets'] ?? []) as $asset) {
                $symbols[] = (string) $asset['symbol'];
            }
            throw new \Exception(sprintf(
                /* translators: 1: asset symbol, 2: network id, 3: list of asset symbols */
                __('Settlement asset: %1$s is not settled on %2$s. Choose one of %3$s, or another network.', 'cryptocheckout-for-woocommerce'),
                $value === '' ? '""' : $value,
                $network,
                implode(', ', $symbols)
            ));
        }
        return $value;
    }

    /**
     * @return string the canonical address (EIP-55 on EVM networks)
     * @throws \Exception
     */
    public static function walletAddress(string $value, string $network): string
    {
        $result = AddressValidator::validate($network, $value);
        if (!$result['valid']) {
            throw new \Exception(sprintf(
                /* translators: 1: network id, 2: why the address is refused */
                __('Wallet address (%1$s): %2$s', 'cryptocheckout-for-woocommerce'),
                $network,
                (string) $result['message']
            ));
        }
        return (string) $result['address'];
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
            $symbols = [];
            foreach ($info['assets'] as $asset) {
                $symbols[] = (string) $asset['symbol'];
            }
            $map[(string) $info['id']] = $symbols;
        }
        return $map;
    }
}
