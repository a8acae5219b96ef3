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
 * 1.1.0 moved the checkouts of 1.0.x to a table of its own; the upgrade to 1.3.0 now takes every
 * earlier layout into the ledger. The file stays so that an upload over the module's folder
 * replaces an older copy, which would write to tables 1.3.0 no longer has.
 *
 * @param Cryptocheckout $module
 * @return bool
 */
function upgrade_module_1_1_0($module)
{
    return true;
}
