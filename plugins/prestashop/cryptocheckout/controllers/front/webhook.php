<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

use CryptoCheckout\PrestaShop\Log;
use CryptoCheckout\PrestaShop\Settings;
use CryptoCheckout\PrestaShop\TransactionRepository;
use CryptoCheckout\PrestaShop\Vendor\Client\Exception\InvalidWebhookException;
use CryptoCheckout\PrestaShop\Vendor\Client\WebhookParser;

if (!defined('_PS_VERSION_')) {
    exit;
}

/**
 * Receives transaction.settled. The body is unsigned, so it is only a hint naming a transaction:
 * the order is reconciled from the service's own GET /transaction for the code stored on it.
 *
 * @property Cryptocheckout $module
 */
class CryptocheckoutWebhookModuleFrontController extends ModuleFrontController
{
    /** The service never sends more; anything larger is not a webhook. */
    const MAX_BODY_BYTES = 65536;

    public $ajax = true;

    /** @var int */
    private $httpStatus = 200;
    /** @var array<string, mixed> */
    private $payload = [];

    public function postProcess()
    {
        if (($_SERVER['REQUEST_METHOD'] ?? 'GET') !== 'POST') {
            header('Allow: POST');
            $this->fail(405, 'method_not_allowed', 'Send the webhook with POST.', null);

            return;
        }
        $body = (string) file_get_contents('php://input', false, null, 0, self::MAX_BODY_BYTES + 1);
        if (strlen($body) > self::MAX_BODY_BYTES) {
            $this->fail(413, 'payload_too_large', 'The webhook body is larger than 64 KiB.', 'body');

            return;
        }
        try {
            $hint = WebhookParser::parse($body);
        } catch (InvalidWebhookException $exception) {
            Log::debug('refused a webhook: ' . $exception->getMessage());
            // As the service's own API does, an unreadable body is reported as field "body".
            $field = $exception->getField();
            $this->fail(400, 'invalid_request', $exception->getMessage(), $field === '' ? 'body' : $field);

            return;
        }
        Configuration::updateValue(Settings::LAST_WEBHOOK, date('Y-m-d H:i:s'));

        $row = (new TransactionRepository())->findByTransactionCode((string) $hint['transaction_code']);
        if ($row === null) {
            Log::debug('webhook for an unknown transaction ' . $hint['transaction_code'] . ' ignored');
            $this->payload = ['status' => 'success', 'data' => ['result' => 'ignored']];

            return;
        }
        $result = $this->module->createReconciliation()->reconcile((int) $row['id_order']);
        $this->payload = ['status' => 'success', 'data' => ['result' => $result['outcome']]];
    }

    public function displayAjax()
    {
        http_response_code($this->httpStatus);
        header('Content-Type: application/json; charset=utf-8');
        $this->ajaxRender(json_encode($this->payload, JSON_UNESCAPED_SLASHES));
    }

    private function fail($status, $code, $message, $field)
    {
        $this->httpStatus = $status;
        $error = ['code' => $code, 'message' => $message];
        if ($field !== null) {
            $error['field'] = $field;
        }
        $this->payload = ['status' => 'error', 'error' => $error];
    }
}
