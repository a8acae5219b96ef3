<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

declare(strict_types=1);

namespace CryptoCheckout\PrestaShop;

use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\Decision;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\OrderPort;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\PollPolicy;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\StoredCheckout;

/**
 * PrestaShop's side of the kernel: checkouts and claims in the module's tables, the order's state
 * as PrestaShop shows it (the merchant's own changes included), payments as OrderPayment rows
 * carrying the transaction code as their transaction id, state changes through
 * Order::setCurrentState() (so PrestaShop sends its e-mails and runs its hooks), and notes as
 * private messages of the order (OrderNotes), which the order page's Messages card and the
 * module's panel list.
 */
final class PrestaShopOrderPort implements OrderPort
{
    /** @var \PaymentModule */
    private $module;
    /** @var CheckoutRepository */
    private $checkouts;

    public function __construct(\PaymentModule $module, ?CheckoutRepository $checkouts = null)
    {
        $this->module = $module;
        $this->checkouts = $checkouts ?? new CheckoutRepository();
    }

    public function findOrderByTransactionCode(string $transactionCode): ?string
    {
        $idOrder = $this->checkouts->findOrder($transactionCode);

        return $idOrder === null ? null : (string) $idOrder;
    }

    public function checkouts(string $orderId): array
    {
        return $this->checkouts->checkouts((int) $orderId);
    }

    public function addCheckout(string $orderId, StoredCheckout $checkout): void
    {
        $this->checkouts->add((int) $orderId, $checkout);
    }

    public function recordCheck(string $orderId, StoredCheckout $checkout): void
    {
        $this->checkouts->recordCheck((int) $orderId, $checkout);
    }

    public function recordApplied(string $orderId, StoredCheckout $checkout): void
    {
        $this->checkouts->recordApplied((int) $orderId, $checkout);
    }

    public function orderState(string $orderId): string
    {
        // Read from the table, not through Order: the object cache may hold what this request saw
        // before another request (or the merchant) changed the order.
        $idState = \Db::getInstance()->getValue('SELECT `current_state` FROM `' . _DB_PREFIX_ . 'orders` WHERE `id_order` = ' . (int) $orderId, false);

        return OrderStates::toKernel((int) $idState);
    }

    public function readClaim(string $orderId): ?string
    {
        return $this->checkouts->readClaim((int) $orderId);
    }

    public function swapClaim(string $orderId, ?string $expected, ?string $replacement): bool
    {
        return $this->checkouts->swapClaim((int) $orderId, $expected, $replacement);
    }

    public function isPaymentBooked(string $orderId, string $transactionCode): bool
    {
        // Payments hang off the order's reference, as PrestaShop keeps them.
        return (bool) \Db::getInstance()->getValue(
            'SELECT 1 FROM `' . _DB_PREFIX_ . 'order_payment` p JOIN `' . _DB_PREFIX_ . 'orders` o ON o.`reference` = p.`order_reference`'
            . ' WHERE o.`id_order` = ' . (int) $orderId . " AND LOWER(p.`transaction_id`) = '" . pSQL(strtolower($transactionCode)) . "'",
            false
        );
    }

    public function bookPayment(string $orderId, Decision $decision): void
    {
        $order = self::loadOrder($orderId);
        // Booked before the order enters the paid state: PrestaShop then finds the order covered
        // and adds no payment of its own.
        if (!$order->addOrderPayment($decision->checkout->fiatAmount, $this->module->displayName, $decision->transactionCode())) {
            throw new \RuntimeException(sprintf('PrestaShop did not save the payment of transaction %s on order %d.', $decision->transactionCode(), (int) $orderId));
        }
    }

    public function changeOrderState(string $orderId, string $state, Decision $decision): void
    {
        if ($this->orderState($orderId) === $state) {
            return;
        }
        $order = self::loadOrder($orderId);
        $order->setCurrentState(OrderStates::idFor($state));
        OrderNotes::add($order, $decision->note);
    }

    public function notifyOwner(string $orderId, Decision $decision): void
    {
        // A held late payment was just noted by its state change; the owner is told once.
        if (OrderNotes::last((int) $orderId) !== $decision->note) {
            OrderNotes::add(self::loadOrder($orderId), $decision->note);
        }
    }

    public function dueCheckouts(PollPolicy $policy, int $now): array
    {
        return $this->checkouts->due($policy, $now);
    }

    public function log(string $level, string $message, array $context = []): void
    {
        Log::write($level, $message, $context);
    }

    /** The order as it is now, not as the object cache of this request may still hold it. */
    private static function loadOrder(string $orderId): \Order
    {
        \Cache::clean('objectmodel_Order_' . (int) $orderId . '_*');
        $order = new \Order((int) $orderId);
        if (!\Validate::isLoadedObject($order)) {
            throw new \RuntimeException(sprintf('Order %d no longer exists.', (int) $orderId));
        }

        return $order;
    }
}
