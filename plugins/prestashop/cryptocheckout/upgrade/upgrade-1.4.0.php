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
 * 1.4.0 refunds credit slips in crypto: it listens to actionOrderSlipAdd and keeps its refunds in
 * the ledger's refund table. Every step is Cryptocheckout::upgradeStorage(), safe to run again,
 * which the module also runs itself on the first request that finds its tables behind
 * (SchemaUpgrade, from 1.4.1).
 *
 * @param Cryptocheckout $module
 * @return bool
 */
function upgrade_module_1_4_0($module)
{
    return $module->upgradeToCurrent();
}
