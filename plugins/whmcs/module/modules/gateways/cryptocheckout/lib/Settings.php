<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs;

use CryptoCheckout\Whmcs\Vendor\Client\Kernel\SettingsRules;

/**
 * The gateway's settings as WHMCS passes them (their fields: cryptocheckout_config()), read through
 * the kernel's SettingsRules and defaults on every read (WHMCS stores what the admin typed: a module
 * can refuse a save, not change it).
 */
final class Settings
{
    public const GATEWAY = 'cryptocheckout';

    /** The _config field of each setting SettingsRules checks. */
    public const FIELDS = [
        SettingsRules::SERVICE_URL => 'serviceUrl',
        SettingsRules::NETWORK => 'network',
        SettingsRules::ASSET => 'asset',
        SettingsRules::WALLET => 'walletAddress',
        SettingsRules::DISPLAY_MODE => 'displayMode',
    ];

    /** Without a trailing "/" or "/api". */
    public string $serviceUrl;
    /** Canonical for the network. */
    public string $walletAddress;
    public string $asset;
    public string $network;
    /** SettingsRules::DISPLAY_REDIRECT or DISPLAY_MODAL (an earlier version's "embedded" reads as modal). */
    public string $displayMode;
    public bool $debug;
    /** The merchant key (`ccm_…`) the operator issued for the wallet, for refunds; "" when not set. */
    public string $merchantKey;
    public string $displayName;
    /** Ends with "/". */
    public string $systemUrl;
    /** @var array<string, string> what is wrong, each message naming the field and the fix; empty when payments can be taken */
    public array $errors;

    /** @param array<string, mixed> $params */
    public static function fromParams(array $params): self
    {
        $input = [];
        foreach (self::FIELDS as $rule => $field) {
            $input[$rule] = $params[$field] ?? SettingsRules::DEFAULTS[$rule];
        }
        $checked = SettingsRules::validate($input);
        $settings = new self();
        $settings->serviceUrl = $checked['values'][SettingsRules::SERVICE_URL];
        $settings->walletAddress = $checked['values'][SettingsRules::WALLET];
        $settings->asset = $checked['values'][SettingsRules::ASSET];
        $settings->network = $checked['values'][SettingsRules::NETWORK];
        $settings->displayMode = $checked['values'][SettingsRules::DISPLAY_MODE];
        $settings->errors = $checked['errors'];
        $settings->debug = in_array($params['debug'] ?? '', ['on', '1', true], true);
        // Blanks around a key pasted from an e-mail are dropped; one inside is refused when saved.
        $settings->merchantKey = (string) preg_replace('/\A[\s\x{00A0}\x{200B}\x{FEFF}]+|[\s\x{00A0}\x{200B}\x{FEFF}]+\z/u', '', (string) ($params['merchantKey'] ?? ''));
        $settings->displayName = (string) ($params['name'] ?? 'Crypto Checkout');
        $settings->systemUrl = rtrim((string) ($params['systemurl'] ?? ''), '/') . '/';
        return $settings;
    }

    /**
     * What is wrong with the merchant key, for the settings page; null when it is empty (refunds
     * are then refused with a message saying where to set it) or has a shape the service accepts
     * (the kernel's SettingsRules::isMerchantKey()).
     */
    public function merchantKeyProblem(): ?string
    {
        if ($this->merchantKey === '' || SettingsRules::isMerchantKey($this->merchantKey)) {
            return null;
        }
        return 'Merchant key: it must be one word without spaces, at least 24 characters, as your Crypto Checkout operator issued it (ccm_…). Copy it again.';
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
