<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

use CryptoCheckout\PrestaShop\TransactionRepository;

if (!defined('_PS_VERSION_')) {
    exit;
}

/**
 * The payment status of one order as JSON, for the status widget of the confirmation and order
 * pages. The order's secure key is required. While the order is open, each request (at most one
 * every few seconds) checks the service, so a buyer who returns sees the payment promptly.
 *
 * @property Cryptocheckout $module
 */
class CryptocheckoutStatusModuleFrontController extends ModuleFrontController
{
    /** Minimum seconds between two checks of the service for the same order. */
    const CHECK_INTERVAL_SECONDS = 5;

    /** Statuses after which the widget stops asking. */
    const FINAL_STATES = [
        TransactionRepository::STATE_PAID,
        TransactionRepository::STATE_CANCELLED,
        TransactionRepository::STATE_LATE_REVIEW,
    ];

    public $ajax = true;

    /** @var int */
    private $httpStatus = 200;
    /** @var array<string, mixed> */
    private $payload = [];

    public function postProcess()
    {
        $order = new Order((int) Tools::getValue('id_order'));
        $key = (string) Tools::getValue('key', '');
        if (!Validate::isLoadedObject($order) || $order->module !== $this->module->name || $key === '' || !hash_equals((string) $order->secure_key, $key)) {
            $this->httpStatus = 404;
            $this->payload = ['status' => 'error', 'error' => ['code' => 'not_found', 'message' => 'No such order.', 'field' => 'id_order']];

            return;
        }
        $repository = new TransactionRepository();
        $row = $repository->findByOrder((int) $order->id);
        if ($row === null) {
            $this->httpStatus = 404;
            $this->payload = ['status' => 'error', 'error' => ['code' => 'not_found', 'message' => 'This order has no crypto payment.', 'field' => 'id_order']];

            return;
        }
        $lastChecked = $row['last_checked'] ? strtotime((string) $row['last_checked']) : 0;
        if (in_array($row['state'], TransactionRepository::OPEN_STATES, true) && (string) $row['transaction_code'] !== ''
            && time() - (int) $lastChecked >= self::CHECK_INTERVAL_SECONDS) {
            $this->module->createReconciliation()->reconcile((int) $order->id);
            $row = $repository->findByOrder((int) $order->id);
        }
        $state = (string) $row['state'];
        $this->payload = ['status' => 'success', 'data' => [
            'state' => $state,
            'label' => $this->module->stateLabel($state),
            'final' => in_array($state, self::FINAL_STATES, true),
        ]];
    }

    public function displayAjax()
    {
        http_response_code($this->httpStatus);
        header('Content-Type: application/json; charset=utf-8');
        $this->ajaxRender(json_encode($this->payload, JSON_UNESCAPED_SLASHES));
    }
}
