<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

declare(strict_types=1);

namespace CryptoCheckout\PrestaShop;

use CryptoCheckout\PrestaShop\Vendor\Client\Wallet\AddressValidator;
use CryptoCheckout\PrestaShop\Vendor\Client\Wallet\Networks;

/**
 * The module's settings in PrestaShop's Configuration table: reading them, and checking what the
 * merchant submitted in the back office before anything is saved.
 */
final class Settings
{
    public const SERVICE_URL = 'CRYPTOCHECKOUT_SERVICE_URL';
    public const WALLET_ADDRESS = 'CRYPTOCHECKOUT_WALLET_ADDRESS';
    public const ASSET = 'CRYPTOCHECKOUT_ASSET';
    public const NETWORK = 'CRYPTOCHECKOUT_NETWORK';
    public const DISPLAY_MODE = 'CRYPTOCHECKOUT_DISPLAY_MODE';
    public const DEBUG = 'CRYPTOCHECKOUT_DEBUG';
    public const POLL_TOKEN = 'CRYPTOCHECKOUT_POLL_TOKEN';
    public const LAST_WEBHOOK = 'CRYPTOCHECKOUT_LAST_WEBHOOK';
    public const LAST_POLL = 'CRYPTOCHECKOUT_LAST_POLL';

    public const MODE_REDIRECT = 'redirect';
    public const MODE_EMBEDDED = 'embedded';

    /** Keys the merchant edits in the back office form. */
    public const FORM_KEYS = [self::SERVICE_URL, self::WALLET_ADDRESS, self::ASSET, self::NETWORK, self::DISPLAY_MODE, self::DEBUG];

    /** Every key the module writes, order state ids included; uninstall removes them all. */
    public const ALL_KEYS = [
        self::SERVICE_URL, self::WALLET_ADDRESS, self::ASSET, self::NETWORK, self::DISPLAY_MODE, self::DEBUG,
        self::POLL_TOKEN, self::LAST_WEBHOOK, self::LAST_POLL,
        OrderStates::AWAITING, OrderStates::UNDERPAID, OrderStates::REVIEW,
    ];

    private function __construct()
    {
    }

    /** Values a fresh install starts with. */
    public static function defaults(): array
    {
        return [
            self::SERVICE_URL => '',
            self::WALLET_ADDRESS => '',
            self::ASSET => Networks::DEFAULT_SETTLEMENT['crypto_currency'],
            self::NETWORK => Networks::DEFAULT_SETTLEMENT['crypto_currency_network'],
            self::DISPLAY_MODE => self::MODE_REDIRECT,
            self::DEBUG => '0',
        ];
    }

    public static function get(string $key): string
    {
        $value = \Configuration::get($key);
        if ($value === false || $value === null) {
            return (string) (self::defaults()[$key] ?? '');
        }

        return (string) $value;
    }

    /** True once the service URL and a valid wallet are saved: only then is the payment option offered. */
    public static function isComplete(): bool
    {
        $network = self::get(self::NETWORK);

        return self::get(self::SERVICE_URL) !== ''
            && Networks::isAssetOnNetwork(self::get(self::ASSET), $network)
            && AddressValidator::validate($network, self::get(self::WALLET_ADDRESS))['valid'] === true;
    }

    public static function isDebug(): bool
    {
        return self::get(self::DEBUG) === '1';
    }

    /** The destination wallet of new checkouts, as sent in the customer object. */
    public static function wallet(): array
    {
        return [
            'wallet_address' => self::get(self::WALLET_ADDRESS),
            'crypto_currency' => self::get(self::ASSET),
            'crypto_currency_network' => self::get(self::NETWORK),
        ];
    }

    /**
     * Checks submitted settings. Returns the cleaned values and, per field key, a message that
     * names the field and says how to fix it; the values may be saved only when errors is empty.
     *
     * @param array<string, mixed> $input raw submitted values by configuration key
     * @return array{values: array<string, string>, errors: array<string, string>}
     */
    public static function validate(array $input, callable $translate): array
    {
        $errors = [];
        $text = static function ($value): string {
            return is_scalar($value) ? trim((string) $value) : '';
        };

        $url = rtrim($text($input[self::SERVICE_URL] ?? ''), '/');
        $parts = parse_url($url);
        if ($url === '' || $parts === false || !isset($parts['scheme'], $parts['host'])
            || !in_array(strtolower((string) $parts['scheme']), ['http', 'https'], true)
            || isset($parts['query']) || isset($parts['fragment']) || isset($parts['user']) || strlen($url) > 2048) {
            $errors[self::SERVICE_URL] = $translate(
                'Service URL: enter the address of your Crypto Checkout service, starting with https:// (for example https://pay.example.com), without query string.'
            );
        }

        $network = $text($input[self::NETWORK] ?? '');
        if (Networks::get($network) === null) {
            $errors[self::NETWORK] = $translate('Network: choose one of %networks%.', ['%networks%' => implode(', ', Networks::ids())]);
        }

        $asset = $text($input[self::ASSET] ?? '');
        if (!isset($errors[self::NETWORK]) && !Networks::isAssetOnNetwork($asset, $network)) {
            $symbols = array_column(Networks::get($network)['assets'], 'symbol');
            $errors[self::ASSET] = $translate(
                'Asset: %asset% is not settled on %network%; choose one of %assets%.',
                ['%asset%' => $asset === '' ? '""' : $asset, '%network%' => $network, '%assets%' => implode(', ', $symbols)]
            );
        }

        // Leading and trailing blanks from copy-paste are dropped; anything inside is the validator's call.
        $address = $text($input[self::WALLET_ADDRESS] ?? '');
        if (!isset($errors[self::NETWORK])) {
            $check = AddressValidator::validate($network, $address);
            if ($check['valid'] === true) {
                $address = (string) $check['address'];
            } else {
                $errors[self::WALLET_ADDRESS] = $translate('Wallet address: %problem%', ['%problem%' => (string) $check['message']]);
            }
        }

        $mode = $text($input[self::DISPLAY_MODE] ?? self::MODE_REDIRECT);
        if (!in_array($mode, [self::MODE_REDIRECT, self::MODE_EMBEDDED], true)) {
            $errors[self::DISPLAY_MODE] = $translate('Display mode: choose "redirect" or "embedded".');
        }

        return [
            'values' => [
                self::SERVICE_URL => $url,
                self::WALLET_ADDRESS => $address,
                self::ASSET => $asset,
                self::NETWORK => $network,
                self::DISPLAY_MODE => $mode,
                self::DEBUG => $text($input[self::DEBUG] ?? '0') === '1' ? '1' : '0',
            ],
            'errors' => $errors,
        ];
    }
}
