<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

use CryptoCheckout\PrestaShop\JsonFrontController;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\HttpReply;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\WebhookHandler;

if (!defined('_PS_VERSION_')) {
    exit;
}

/**
 * transaction.settled and refund.paid, handed to Kernel::webhook(): throttled per client IP
 * (PrestaShop's Tools::getRemoteAddr()); the unsigned body only names a transaction or a refund,
 * which is brought in line with the service's own record (WebhookHandler's status policy; a paid
 * refund is recorded once on its order through PrestaShopRefundPort).
 *
 * @property Cryptocheckout $module
 */
class CryptocheckoutWebhookModuleFrontController extends JsonFrontController
{
    protected function reply(): HttpReply
    {
        // One byte more than the handler accepts, so it can tell an oversized body apart.
        $body = (string) file_get_contents('php://input', false, null, 0, WebhookHandler::MAX_BODY_BYTES + 1);
        $method = (string) ($_SERVER['REQUEST_METHOD'] ?? 'GET');

        return $this->module->kernel()->webhook($method, $body, (string) Tools::getRemoteAddr(), $this->module->refundPort())['reply'];
    }
}
