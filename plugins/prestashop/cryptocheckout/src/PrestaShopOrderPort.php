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

/**
 * PrestaShop's order as the kernel needs it: its state as PrestaShop shows it, merchant's changes
 * included (a hold has a module state of its own, so the kernel's recorded state is not needed);
 * payments as OrderPayment rows whose transaction id is the code; state changes through
 * Order::setCurrentState() (PrestaShop's e-mails and hooks); the log; and the module's notes:
 * private messages of the order's thread, which 8.1's order page lists in its Messages card (the
 * buyer never sees them), and for the module's panel those versions before 1.2.0 wrote to the
 * old Message table.
 */
final class PrestaShopOrderPort implements OrderPort
{
    /** Every note and log line starts with it; it is how the module finds its notes among the buyer's messages. */
    public const PREFIX = 'Crypto Checkout:';

    /** PrestaShopLogger's severities: informative, warning, error. */
    private const SEVERITY = ['debug' => 1, 'info' => 1, 'warning' => 2, 'error' => 3];

    /** @var \PaymentModule */
    private $module;

    public function __construct(\PaymentModule $module)
    {
        $this->module = $module;
    }

    public function orderState(string $orderId, ?string $recordedState): string
    {
        // Read from the table, not through Order: the object cache may hold what this request saw
        // before another request (or the merchant) changed the order.
        $idState = \Db::getInstance()->getValue('SELECT `current_state` FROM `' . _DB_PREFIX_ . 'orders` WHERE `id_order` = ' . (int) $orderId, false);

        return OrderStates::toKernel((int) $idState);
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
        // Booked before the order enters the paid state: PrestaShop then finds the order covered
        // and adds no payment of its own.
        if (!self::order((int) $orderId)->addOrderPayment($decision->checkout->fiatAmount, $this->module->displayName, $decision->transactionCode())) {
            throw new \RuntimeException(sprintf('PrestaShop did not save the payment of transaction %s on order %d.', $decision->transactionCode(), (int) $orderId));
        }
    }

    public function changeOrderState(string $orderId, string $state, Decision $decision): bool
    {
        if ($this->orderState($orderId, null) === $state) {
            return false;
        }
        $order = self::order((int) $orderId);
        $order->setCurrentState(OrderStates::idFor($state));
        // A booked payment's note carries the rate the checkout locked, when the service sent one
        // ("Priced at 1 EUR = … USD (sources), held until …"): the order turns paid once.
        self::note($order, $decision->noteWithPriceLine());
        return true;
    }

    public function notifyOwner(string $orderId, Decision $decision): void
    {
        self::note(self::order((int) $orderId), $decision->note);
    }

    /**
     * PrestaShop's log (Advanced Parameters > Logs), each entry tied to its order, errors at
     * severity 3; the step-by-step trace (debug) only with debug logging on.
     */
    public function log(string $level, string $message, array $context = []): void
    {
        if ($level === 'debug' && Settings::get(Settings::DEBUG) !== '1') {
            return;
        }
        $details = [];
        foreach ($context as $key => $value) {
            if ($key !== 'order' && $value !== null && $value !== '') {
                $details[] = $key . ' ' . (is_bool($value) ? ($value ? 'yes' : 'no') : (string) $value);
            }
        }
        // The decisions' notes start with the prefix already.
        $line = (strpos($message, self::PREFIX) === 0 ? '' : self::PREFIX . ' ') . $message . ($details === [] ? '' : ' [' . implode(', ', $details) . ']');
        $idOrder = isset($context['order']) && is_numeric($context['order']) ? (int) $context['order'] : null;
        \PrestaShopLogger::addLog($line, self::SEVERITY[$level] ?? 2, null, $idOrder === null ? null : 'Order', $idOrder, true);
    }

    /** The order as it is now, not as the object cache of this request may still hold it. */
    public static function order(int $idOrder): \Order
    {
        \Cache::clean('objectmodel_Order_' . $idOrder . '_*');
        $order = new \Order($idOrder);
        if (!\Validate::isLoadedObject($order)) {
            throw new \RuntimeException(sprintf('Order %d no longer exists.', $idOrder));
        }

        return $order;
    }

    /** Adds a private note to the order's thread, opening the thread when the order has none. */
    public static function note(\Order $order, string $note): void
    {
        self::addMessage($order, $note, true, 0);
    }

    /**
     * Adds a message to the order's thread as PrestaShop's order page does: private (a note for the
     * merchant, from no employee) or public (from $idEmployee: the buyer reads it on their order page).
     */
    public static function addMessage(\Order $order, string $text, bool $private, int $idEmployee): void
    {
        $customer = new \Customer((int) $order->id_customer);
        $idThread = (int) \CustomerThread::getIdCustomerThreadByEmailAndIdOrder((string) $customer->email, (int) $order->id);
        if ($idThread === 0) {
            $thread = new \CustomerThread();
            $thread->id_contact = 0;
            $thread->id_customer = (int) $order->id_customer;
            $thread->id_shop = (int) $order->id_shop;
            $thread->id_order = (int) $order->id;
            $thread->id_lang = (int) $order->id_lang;
            $thread->email = (string) $customer->email;
            // Closed: a note for the merchant is not a buyer's question waiting in Customer Service.
            $thread->status = 'closed';
            $thread->token = \Tools::passwdGen(12);
            if (!$thread->add()) {
                throw new \RuntimeException(sprintf('PrestaShop did not save the message thread of order %d.', (int) $order->id));
            }
            $idThread = (int) $thread->id;
        }
        $message = new \CustomerMessage();
        $message->id_customer_thread = $idThread;
        $message->id_employee = $idEmployee;
        $message->message = $text;
        $message->private = $private;
        $message->read = true;
        if (!$message->add()) {
            throw new \RuntimeException(sprintf('PrestaShop did not save a note on order %d.', (int) $order->id));
        }
    }

    /** @return list<array{date: string, text: string}> the module's notes on an order, oldest first */
    public static function notes(int $idOrder): array
    {
        $mine = "LIKE '" . pSQL(self::PREFIX) . "%'";
        $rows = \Db::getInstance()->executeS(
            'SELECT `date_add`, `message`, 0 AS `newer`, `id_message` AS `id` FROM `' . _DB_PREFIX_ . 'message` WHERE `id_order` = ' . $idOrder . ' AND `message` ' . $mine
            . ' UNION ALL SELECT cm.`date_add`, cm.`message`, 1, cm.`id_customer_message` FROM `' . _DB_PREFIX_ . 'customer_message` cm'
            . ' JOIN `' . _DB_PREFIX_ . 'customer_thread` ct ON ct.`id_customer_thread` = cm.`id_customer_thread`'
            . ' WHERE ct.`id_order` = ' . $idOrder . ' AND cm.`private` = 1 AND cm.`id_employee` = 0 AND cm.`message` ' . $mine
            . ' ORDER BY `date_add`, `newer`, `id`',
            true,
            false
        );

        return array_map(static function (array $row): array {
            return ['date' => (string) $row['date_add'], 'text' => (string) $row['message']];
        }, is_array($rows) ? $rows : []);
    }
}
