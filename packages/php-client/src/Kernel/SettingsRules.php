<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

use CryptoCheckout\Client\Exception\SettingsException;
use CryptoCheckout\Client\Wallet\AddressValidator;
use CryptoCheckout\Client\Wallet\Networks;

/**
 * The one rule set for the settings every plugin has: service URL, network, settlement asset and
 * wallet. Every way a platform writes settings (its form, its REST API, an import) goes through it.
 *
 * - Text: blanks at both ends (copy-paste) are dropped; anything inside is the validators' call,
 *   so an invisible character inside an address is reported by name, never silently removed.
 * - Service URL: http or https with a host, no user name, query or fragment, at most 2048
 *   characters. Stored without a trailing "/" and without a trailing "/api" (the API is always
 *   under <service URL>/api); a path before that is kept, for a service behind a path prefix.
 * - Network: a catalog id (case-insensitive); asset: offered on that network; wallet: valid for
 *   that network, stored in its canonical form (EIP-55 on EVM networks).
 *
 * Messages are English with %placeholders%, passed through the platform's translate callable
 * function (string $text, array $parameters): string, which must replace the placeholders.
 */
final class SettingsRules
{
    public const SERVICE_URL = 'service_url';
    public const NETWORK = 'wallet_network';
    public const ASSET = 'wallet_currency';
    public const WALLET = 'wallet_address';

    public const FIELDS = [self::SERVICE_URL, self::NETWORK, self::ASSET, self::WALLET];

    /** How the buyer reaches the payment page: the one set of names every plugin stores. */
    public const DISPLAY_MODE = 'display_mode';
    public const DISPLAY_REDIRECT = 'redirect';
    /** The payment page in a window over the shop (docs/embed-protocol.md). */
    public const DISPLAY_MODAL = 'modal';
    public const DISPLAY_MODES = [self::DISPLAY_REDIRECT, self::DISPLAY_MODAL];
    /** Names earlier plugin versions stored, read as today's. */
    private const DISPLAY_ALIASES = ['embedded' => self::DISPLAY_MODAL];

    /** What a new installation starts with, on every platform. */
    public const DEFAULTS = [
        self::SERVICE_URL => '',
        self::NETWORK => Networks::DEFAULT_SETTLEMENT['crypto_currency_network'],
        self::ASSET => Networks::DEFAULT_SETTLEMENT['crypto_currency'],
        self::WALLET => '',
        self::DISPLAY_MODE => self::DISPLAY_REDIRECT,
    ];

    public const MAX_URL_LENGTH = 2048;

    private function __construct()
    {
    }

    /**
     * Checks all four settings together, and the display mode when the input has one. Values may
     * be saved only when errors is empty; values holds the cleaned input either way, to show the
     * form again.
     *
     * @param array<string, mixed> $input by field key
     * @param callable(string, array<string, string>): string|null $translate
     * @return array{values: array<string, string>, errors: array<string, string>}
     */
    public static function validate(array $input, ?callable $translate = null): array
    {
        $values = [];
        foreach (self::FIELDS as $field) {
            $values[$field] = self::text($input[$field] ?? '');
        }
        $errors = [];
        $checks = [
            self::SERVICE_URL => static function () use ($values, $translate): string {
                return self::serviceUrl($values[self::SERVICE_URL], $translate);
            },
            self::NETWORK => static function () use ($values, $translate): string {
                return self::network($values[self::NETWORK], $translate);
            },
        ];
        foreach ($checks as $field => $check) {
            try {
                $values[$field] = $check();
            } catch (SettingsException $exception) {
                $errors[$field] = $exception->getMessage();
            }
        }
        if (!isset($errors[self::NETWORK])) {
            foreach ([self::ASSET => 'asset', self::WALLET => 'walletAddress'] as $field => $method) {
                try {
                    $values[$field] = self::$method($values[$field], $values[self::NETWORK], $translate);
                } catch (SettingsException $exception) {
                    $errors[$field] = $exception->getMessage();
                }
            }
        }
        if (array_key_exists(self::DISPLAY_MODE, $input)) {
            try {
                $values[self::DISPLAY_MODE] = self::displayMode($input[self::DISPLAY_MODE], $translate);
            } catch (SettingsException $exception) {
                $values[self::DISPLAY_MODE] = self::text($input[self::DISPLAY_MODE]);
                $errors[self::DISPLAY_MODE] = $exception->getMessage();
            }
        }
        return ['values' => $values, 'errors' => $errors];
    }

    /** True when saved settings can take payments (the payment method is offered only then). @param array<string, mixed> $values */
    public static function isUsable(array $values): bool
    {
        return self::validate($values)['errors'] === [];
    }

