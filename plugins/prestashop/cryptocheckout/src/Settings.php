<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

declare(strict_types=1);

namespace CryptoCheckout\PrestaShop;

use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\SettingsRules;
use CryptoCheckout\PrestaShop\Vendor\Client\Wallet\Networks;

/**
 * The module's settings in PrestaShop's Configuration table: reading them, and checking what the
 * merchant submitted in the back office before anything is saved (the kernel's SettingsRules for
 * the service and the wallet).
 */
final class Settings
{
    public const SERVICE_URL = 'CRYPTOCHECKOUT_SERVICE_URL';
    public const WALLET_ADDRESS = 'CRYPTOCHECKOUT_WALLET_ADDRESS';
    public const ASSET = 'CRYPTOCHECKOUT_ASSET';
    public const NETWORK = 'CRYPTOCHECKOUT_NETWORK';
    public const DISPLAY_MODE = 'CRYPTOCHECKOUT_DISPLAY_MODE';
    public const DEBUG = 'CRYPTOCHECKOUT_DEBUG';
    public const DELETE_DATA_ON_UNINSTALL = 'CRYPTOCHECKOUT_DELETE_DATA_ON_UNINSTALL';
    public const POLL_TOKEN = 'CRYPTOCHECKOUT_POLL_TOKEN';
    public const LAST_WEBHOOK = 'CRYPTOCHECKOUT_LAST_WEBHOOK';
    public const LAST_POLL = 'CRYPTOCHECKOUT_LAST_POLL';

    public const MODE_REDIRECT = 'redirect';
    public const MODE_EMBEDDED = 'embedded';

    /** The configuration keys of the settings the kernel's SettingsRules checks, and its field keys. */
    public const KERNEL_FIELDS = [
        self::SERVICE_URL => SettingsRules::SERVICE_URL,
        self::NETWORK => SettingsRules::NETWORK,
        self::ASSET => SettingsRules::ASSET,
        self::WALLET_ADDRESS => SettingsRules::WALLET,
    ];

    /** Keys the merchant edits in the back office form. */
    public const FORM_KEYS = [self::SERVICE_URL, self::WALLET_ADDRESS, self::ASSET, self::NETWORK, self::DISPLAY_MODE, self::DELETE_DATA_ON_UNINSTALL, self::DEBUG];

    /** Every key the module writes, order state ids included; uninstall removes them all. */
    public const ALL_KEYS = [
        self::SERVICE_URL, self::WALLET_ADDRESS, self::ASSET, self::NETWORK, self::DISPLAY_MODE, self::DELETE_DATA_ON_UNINSTALL, self::DEBUG,
        self::POLL_TOKEN, self::LAST_WEBHOOK, self::LAST_POLL, ServiceReachability::LAST_CHECK,
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
            self::DELETE_DATA_ON_UNINSTALL => '0',
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

    /** True once the saved service URL, network, asset and wallet can take payments: only then is the payment option offered. */
    public static function isComplete(): bool
    {
        $saved = [];
        foreach (self::KERNEL_FIELDS as $key => $field) {
            $saved[$field] = self::get($key);
        }

        return SettingsRules::isUsable($saved);
    }

    public static function isDebug(): bool
    {
        return self::get(self::DEBUG) === '1';
    }

    /**
     * Checks submitted settings: the four the kernel's SettingsRules owns, and the module's own
     * display mode and its two switches. Returns the cleaned values and, per configuration key, a
     * message that names the field and says how to fix it; save only when errors is empty.
     *
     * @param array<string, mixed> $input raw submitted values by configuration key
     * @param callable(string, array<string, string>): string $translate
     * @return array{values: array<string, string>, errors: array<string, string>}
     */
    public static function validate(array $input, callable $translate): array
    {
        $fields = [];
        foreach (self::KERNEL_FIELDS as $key => $field) {
            $fields[$field] = $input[$key] ?? '';
        }
        $checked = SettingsRules::validate($fields, $translate);
        $values = [];
        $errors = [];
        foreach (self::KERNEL_FIELDS as $key => $field) {
            $values[$key] = $checked['values'][$field];
            if (isset($checked['errors'][$field])) {
                $errors[$key] = $checked['errors'][$field];
            }
        }

        $mode = SettingsRules::text($input[self::DISPLAY_MODE] ?? self::MODE_REDIRECT);
        if (!in_array($mode, [self::MODE_REDIRECT, self::MODE_EMBEDDED], true)) {
            $errors[self::DISPLAY_MODE] = $translate('Display: choose "%redirect%" or "%embedded%".', ['%redirect%' => self::MODE_REDIRECT, '%embedded%' => self::MODE_EMBEDDED]);
        }
        $values[self::DISPLAY_MODE] = $mode;
        foreach ([self::DELETE_DATA_ON_UNINSTALL, self::DEBUG] as $switch) {
            $values[$switch] = SettingsRules::text($input[$switch] ?? '0') === '1' ? '1' : '0';
        }

        return ['values' => $values, 'errors' => $errors];
    }
}
