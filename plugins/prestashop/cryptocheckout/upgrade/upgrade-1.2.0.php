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
 * 1.2.0 keeps its data through an uninstall unless the merchant switches on "Delete data on
 * uninstall" (off after the upgrade, as on a new install), shows the status box on the guest
 * tracking page (the hooks it uses are unchanged) and writes its notes as private order messages.
 *
 * @param Cryptocheckout $module
 *
 * @return bool
 */
function upgrade_module_1_2_0($module)
{
    return Configuration::hasKey('CRYPTOCHECKOUT_DELETE_DATA_ON_UNINSTALL')
        || Configuration::updateValue('CRYPTOCHECKOUT_DELETE_DATA_ON_UNINSTALL', '0');
}