    /**
     * @param callable(string, array<string, string>): string|null $translate
     * @throws SettingsException
     */
    public static function serviceUrl(string $value, ?callable $translate = null): string
    {
        $url = self::text($value);
        $parts = parse_url($url);
        $scheme = is_array($parts) ? strtolower((string) ($parts['scheme'] ?? '')) : '';
        if ($url === '' || !is_array($parts) || !in_array($scheme, ['http', 'https'], true) || empty($parts['host'])
            || isset($parts['user']) || isset($parts['query']) || isset($parts['fragment']) || strlen($url) > self::MAX_URL_LENGTH
            || preg_match('/[\x00-\x20\x7f]/', $url) === 1) {
            throw new SettingsException(self::SERVICE_URL, self::say(
                $translate,
                'Service URL: enter the address of your Crypto Checkout service, starting with https:// (for example https://pay.example.com), without a query string.',
                []
            ));
        }
        $url = rtrim($url, '/');
        if (strtolower(substr($url, -4)) === '/api') {
            $url = rtrim(substr($url, 0, -4), '/');
        }
        return $url;
    }

    /**
     * @param callable(string, array<string, string>): string|null $translate
     * @throws SettingsException
     */
    public static function network(string $value, ?callable $translate = null): string
    {
        $network = strtoupper(self::text($value));
        if (Networks::get($network) === null) {
            throw new SettingsException(self::NETWORK, self::say($translate, 'Network: choose one of %networks%.', ['%networks%' => implode(', ', Networks::ids())]));
        }
        return $network;
    }

    /**
     * @param callable(string, array<string, string>): string|null $translate
     * @throws SettingsException
     */
    public static function asset(string $value, string $network, ?callable $translate = null): string
    {
        $asset = strtoupper(self::text($value));
        if (!Networks::isAssetOnNetwork($asset, $network)) {
            $info = Networks::get($network);
            $symbols = $info === null ? [] : array_column($info['assets'], 'symbol');
            throw new SettingsException(self::ASSET, self::say(
                $translate,
                'Settlement asset: %asset% is not settled on %network%; choose one of %assets%, or another network.',
                ['%asset%' => $asset === '' ? '""' : $asset, '%network%' => $network, '%assets%' => implode(', ', $symbols)]
            ));
        }
        return $asset;
    }

    /**
     * @param callable(string, array<string, string>): string|null $translate
     * @return string the canonical address
     * @throws SettingsException
     */
    public static function walletAddress(string $value, string $network, ?callable $translate = null): string
    {
        $check = AddressValidator::validate($network, self::text($value));
        if ($check['valid'] !== true) {
            throw new SettingsException(self::WALLET, self::say(
                $translate,
                'Wallet address (%network%): %problem%',
                ['%network%' => $network, '%problem%' => (string) $check['message']]
            ));
        }
        return (string) $check['address'];
    }

    /**
     * The display mode, one of DISPLAY_MODES (an earlier version's "embedded" is "modal"); blank is
     * the default.
     *
     * @param mixed $value
     * @param callable(string, array<string, string>): string|null $translate
     * @throws SettingsException
     */
    public static function displayMode($value, ?callable $translate = null): string
    {
        $mode = strtolower(self::text($value));
        $mode = self::DISPLAY_ALIASES[$mode] ?? ($mode === '' ? self::DEFAULTS[self::DISPLAY_MODE] : $mode);
        if (!in_array($mode, self::DISPLAY_MODES, true)) {
            throw new SettingsException(self::DISPLAY_MODE, self::say(
                $translate,
                'Checkout display: choose "%redirect%" (the payment page) or "%modal%" (a window over the shop).',
                ['%redirect%' => self::DISPLAY_REDIRECT, '%modal%' => self::DISPLAY_MODAL]
            ));
        }
        return $mode;
    }

    /**
     * True when $key has a shape the service accepts as a merchant credential: a merchant key as the
     * operator issues it (ccm_…) or the operator token: 24 to 512 printable ASCII characters,
     * without spaces. Whether the service knows the key is only known by asking it.
     */
    public static function isMerchantKey(string $key): bool
    {
        return preg_match('/\A[\x21-\x7e]{24,512}\z/', $key) === 1;
    }

    /** A merchant key as a page may show it (the key is a secret): its first four and last four characters, or '' for ''. */
    public static function maskedMerchantKey(string $key): string
    {
        return $key === '' ? '' : substr($key, 0, 4) . '…' . substr($key, -4);
    }

    /**
     * Drops blanks at both ends: ASCII white space and the Unicode spaces a copy from a web page
     * brings (no-break, zero-width, BOM). Inside the text nothing is changed.
     *
     * @param mixed $value
     */
    public static function text($value): string
    {
        if (!is_scalar($value)) {
            return '';
        }
        $text = (string) $value;
        $trimmed = preg_replace('/\A[\s\x{00A0}\x{2000}-\x{200B}\x{202F}\x{205F}\x{3000}\x{FEFF}]+|[\s\x{00A0}\x{2000}-\x{200B}\x{202F}\x{205F}\x{3000}\x{FEFF}]+\z/u', '', $text);
        return is_string($trimmed) ? $trimmed : trim($text);
    }

    /** @param array<string, string> $parameters */
    private static function say(?callable $translate, string $text, array $parameters): string
    {
        return $translate === null ? strtr($text, $parameters) : (string) $translate($text, $parameters);
    }
}
