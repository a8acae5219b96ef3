<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

use CryptoCheckout\PrestaShop\CheckoutRepository;
use CryptoCheckout\PrestaShop\Settings;

if (!defined('_PS_VERSION_')) {
    exit;
}

/**
 * 1.1.0 runs on the shared plugin kernel and keeps every checkout of an order (a replaced one
 * stays payable at the service): the one-row-per-order table cryptocheckout_transaction becomes
 * cryptocheckout_checkout, plus cryptocheckout_claim for the orders' claim markers. Every row
 * that held a checkout is carried over with its terms, its last check and its outcome; the old
 * table is dropped only when all of them arrived.
 *
 * @param Cryptocheckout $module
 *
 * @return bool
 */
function upgrade_module_1_1_0($module)
{
    $repository = new CheckoutRepository();
    if (!$repository->install()) {
        return false;
    }
    try {
        $repository->migrateLegacyTable(Settings::get(Settings::SERVICE_URL), time());
    } catch (Exception $exception) {
        // A failed copy (or, in debug mode, PrestaShopDatabaseException) stops the upgrade with the old table intact.
        PrestaShopLogger::addLog('Crypto Checkout: upgrade to 1.1.0 stopped: ' . $exception->getMessage(), 3, null, null, null, true);

        return false;
    }

    return true;
}
