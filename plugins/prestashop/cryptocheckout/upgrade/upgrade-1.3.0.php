<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

use CryptoCheckout\PrestaShop\Settings;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\SettingsRules;

if (!defined('_PS_VERSION_')) {
    exit;
}

/**
 * 1.3.0 keeps every checkout in the kernel's ledger: those of 1.0.x and 1.1.0 to 1.2.0 are taken
 * in, open ones still watched, paid ones still paid (Cryptocheckout::installLedger()). "embedded"
 * is "modal" now; the last webhook and the service check are the kernel's.
 *
 * @param Cryptocheckout $module
 * @return bool
 */
function upgrade_module_1_3_0($module)
{
    // SettingsRules reads the earlier name as today's (1.2.0 saved only "redirect" or "embedded").
    Configuration::updateValue(Settings::DISPLAY_MODE, SettingsRules::displayMode(Settings::get(Settings::DISPLAY_MODE)));
    Configuration::deleteByName('CRYPTOCHECKOUT_LAST_WEBHOOK');
    Configuration::deleteByName('CRYPTOCHECKOUT_SERVICE_CHECK');

    return $module->installLedger();
}
