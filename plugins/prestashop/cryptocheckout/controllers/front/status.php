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
 * The payment status of one order for the buyer's status box (the kernel's BuyerStatus), in the
 * success envelope. The order's secure key is required. While the order has a checkout to
 * watch, a request checks the service (at most every few seconds), so a buyer who comes back
 * sees the payment promptly even when its webhook was lost.
 *
 * @property Cryptocheckout $module
 */
class CryptocheckoutStatusModuleFrontController extends JsonFrontController
{
    protected function reply(): HttpReply
    {
        $order = new Order((int) Tools::getValue('id_order'));
        $key = (string) Tools::getValue('key', '');
        if (!Validate::isLoadedObject($order) || $order->module !== $this->module->name || $key === '' || !hash_equals((string) $order->secure_key, $key)) {
            return HttpReply::error(404, 'not_found', 'No such order.', 'id_order');
        }
        $this->module->createRunner()->runForBuyer((string) $order->id);

        return HttpReply::success($this->module->buyerStatus($order));
    }
}
