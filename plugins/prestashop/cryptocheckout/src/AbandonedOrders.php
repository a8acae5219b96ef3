<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

declare(strict_types=1);

namespace CryptoCheckout\PrestaShop;

use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\Kernel;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\Ledger\LedgerSchema;

/**
 * Orders that never got a checkout (the service could not be reached when the buyer placed them,
 * and the buyer never used the retry link) have nothing the poll could look up. The poll gives
 * them an end: still "Awaiting crypto payment" a day after they were placed, they are cancelled
 * with a note. Nothing can have been paid on them, since no payment address was ever shown.
 */
final class AbandonedOrders
{
    /** How long an order without a checkout waits for the buyer's retry (seconds). */
    public const CANCEL_AFTER_SECONDS = 86400;

    /** At most this many orders per poll. */
    public const BATCH_SIZE = 20;

    /** @var string */
    private $moduleName;
    /** @var Kernel */
    private $kernel;

    public function __construct(string $moduleName, Kernel $kernel)
    {
        $this->moduleName = $moduleName;
        $this->kernel = $kernel;
    }

    /**
     * Cancels them, each under its claim in the ledger (a buyer's retry at that moment wins or waits).
     *
     * @return list<int> the cancelled order ids
     */
    public function cancelDue(int $now): array
    {
        $ledger = $this->kernel->ledger();
        $cancelled = [];
        foreach ($this->due($now) as $idOrder) {
            $claim = $ledger->claim((string) $idOrder, 'cancel_abandoned', '-', $now);
            if ($claim === null) {
                continue;
            }
            try {
                $order = PrestaShopOrderPort::order($idOrder);
                if ($ledger->checkouts((string) $idOrder) === [] && (int) $order->current_state === OrderStates::id(OrderStates::AWAITING)) {
                    $order->setCurrentState((int) \Configuration::get('PS_OS_CANCELED'));
                    PrestaShopOrderPort::note($order, PrestaShopOrderPort::PREFIX . ' no checkout was ever created for this order (the payment service could not be reached when it was placed, and the buyer did not try again within a day), so it was cancelled. Nothing was paid.');
                    $this->kernel->orders()->log('info', 'Cancelled an order that never got a checkout.', ['order' => (string) $idOrder]);
                    $cancelled[] = $idOrder;
                }
            } finally {
                $ledger->release($claim);
            }
        }

        return $cancelled;
    }

    /** @return list<int> the module's orders awaiting payment for a day without a checkout, oldest first */
    public function due(int $now): array
    {
        $rows = \Db::getInstance()->executeS(
            'SELECT o.`id_order` FROM `' . _DB_PREFIX_ . 'orders` o'
            . ' LEFT JOIN `' . _DB_PREFIX_ . LedgerSchema::CHECKOUTS . '` c ON c.`order_id` = CAST(o.`id_order` AS CHAR)'
            . " WHERE o.`module` = '" . pSQL($this->moduleName) . "'"
            . ' AND o.`current_state` = ' . OrderStates::id(OrderStates::AWAITING)
            . " AND o.`date_add` < '" . pSQL(date('Y-m-d H:i:s', $now - self::CANCEL_AFTER_SECONDS)) . "'"
            . ' AND c.`transaction_code` IS NULL'
            . ' ORDER BY o.`id_order` LIMIT ' . self::BATCH_SIZE,
            true,
            false
        );

        return array_map('intval', array_column(is_array($rows) ? $rows : [], 'id_order'));
    }
}
