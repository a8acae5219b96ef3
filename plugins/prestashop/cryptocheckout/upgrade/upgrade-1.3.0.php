<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

if (!defined('_PS_VERSION_')) {
    exit;
}

/**
 * 1.3.0 keeps every checkout in the kernel's ledger: those of 1.0.x and 1.1.0 to 1.2.0 are taken
 * in, open ones still watched, paid ones still paid; "embedded" is "modal" now; the last webhook
 * and the service check are the kernel's. Every step is Cryptocheckout::upgradeStorage(), which
 * the module also runs itself on the first request that finds its tables behind (an upload that
 * ran no upgrade script), so running this again is harmless: it ends at once once the storage is
 * this version's.
 *
 * @param Cryptocheckout $module
 * @return bool
 */
function upgrade_module_1_3_0($module)
{
    return $module->upgradeToCurrent();
}
