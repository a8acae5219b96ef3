<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs;

use CryptoCheckout\Whmcs\Vendor\Client\Client;
use CryptoCheckout\Whmcs\Vendor\Client\Http\Transport;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\WalletCheck;

/**
 * A Bitcoin wallet put to the service when the settings are saved (the kernel's checkWallet(),
 * GET /api/wallet_check): cryptocheckout_config_validate() refuses a wallet the service refuses,
 * and the settings page then shows, under the wallet field, what the service said of the saved one
 * (an extended key's first receive addresses, or why they could not be shown), remembered in the
 * kernel's ledger. WHMCS lets a module refuse a save, not add a notice to it.
 */
final class WalletNotice
{
    /**
     * The service's word on the wallet about to be saved, or null when it is not asked (not a
     * Bitcoin wallet, or settings the rules already refuse).
     *
     * @param array<string, mixed> $params the settings as cryptocheckout_config_validate() gets them
     * @param Transport|null $transport for the check when the ledger cannot be reached (null: curl or streams)
     * @return array<string, mixed>|null WalletCheck::check()'s shape
     */
    public static function checkOnSave(array $params, ?Transport $transport = null): ?array
    {
        $settings = Settings::fromParams($params);
        if ($settings->errors !== [] || !WalletCheck::applies($settings->network)) {
            return null;
        }
        try {
            $kernel = (new Gateway($params))->kernel();
        } catch (\Exception $noLedger) {
            // The ledger is not ready (its first use failed, and said why): ask all the same, remember nothing.
            $check = new WalletCheck($transport ?? Client::createDefaultTransport());
            return $check->check($settings->serviceUrl, $settings->network, $settings->walletAddress);
        }
        return $kernel->checkWallet($settings->serviceUrl, $settings->network, $settings->walletAddress);
    }

    /**
     * What the service said of the saved Bitcoin wallet, as HTML for the wallet field's description
     * (every text escaped), or '' when there is nothing to show.
     */
    public static function forSettingsPage(?Gateway $saved): string
    {
        if ($saved === null || $saved->settings->errors !== [] || !WalletCheck::applies($saved->settings->network)) {
            return '';
        }
        try {
            $check = $saved->kernel()->rememberedWalletCheck($saved->settings->serviceUrl, $saved->settings->network, $saved->settings->walletAddress);
        } catch (\Exception $noLedger) {
            return '';
        }
        if ($check === null || $check['message'] === '') {
            return '';
        }
        $unavailable = $check['result'] === WalletCheck::RESULT_UNAVAILABLE;
        return '<br><span class="cryptocheckout-wallet-check" data-result="' . HttpResponse::escape((string) $check['result']) . '" style="color:'
            . ($unavailable ? '#8a6d3b' : '#31708f') . '">' . HttpResponse::escape((string) $check['message']) . '</span>';
    }
}
