<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs;

use CryptoCheckout\Whmcs\Vendor\Client\Kernel\SettingsRules;
use CryptoCheckout\Whmcs\Vendor\Client\Wallet\Networks;

/**
 * The gateway's settings as WHMCS passes them (getGatewayVariables() or the module's $params),
 * read once through the kernel's SettingsRules. WHMCS stores what the admin typed (a module can
 * refuse a save, not change it), so the cleaned values are taken here on every read.
 */
final class Settings
{
    public const GATEWAY = 'cryptocheckout';
    public const DISPLAY_REDIRECT = 'redirect';
    public const DISPLAY_EMBEDDED = 'embedded';

    /** The _config field of each setting SettingsRules checks. */
    public const FIELDS = [
        SettingsRules::SERVICE_URL => 'serviceUrl',
        SettingsRules::NETWORK => 'network',
        SettingsRules::ASSET => 'asset',
        SettingsRules::WALLET => 'walletAddress',
    ];

    /** @var string without a trailing "/" or "/api" */
    public $serviceUrl;
    /** @var string canonical for the network */
    public $walletAddress;
    /** @var string */
    public $asset;
    /** @var string */
    public $network;
    /** @var string */
    public $displayMode;
    /** @var bool */
    public $debug;
    /** @var string */
    public $displayName;
    /** @var string ends with "/" */
    public $systemUrl;
    /** @var array<string, string> what is wrong, by SettingsRules field */
    private $errors;

    /** @param array<string, mixed> $params */
    public static function fromParams(array $params): self
    {
        $defaults = [
            'network' => Networks::DEFAULT_SETTLEMENT['crypto_currency_network'],
            'asset' => Networks::DEFAULT_SETTLEMENT['crypto_currency'],
        ];
        $input = [];
        foreach (self::FIELDS as $rule => $field) {
            $input[$rule] = $params[$field] ?? $defaults[$field] ?? '';
        }
        $checked = SettingsRules::validate($input);

        $settings = new self();
        $settings->serviceUrl = $checked['values'][SettingsRules::SERVICE_URL];
        $settings->walletAddress = $checked['values'][SettingsRules::WALLET];
        $settings->asset = $checked['values'][SettingsRules::ASSET];
        $settings->network = $checked['values'][SettingsRules::NETWORK];
        $settings->errors = $checked['errors'];
        $settings->displayMode = ($params['displayMode'] ?? '') === self::DISPLAY_EMBEDDED ? self::DISPLAY_EMBEDDED : self::DISPLAY_REDIRECT;
        $debug = $params['debug'] ?? '';
        $settings->debug = $debug === 'on' || $debug === true || $debug === '1';
        $settings->displayName = (string) ($params['name'] ?? 'Crypto Checkout');
        $settings->systemUrl = rtrim((string) ($params['systemurl'] ?? ''), '/') . '/';
        return $settings;
    }

    /**
     * What is wrong with the settings, each message naming the field and the fix; empty when they
     * can take payments.
     *
     * @return array<string, string> by SettingsRules field
     */
    public function errors(): array
    {
        return $this->errors;
    }

    public function isUsable(): bool
    {
        return $this->errors === [];
    }

    /** The module's single web entry point (the WHMCS callback file). */
    public function callbackUrl(): string
    {
        return $this->systemUrl . 'modules/gateways/callback/' . self::GATEWAY . '.php';
    }

    public function invoiceUrl(int $invoiceId): string
    {
        return $this->systemUrl . 'viewinvoice.php?id=' . $invoiceId;
    }
}
