<?php
/**
 * Crypto Checkout gateway module for WHMCS 8.x (PHP 7.4 or later): an adapter over the Crypto
 * Checkout plugin kernel (lib/Vendor/Client/Kernel). The invoice's pay button posts to the module's
 * endpoint (the callback file), which opens the invoice's checkout on the service; invoices are paid
 * from the service's own transaction lookup, triggered by the webhook, the cron hook
 * (includes/hooks/cryptocheckout.php) and the client's return to the invoice. Refunds start from
 * the invoice's Refund tab (cryptocheckout_refund) and are recorded once they are paid.
 */

declare(strict_types=1);

use CryptoCheckout\Whmcs\Vendor\Client\Kernel\SettingsRules;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\WalletCheck;
use CryptoCheckout\Whmcs\Vendor\Client\Wallet\Networks;

if (!defined('WHMCS')) {
    die('This file cannot be accessed directly');
}

require_once __DIR__ . '/cryptocheckout/autoload.php';

/** @return array<string, mixed> */
function cryptocheckout_MetaData()
{
    return [
        'DisplayName' => 'Crypto Checkout',
        'APIVersion' => '1.1',
        'DisableLocalCreditCardInput' => true,
        'TokenisedStorage' => false,
    ];
}

/**
 * The fields of Setup > Payments > Payment Gateways, with the kernel's defaults, and what is wrong
 * with the saved settings shown to the admin.
 *
 * @return array<string, array<string, mixed>>
 */
function cryptocheckout_config()
{
    $saved = \CryptoCheckout\Whmcs\Gateway::fromSavedSettings();
    $problems = $saved === null ? [] : array_map([\CryptoCheckout\Whmcs\HttpResponse::class, 'escape'], $saved->settings->errors);
    $networks = [];
    $assets = [];
    foreach (Networks::all() as $network) {
        $networks[$network['id']] = $network['name'];
        foreach ($network['assets'] as $asset) {
            $assets[$asset['symbol']] = $asset['symbol'] . ($asset['symbol'] === Networks::RECOMMENDED_ASSET ? ' (recommended)' : '');
        }
    }
    return [
        'FriendlyName' => ['Type' => 'System', 'Value' => 'Crypto Checkout'],
        'serviceUrl' => [
            'FriendlyName' => 'Service URL',
            'Type' => 'text',
            'Size' => '60',
            'Default' => SettingsRules::DEFAULTS[SettingsRules::SERVICE_URL],
            'Description' => 'Address of your Crypto Checkout service, e.g. https://pay.example.com',
        ],
        'walletAddress' => [
            'FriendlyName' => 'Wallet address',
            'Type' => 'text',
            'Size' => '60',
            'Default' => SettingsRules::DEFAULTS[SettingsRules::WALLET],
            'Description' => 'Your own wallet on the network below; payments settle there.'
                . ' On Solana, enter your wallet address, not a token account. Tokens go to your wallet\'s associated token account; the buyer\'s wallet creates it when missing, as Solana Pay wallets do.'
                . ' On Bitcoin, enter an address or, better, your wallet\'s extended public key: a zpub (recommended), an xpub or ypub, or a descriptor such as wpkh(…), sh(wpkh(…)) or tr(…). Public keys only: the service can never spend from them. With a key, each invoice gets its own receive address; saving shows the first ones to compare with your wallet.'
                . ($problems === [] ? '' : '<br><strong style="color:#b00020">' . implode('<br>', $problems) . '</strong>')
                . \CryptoCheckout\Whmcs\WalletNotice::forSettingsPage($saved),
        ],
        'asset' => [
            'FriendlyName' => 'Settlement asset',
            'Type' => 'dropdown',
            'Options' => $assets,
            'Default' => SettingsRules::DEFAULTS[SettingsRules::ASSET],
            'Description' => 'The asset you receive. It must be offered on the chosen network.',
        ],
        'network' => [
            'FriendlyName' => 'Network',
            'Type' => 'dropdown',
            'Options' => $networks,
            'Default' => SettingsRules::DEFAULTS[SettingsRules::NETWORK],
            'Description' => 'The chain your wallet address belongs to.',
        ],
        'displayMode' => [
            'FriendlyName' => 'Display mode',
            'Type' => 'dropdown',
            'Options' => [
                SettingsRules::DISPLAY_REDIRECT => 'Redirect to the payment page',
                SettingsRules::DISPLAY_MODAL => 'Open the payment page over the invoice',
            ],
            'Default' => SettingsRules::DEFAULTS[SettingsRules::DISPLAY_MODE],
        ],
        'merchantKey' => [
            'FriendlyName' => 'Merchant key',
            'Type' => 'password',
            'Size' => '60',
            'Description' => 'For refunds: the merchant key (ccm_…) your Crypto Checkout operator issued for the wallet above. Without it, the Refund tab\'s "Refund through Gateway" is refused and nothing is recorded.',
        ],
        'debug' => [
            'FriendlyName' => 'Debug log',
            'Type' => 'yesno',
            'Description' => 'Also record checks that change nothing in the Gateway Log.',
        ],
    ];
}

/**
 * Refuses to save settings that cannot take payments, with the reason shown to the admin. A Bitcoin
 * wallet is put to the service too (WalletNotice): one it refuses is refused here; what it says of
 * one it takes (an extended key's first receive addresses) is shown under the wallet field.
 *
 * @param array<string, mixed> $params
 * @throws \WHMCS\Exception\Module\InvalidConfiguration
 */
function cryptocheckout_config_validate($params)
{
    $settings = \CryptoCheckout\Whmcs\Settings::fromParams($params);
    $problems = array_values($settings->errors);
    if ($settings->merchantKeyProblem() !== null) {
        $problems[] = $settings->merchantKeyProblem();
    }
    $walletCheck = $problems === [] ? \CryptoCheckout\Whmcs\WalletNotice::checkOnSave($params) : null;
    if ($walletCheck !== null && $walletCheck['result'] === WalletCheck::RESULT_REFUSED) {
        $problems[] = (string) $walletCheck['message'];
    }
    if ($problems !== []) {
        throw new \WHMCS\Exception\Module\InvalidConfiguration(implode(' ', $problems));
    }
}

/**
 * The pay button on the invoice.
 *
 * @param array<string, mixed> $params
 */
function cryptocheckout_link($params)
{
    return \CryptoCheckout\Whmcs\PayButton::render($params);
}

/**
 * The invoice's Refund tab, "Refund through Gateway": asks the Crypto Checkout service for the
 * refund and e-mails the client the claim link (RefundAction). WHMCS records a refund transaction
 * at once when this answers "success"; the money only leaves the wallet once the client has
 * confirmed an address and the merchant has paid it, so it never answers "success": the module
 * records the refund transaction itself when the refund is paid (InvoiceRefunds).
 *
 * @param array<string, mixed> $params
 * @return array{status: string, rawdata: array<string, string>, transid: string}
 */
function cryptocheckout_refund($params)
{
    return \CryptoCheckout\Whmcs\RefundAction::run($params);
}
