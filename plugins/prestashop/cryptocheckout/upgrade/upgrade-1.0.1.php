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
 * 1.0.1 shows the transaction on the back office order page and adds the "Crypto payment to
 * review" state for late payments of cancelled orders.
 *
 * @param Cryptocheckout $module
 *
 * @return bool
 */
function upgrade_module_1_0_1($module)
{
    return $module->registerHook('displayAdminOrderMainBottom') && $module->installOrderStates();
}
