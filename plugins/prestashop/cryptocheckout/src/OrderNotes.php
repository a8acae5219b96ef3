<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

declare(strict_types=1);

namespace CryptoCheckout\PrestaShop;

/**
 * The module's notes on an order ("received 4.00 USD of 10.00 USD…", "a payment arrived after…"),
 * kept where PrestaShop 8.1's back office order page shows them: private messages in the order's
 * customer thread (the "Messages" card lists them; the buyer never sees private ones). Versions
 * before 1.2.0 wrote to the old Message table, which that page no longer shows; those notes are
 * still read for the module's own panel.
 */
final class OrderNotes
{
    /** Every note starts with it, which is how the module finds its own among the buyer's messages. */
    public const PREFIX = 'Crypto Checkout:';

    private function __construct()
    {
    }

    /** Adds a private note to the order's thread, opening the thread when the order has none. */
    public static function add(\Order $order, string $note): void
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
        $message->id_employee = 0;
        $message->message = $note;
        $message->private = true;
        $message->read = true;
        if (!$message->add()) {
            throw new \RuntimeException(sprintf('PrestaShop did not save a note on order %d.', (int) $order->id));
        }
    }

    /**
     * The module's notes on an order, oldest first, from the order's thread and from the old
     * Message table.
     *
     * @return list<array{date: string, text: string}>
     */
    public static function of(int $idOrder): array
    {
        $db = \Db::getInstance();
        $rows = array_merge(
            (array) $db->executeS(
                'SELECT cm.`date_add`, cm.`message` FROM `' . _DB_PREFIX_ . 'customer_message` cm'
                . ' JOIN `' . _DB_PREFIX_ . 'customer_thread` ct ON ct.`id_customer_thread` = cm.`id_customer_thread`'
                . ' WHERE ct.`id_order` = ' . $idOrder . ' AND cm.`private` = 1 AND cm.`id_employee` = 0'
                . " AND cm.`message` LIKE '" . pSQL(self::PREFIX) . "%'",
                true,
                false
            ),
            (array) $db->executeS(
                'SELECT `date_add`, `message` FROM `' . _DB_PREFIX_ . 'message`'
                . ' WHERE `id_order` = ' . $idOrder . " AND `message` LIKE '" . pSQL(self::PREFIX) . "%'",
                true,
                false
            )
        );
        // Oldest first; notes of the same second keep the order they were read in.
        foreach ($rows as $index => &$row) {
            $row['position'] = $index;
        }
        unset($row);
        usort($rows, static function (array $a, array $b): int {
            return [(string) $a['date_add'], $a['position']] <=> [(string) $b['date_add'], $b['position']];
        });

        return array_map(static function (array $row): array {
            return ['date' => (string) $row['date_add'], 'text' => (string) $row['message']];
        }, $rows);
    }

    /** The newest note of the module on the order, or null. */
    public static function last(int $idOrder): ?string
    {
        $notes = self::of($idOrder);

        return $notes === [] ? null : $notes[count($notes) - 1]['text'];
    }
}
