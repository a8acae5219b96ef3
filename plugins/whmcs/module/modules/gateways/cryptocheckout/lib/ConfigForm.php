<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs;

use CryptoCheckout\Whmcs\Vendor\Client\Wallet\Networks;

/** The fields of Setup > Payments > Payment Gateways for this module. */
final class ConfigForm
{
    private function __construct()
    {
    }

    /**
     * @param array<int, string> $problems problems with the saved settings, shown to the admin
     * @return array<string, array<string, mixed>>
     */
    public static function fields(array $problems): array
    {
        $networks = [];
        $assets = [];
        foreach (Networks::all() as $network) {
            $networks[$network['id']] = $network['name'];
            foreach ($network['assets'] as $asset) {
                $assets[$asset['symbol']] = $asset['symbol'] === Networks::RECOMMENDED_ASSET
                    ? $asset['symbol'] . ' (recommended)'
                    : $asset['symbol'];
            }
        }
        $warning = '';
        if ($problems !== []) {
            $warning = '<br><strong style="color:#b00020">'
                . implode('<br>', array_map([Html::class, 'escape'], $problems))
                . '</strong>';
        }

        return [
            'FriendlyName' => ['Type' => 'System', 'Value' => 'Crypto Checkout'],
            'serviceUrl' => [
                'FriendlyName' => 'Service URL',
                'Type' => 'text',
                'Size' => '60',
                'Default' => '',
                'Description' => 'Address of your Crypto Checkout service, e.g. https://pay.example.com',
            ],
            'walletAddress' => [
                'FriendlyName' => 'Wallet address',
                'Type' => 'text',
                'Size' => '60',
                'Default' => '',
                'Description' => 'Your own wallet on the network below; payments settle there.' . $warning,
            ],
            'asset' => [
                'FriendlyName' => 'Settlement asset',
                'Type' => 'dropdown',
                'Options' => $assets,
                'Default' => Networks::DEFAULT_SETTLEMENT['crypto_currency'],
                'Description' => 'The asset you receive. It must be offered on the chosen network.',
            ],
            'network' => [
                'FriendlyName' => 'Network',
                'Type' => 'dropdown',
                'Options' => $networks,
                'Default' => Networks::DEFAULT_SETTLEMENT['crypto_currency_network'],
                'Description' => 'The chain your wallet address belongs to.',
            ],
            'displayMode' => [
                'FriendlyName' => 'Display mode',
                'Type' => 'dropdown',
                'Options' => [
                    Settings::DISPLAY_REDIRECT => 'Redirect to the payment page',
                    Settings::DISPLAY_EMBEDDED => 'Open the payment page over the invoice',
                ],
                'Default' => Settings::DISPLAY_REDIRECT,
            ],
            'debug' => [
                'FriendlyName' => 'Debug log',
                'Type' => 'yesno',
                'Description' => 'Also record checks that change nothing in the Gateway Log.',
            ],
        ];
    }
}
