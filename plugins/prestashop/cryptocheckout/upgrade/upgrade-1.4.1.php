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
 * 1.4.1 brings its tables up to date itself on the first request that finds them behind
 * (SchemaUpgrade), and registers displayAdminAfterHeader for the banner that says when it cannot.
 * The tables are 1.4.0's: over a 1.4.0 shop this registers the hook and records 1.4.1 as complete.
 * Every step is Cryptocheckout::upgradeStorage(), safe to run again; when the first request has
 * already done it, this ends at once.
 *
 * @param Cryptocheckout $module
 * @return bool
 */
function upgrade_module_1_4_1($module)
{
    return $module->upgradeToCurrent();
}
