<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Order;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Gateway\Gateway;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\Decision;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\OrderPort;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\OrderState;

/**
 * The WooCommerce order as the kernel sees it (status, payment, notes) through the CRUD API only,
 * and WooCommerce's log (source "cryptocheckout"; debug and info only with the debug setting). Every
 * read goes to the database: wc_get_order() hands out a copy cached for the request.
 */
final class WooCommerceOrderPort implements OrderPort
{
    public const PAID_STATUSES = ['processing', 'completed', 'refunded'];

    private const STATUS_OF_STATE = [
        OrderState::PAID => 'processing',
        OrderState::UNDERPAID => 'on-hold',
        OrderState::LATE_PAYMENT_REVIEW => 'on-hold',
        OrderState::CANCELLED => 'cancelled',
        OrderState::AWAITING_PAYMENT => 'pending',
    ];

    private bool $debug;

    public function __construct(bool $debug)
    {
        $this->debug = $debug;
    }

    public function orderState(string $orderId, ?string $recordedState): string
    {
        $order = self::order($orderId);
        return $order === null ? OrderState::CANCELLED : self::stateOf((string) $order->get_status('edit'), $recordedState);
    }

    /**
     * The kernel's state of a WooCommerce status. Its one "on hold" is the hold the kernel recorded,
     * or the merchant's hold of an order the kernel had booked (their decision stands); any other
     * hold, pending, failed or a draft awaits payment.
     */
    public static function stateOf(string $status, ?string $recordedState): string
    {
        if ($status === 'on-hold' && in_array($recordedState, [OrderState::UNDERPAID, OrderState::LATE_PAYMENT_REVIEW, OrderState::PAID], true)) {
            return $recordedState === OrderState::PAID ? OrderState::LATE_PAYMENT_REVIEW : $recordedState;
        }
        return in_array($status, self::PAID_STATUSES, true) ? OrderState::PAID : ($status === 'cancelled' ? OrderState::CANCELLED : OrderState::AWAITING_PAYMENT);
    }

    /** payment_complete($code) stores the code as the transaction id and sets the date paid. */
    public function isPaymentBooked(string $orderId, string $transactionCode): bool
    {
        $order = self::order($orderId);
        return $order !== null && strtolower((string) $order->get_transaction_id('edit')) === strtolower($transactionCode) && $order->get_date_paid('edit') !== null;
    }

    public function bookPayment(string $orderId, Decision $decision): void
    {
        $order = self::requireOrder($orderId);
        $code = $decision->transactionCode();
        $this->restorePaymentMethod($order);
        // The payment's note carries the rate the checkout locked ("Priced at 1 EUR = … USD (sources),
        // held until …"), when the service sent one: written here, once, as the payment is booked.
        $order->add_order_note($decision->noteWithPriceLine());
        $order->payment_complete($code);
        if (!$this->isPaymentBooked($orderId, $code)) {
            // A status payment_complete() does not take (a draft, another plugin's): the payment is
            // booked all the same, as payment_complete() would have: transaction id and date (what
            // isPaymentBooked() and the order guard read) and the paid status.
            $this->log('warning', 'WooCommerce did not complete the payment of the order in its status; it is set to paid.', ['order' => $orderId, 'transaction' => $code]);
            $order = self::requireOrder($orderId);
            $order->set_transaction_id($code);
            $order->set_date_paid(time());
            $order->set_status(self::STATUS_OF_STATE[OrderState::PAID]);
            $order->save();
        }
    }

    public function changeOrderState(string $orderId, string $state, Decision $decision): bool
    {
        $status = self::STATUS_OF_STATE[$state];
        $order = self::requireOrder($orderId);
        if ($order->has_status($status)) {
            // Paid already (payment_complete), or on hold for another reason: the note says what changed.
            if ($status !== 'on-hold') {
                return false;
            }
            $order->add_order_note($decision->note);
            return true;
        }
        $order->update_status($status, $decision->note);
        return true;
    }

    public function notifyOwner(string $orderId, Decision $decision): void
    {
        self::requireOrder($orderId)->add_order_note($decision->note);
    }

    public function log(string $level, string $message, array $context = []): void
    {
        if (!function_exists('wc_get_logger') || (!$this->debug && in_array($level, ['debug', 'info'], true))) {
            return;
        }
        $details = [];
        foreach ($context as $key => $value) {
            $details[] = $key . ' ' . (is_bool($value) ? ($value ? 'yes' : 'no') : (string) $value);
        }
        $line = $details === [] ? $message : $message . ' (' . implode(', ', $details) . ')';
        wc_get_logger()->log($level, $line, ['source' => 'cryptocheckout']);
    }

    /** The order as it is in the database now (not a copy cached earlier in the request), or null. */
    public static function order(string $orderId): ?\WC_Order
    {
        if (!ctype_digit($orderId) || (int) $orderId <= 0) {
            return null;
        }
        try {
            return new \WC_Order((int) $orderId);
        } catch (\Exception $missing) {
            return null;
        }
    }

    private static function requireOrder(string $orderId): \WC_Order
    {
        $order = self::order($orderId);
        if ($order === null) {
            throw new \RuntimeException(sprintf('Order %s does not exist.', $orderId));
        }
        return $order;
    }

    /**
     * The Store API resets a pending order's payment method to the default gateway when the cart
     * changes around the block checkout's "Place order" click: it is put back before the booking.
     */
    private function restorePaymentMethod(\WC_Order $order): void
    {
        $previous = (string) $order->get_payment_method('edit');
        if ($previous === Gateway::ID) {
            return;
        }
        $order->set_payment_method(WC()->payment_gateways()->payment_gateways()[Gateway::ID] ?? Gateway::ID);
        $order->save();
        /* translators: %s: id of the payment method the order showed */
        $note = __('Crypto Checkout: the order was paid through Crypto Checkout; its payment method (changed to "%s" after the checkout was created) is set back to Crypto Checkout.', 'cryptocheckout-for-woocommerce');
        $order->add_order_note(sprintf($note, $previous === '' ? __('none', 'cryptocheckout-for-woocommerce') : $previous));
    }
}
