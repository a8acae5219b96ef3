<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

use CryptoCheckout\PrestaShop\JsonFrontController;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\HttpReply;

if (!defined('_PS_VERSION_')) {
    exit;
}

/**
 * The buyer's status box asks here (Kernel::statusReply(), after the order's secure key):
 * throttled per client IP (Tools::getRemoteAddr()) and order; a due check of the service first, so
 * the payment shows promptly even when its webhook was lost.
 *
 * @property Cryptocheckout $module
 */
class CryptocheckoutStatusModuleFrontController extends JsonFrontController
{
    protected function reply(): HttpReply
    {
        $order = $this->module->orderFromLink();

        return $order === null
            ? HttpReply::error(404, 'not_found', 'No such order.', 'id_order')
            : $this->module->kernel()->statusReply((string) $order->id, (string) Tools::getRemoteAddr());
    }
}
