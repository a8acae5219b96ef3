<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

declare(strict_types=1);

namespace CryptoCheckout\PrestaShop;

use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\Claim;

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
    /** @var CheckoutRepository */
    private $checkouts;

    public function __construct(string $moduleName, ?CheckoutRepository $checkouts = null)
    {
        $this->moduleName = $moduleName;
        $this->checkouts = $checkouts ?? new CheckoutRepository();
    }

    /**
     * Cancels the module's orders placed before $now - CANCEL_AFTER_SECONDS that are still
     * awaiting payment and hold no checkout.
     *
     * @param int $now Unix seconds
     * @return list<int> the cancelled order ids
     */
    public function cancelDue(int $now): array
    {
        $cancelled = [];
        foreach ($this->due($now) as $idOrder) {
            if ($this->cancel($idOrder, $now)) {
                $cancelled[] = $idOrder;
            }
        }

        return $cancelled;
    }

    /**
     * The orders cancelDue() would look at: the module's, placed before $now - CANCEL_AFTER_SECONDS,
     * still awaiting payment, holding no checkout; at most BATCH_SIZE, oldest first.
     *
     * @param int $now Unix seconds
     * @return list<int>
     */
    public function due(int $now): array
    {
        $rows = \Db::getInstance()->executeS(
            'SELECT o.`id_order` FROM `' . _DB_PREFIX_ . 'orders` o'
            . ' LEFT JOIN `' . CheckoutRepository::table() . '` c ON c.`id_order` = o.`id_order`'
            . " WHERE o.`module` = '" . pSQL($this->moduleName) . "'"
            . ' AND o.`current_state` = ' . OrderStates::id(OrderStates::AWAITING)
            . " AND o.`date_add` < '" . pSQL(date('Y-m-d H:i:s', $now - self::CANCEL_AFTER_SECONDS)) . "'"
            . ' AND c.`id_checkout` IS NULL'
            . ' ORDER BY o.`id_order` LIMIT ' . self::BATCH_SIZE,
            true,
            false
        );

        return array_map('intval', array_column(is_array($rows) ? $rows : [], 'id_order'));
    }

    /** Cancels one order under its claim, so a buyer's retry starting at the same moment wins or waits. */
    private function cancel(int $idOrder, int $now): bool
    {
        $current = $this->checkouts->readClaim($idOrder);
        if ($current !== null && !Claim::isExpired($current, $now)) {
            return false;
        }
        $marker = Claim::create('cancel_abandoned', '', $now)->marker();
        if (!$this->checkouts->swapClaim($idOrder, $current, $marker)) {
            return false;
        }
        try {
            \Cache::clean('objectmodel_Order_' . $idOrder . '_*');
            $order = new \Order($idOrder);
            $state = (int) \Db::getInstance()->getValue('SELECT `current_state` FROM `' . _DB_PREFIX_ . 'orders` WHERE `id_order` = ' . $idOrder, false);
            if ($this->checkouts->checkouts($idOrder) !== [] || $state !== OrderStates::id(OrderStates::AWAITING)) {
                return false;
            }
            $order->setCurrentState((int) \Configuration::get('PS_OS_CANCELED'));
            OrderNotes::add($order, OrderNotes::PREFIX . ' no checkout was ever created for this order (the payment service could not be reached when it was placed, and the buyer did not try again within a day), so it was cancelled. Nothing was paid.');
            Log::write('info', 'Cancelled an order that never got a checkout.', ['order' => (string) $idOrder]);

            return true;
        } finally {
            $this->checkouts->swapClaim($idOrder, $marker, null);
        }
    }
}
