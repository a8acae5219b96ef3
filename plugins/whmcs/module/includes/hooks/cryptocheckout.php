<?php
/**
 * Crypto Checkout: on every run of the WHMCS cron (every five minutes, as WHMCS recommends), the
 * kernel's poll checks the due checkouts and refunds, so an invoice is paid, and a paid refund
 * recorded, even when its webhook was lost. The admin's invoice page shows the invoice's refunds.
 */

declare(strict_types=1);

if (!defined('WHMCS')) {
    die('This file cannot be accessed directly');
}

add_hook('AfterCronJob', 1, function ($vars) {
    $autoload = __DIR__ . '/../../modules/gateways/cryptocheckout/autoload.php';
    if (!is_file($autoload)) {
        return;
    }
    require_once $autoload;
    \CryptoCheckout\Whmcs\Gateway::poll();
});

add_hook('AdminInvoicesControlsOutput', 1, function ($vars) {
    $autoload = __DIR__ . '/../../modules/gateways/cryptocheckout/autoload.php';
    if (!is_file($autoload)) {
        return '';
    }
    require_once $autoload;
    return \CryptoCheckout\Whmcs\AdminPanel::render(is_array($vars) ? $vars : []);
});
