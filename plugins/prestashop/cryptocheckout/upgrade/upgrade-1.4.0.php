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
 * 1.4.0 refunds credit slips in crypto: it listens to actionOrderSlipAdd (install() registers it on
 * a new shop) and keeps its refunds in the ledger's refund table, which the kernel creates on first
 * use (Ledger::install() is safe to run again, so it is created here at once).
 *
 * @param Cryptocheckout $module
 * @return bool
 */
function upgrade_module_1_4_0($module)
{
    return $module->registerHook('actionOrderSlipAdd') && $module->installLedger();
}
