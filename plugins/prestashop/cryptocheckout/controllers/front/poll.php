<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

use CryptoCheckout\PrestaShop\Settings;
use CryptoCheckout\PrestaShop\TransactionRepository;

if (!defined('_PS_VERSION_')) {
    exit;
}

/**
 * Reconciles open orders, for a cron line (see the module's configuration page):
 *   curl -fsS "https://shop.example/module/cryptocheckout/poll?token=<token>"
 * Webhooks are sent once and never retried; this catches whatever a missed webhook did not bring.
 *
 * @property Cryptocheckout $module
 */
class CryptocheckoutPollModuleFrontController extends ModuleFrontController
{
    /** Orders checked per run; the least recently checked go first, so a backlog drains over runs. */
    const BATCH_SIZE = 50;

    public $ajax = true;

    /** @var int */
    private $httpStatus = 200;
    /** @var array<string, mixed> */
    private $payload = [];

    public function postProcess()
    {
        $expected = (string) Configuration::get(Settings::POLL_TOKEN);
        $token = (string) Tools::getValue('token', '');
        if ($expected === '' || $token === '' || !hash_equals($expected, $token)) {
            $this->httpStatus = 403;
            $this->payload = ['status' => 'error', 'error' => ['code' => 'forbidden', 'message' => 'Pass the poll token shown on the module configuration page.', 'field' => 'token']];

            return;
        }
        @set_time_limit(120);
        $reconciliation = $this->module->createReconciliation();
        $results = [];
        foreach ((new TransactionRepository())->findOrdersToPoll(self::BATCH_SIZE) as $idOrder) {
            $result = $reconciliation->reconcile($idOrder);
            $results[] = ['id_order' => $idOrder, 'result' => $result['outcome'], 'action' => $result['action'] ?? null];
        }
        Configuration::updateValue(Settings::LAST_POLL, date('Y-m-d H:i:s'));
        $this->payload = ['status' => 'success', 'data' => ['checked' => count($results), 'orders' => $results]];
    }

    public function displayAjax()
    {
        http_response_code($this->httpStatus);
        header('Content-Type: application/json; charset=utf-8');
        $this->ajaxRender(json_encode($this->payload, JSON_UNESCAPED_SLASHES));
    }
}
