<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

use CryptoCheckout\PrestaShop\JsonFrontController;
use CryptoCheckout\PrestaShop\Settings;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\HttpReply;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\WebhookHandler;

if (!defined('_PS_VERSION_')) {
    exit;
}

/**
 * Receives transaction.settled and hands it to the kernel's WebhookHandler: the unsigned body
 * only names a transaction, the order holding that code is brought in line with the service's
 * own record, and the answer follows the handler's status policy.
 *
 * @property Cryptocheckout $module
 */
class CryptocheckoutWebhookModuleFrontController extends JsonFrontController
{
    protected function reply(): HttpReply
    {
        // One byte more than the handler accepts, so it can tell an oversized body apart.
        $body = (string) file_get_contents('php://input', false, null, 0, WebhookHandler::MAX_BODY_BYTES + 1);
        $handled = $this->module->createWebhookHandler()->handle((string) ($_SERVER['REQUEST_METHOD'] ?? 'GET'), $body);
        if ($handled['verified']) {
            Configuration::updateValue(Settings::LAST_WEBHOOK, date('Y-m-d H:i:s'));
        }

        return $handled['reply'];
    }
}
