<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs;

use CryptoCheckout\Whmcs\Vendor\Client\Client;
use CryptoCheckout\Whmcs\Vendor\Client\Wallet\AddressValidator;
use CryptoCheckout\Whmcs\Vendor\Client\Wallet\Networks;

/**
 * The gateway's settings as WHMCS passes them (getGatewayVariables() or the module's $params),
 * read once and checked.
 */
final class Settings
{
    public const GATEWAY = 'cryptocheckout';
    public const DISPLAY_REDIRECT = 'redirect';
    public const DISPLAY_EMBEDDED = 'embedded';

    /** @var string */
    public $serviceUrl;
    /** @var string */
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
    /** @var string */
    public $systemUrl;

    /** @param array<string, mixed> $params */
    public static function fromParams(array $params): self
    {
        $settings = new self();
        $settings->serviceUrl = rtrim(trim((string) ($params['serviceUrl'] ?? '')), '/');
        $settings->walletAddress = (string) ($params['walletAddress'] ?? '');
        $settings->asset = (string) ($params['asset'] ?? Networks::DEFAULT_SETTLEMENT['crypto_currency']);
        $settings->network = (string) ($params['network'] ?? Networks::DEFAULT_SETTLEMENT['crypto_currency_network']);
        $settings->displayMode = ($params['displayMode'] ?? '') === self::DISPLAY_EMBEDDED ? self::DISPLAY_EMBEDDED : self::DISPLAY_REDIRECT;
        $debug = $params['debug'] ?? '';
        $settings->debug = $debug === 'on' || $debug === true || $debug === '1';
        $settings->displayName = (string) ($params['name'] ?? 'Crypto Checkout');
        $settings->systemUrl = rtrim((string) ($params['systemurl'] ?? ''), '/') . '/';
        return $settings;
    }

    /**
     * Problems with the settings, each naming the field and the fix; empty when they are usable.
     *
     * @return array<int, string>
     */
    public function problems(): array
    {
        $problems = [];
        $url = parse_url($this->serviceUrl);
        if ($this->serviceUrl === '' || !is_array($url) || !in_array($url['scheme'] ?? '', ['http', 'https'], true) || empty($url['host'])) {
            $problems[] = 'Service URL: enter the address of your Crypto Checkout service, like https://pay.example.com.';
        } elseif (isset($url['path']) && $url['path'] !== '' && $url['path'] !== '/') {
            $problems[] = 'Service URL: enter the service origin only (https://pay.example.com), without a path such as /api.';
        }
        if (Networks::get($this->network) === null) {
            $problems[] = sprintf('Network: choose one of %s.', implode(', ', Networks::ids()));
        } elseif (!Networks::isAssetOnNetwork($this->asset, $this->network)) {
            $problems[] = sprintf('Settlement asset: %s is not settled on %s; choose an asset offered on that network (USDC is recommended).', $this->asset, $this->network);
        }
        $wallet = AddressValidator::validate($this->network, $this->walletAddress);
        if (!$wallet['valid']) {
            $problems[] = 'Wallet address: ' . $wallet['message'];
        }
        return $problems;
    }

    public function walletForCheckout(): string
    {
        $wallet = AddressValidator::validate($this->network, $this->walletAddress);
        return $wallet['valid'] ? (string) $wallet['address'] : $this->walletAddress;
    }

    public function client(): Client
    {
        return Client::forServiceOrigin($this->serviceUrl);
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
