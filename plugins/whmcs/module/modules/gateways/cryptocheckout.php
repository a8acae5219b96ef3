<?php
/**
 * Crypto Checkout gateway module for WHMCS 8.x (PHP 7.4 or later).
 *
 * An adapter over the Crypto Checkout plugin kernel (lib/Vendor/Client/Kernel): the invoice's pay
 * button posts to the module's endpoint (the callback file), which opens the invoice's checkout on
 * the Crypto Checkout service. Invoices are paid from the service's authoritative transaction
 * lookup, triggered by the webhook, the cron hook (includes/hooks/cryptocheckout.php) and the
 * client's return to the invoice.
 */

declare(strict_types=1);

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

/** @return array<string, array<string, mixed>> */
function cryptocheckout_config()
{
    $problems = [];
    if (\CryptoCheckout\Whmcs\Gateway::isActivated()) {
        $problems = \CryptoCheckout\Whmcs\Gateway::fromSavedSettings()->settings->errors();
    }
    return \CryptoCheckout\Whmcs\ConfigForm::fields(array_values($problems));
}

/**
 * Refuses to save settings that cannot take payments, with the reason shown to the admin.
 *
 * @param array<string, mixed> $params
 * @throws \WHMCS\Exception\Module\InvalidConfiguration
 */
function cryptocheckout_config_validate($params)
{
    $problems = \CryptoCheckout\Whmcs\Settings::fromParams($params)->errors();
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
