<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

declare(strict_types=1);

namespace CryptoCheckout\PrestaShop;

use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\SettingsRules;

/**
 * The module's settings in PrestaShop's Configuration table, and the check of what the merchant
 * submits: the service, the wallet and the display mode are the kernel's SettingsRules (its
 * defaults, its names "redirect" and "modal"); the module adds two switches, off by default.
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
    public const LAST_POLL = 'CRYPTOCHECKOUT_LAST_POLL';
    /**
     * The merchant key (`ccm_…`) the operator issued for the shop's wallet, or the operator token:
     * refunds need it. Its shape is the kernel's SettingsRules::isMerchantKey().
     */
    public const MERCHANT_KEY = 'CRYPTOCHECKOUT_MERCHANT_KEY';

    /** The configuration keys of the settings the kernel's SettingsRules checks, and its field keys. */
    public const KERNEL_FIELDS = [
        self::SERVICE_URL => SettingsRules::SERVICE_URL,
        self::NETWORK => SettingsRules::NETWORK,
        self::ASSET => SettingsRules::ASSET,
        self::WALLET_ADDRESS => SettingsRules::WALLET,
        self::DISPLAY_MODE => SettingsRules::DISPLAY_MODE,
    ];

    /** Keys the merchant edits in the back office form: the kernel's settings, then the two switches. */
    public const FORM_KEYS = [self::SERVICE_URL, self::WALLET_ADDRESS, self::ASSET, self::NETWORK, self::DISPLAY_MODE, self::DELETE_DATA_ON_UNINSTALL, self::DEBUG];

    /**
     * Every key the module writes besides the form's, order state ids included; uninstall removes
     * them all. The merchant key is on the form too, but never shown back: see merchantKey().
     */
    public const OTHER_KEYS = [self::POLL_TOKEN, self::LAST_POLL, self::MERCHANT_KEY, OrderStates::AWAITING, OrderStates::UNDERPAID, OrderStates::REVIEW, SchemaUpgrade::VERSION_KEY, SchemaUpgrade::PROBLEM_KEY];

    private function __construct()
    {
    }

    /** Values a fresh install starts with: the kernel's defaults, the switches off. */
    public static function defaults(): array
    {
        $defaults = [self::DELETE_DATA_ON_UNINSTALL => '0', self::DEBUG => '0'];
        foreach (self::KERNEL_FIELDS as $key => $field) {
            $defaults[$key] = SettingsRules::DEFAULTS[$field];
        }

        return $defaults;
    }

    public static function get(string $key): string
    {
        $value = \Configuration::get($key);

        return $value === false || $value === null ? (string) (self::defaults()[$key] ?? '') : (string) $value;
    }

    /** The saved settlement (asset and network) under the kernel's field keys, as Kernel::probe() reads it. */
    public static function settlement(): array
    {
        return [SettingsRules::ASSET => self::get(self::ASSET), SettingsRules::NETWORK => self::get(self::NETWORK)];
    }

    /** True once the saved service URL, network, asset and wallet can take payments: only then is the payment option offered. */
    public static function isComplete(): bool
    {
        return SettingsRules::isUsable(array_combine(self::KERNEL_FIELDS, array_map([self::class, 'get'], array_keys(self::KERNEL_FIELDS))));
    }

    /**
     * The cleaned values and, per key, a message naming the field and its fix; save only without errors.
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
        $result = ['values' => [], 'errors' => []];
        foreach (self::KERNEL_FIELDS as $key => $field) {
            $result['values'][$key] = $checked['values'][$field];
            if (isset($checked['errors'][$field])) {
                $result['errors'][$key] = $checked['errors'][$field];
            }
        }
        foreach ([self::DELETE_DATA_ON_UNINSTALL, self::DEBUG] as $switch) {
            $result['values'][$switch] = SettingsRules::text($input[$switch] ?? '0') === '1' ? '1' : '0';
        }

        return $result;
    }

    /**
     * The merchant key to save from what the merchant typed: empty keeps the saved key (the field
     * is a password field that never shows it back), anything else must be a whole key.
     *
     * @param mixed $input the submitted field
     * @param callable(string, array<string, string>): string $translate
     * @return array{value: string, error: string|null} the key to save, or why the input is refused
     */
    public static function merchantKey($input, string $saved, callable $translate): array
    {
        $typed = SettingsRules::text($input);
        if ($typed === '') {
            return ['value' => $saved, 'error' => null];
        }
        if (!SettingsRules::isMerchantKey($typed)) {
            return ['value' => $saved, 'error' => $translate('Merchant key: enter the whole key as your Crypto Checkout operator issued it (ccm_…), without spaces. The saved key was kept.', [])];
        }

        return ['value' => $typed, 'error' => null];
    }
}
