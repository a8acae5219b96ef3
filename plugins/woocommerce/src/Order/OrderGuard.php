<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Order;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Helper\Kernel;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\StoredCheckout;

/**
 * Keeps WooCommerce's own writes from undoing what the kernel did to an order:
 * - its unpaid-order cancel leaves an order whose payment window is still open;
 * - a write that did not see a payment never undoes it (README "Paid orders stay paid"). An object
 *   read before the booking that is about to be saved with an unpaid status without the transaction
 *   id the ledger holds as booked, and HPOS's sync on read copying an older posts row over an order
 *   it showed paid with one of the order's codes (even while that payment is still being booked),
 *   get the paid status, transaction id and date paid back without a status change (so no stock
 *   change), with a note and a warning. A merchant's change stands: the order screen's and bulk
 *   actions' are manual, and any other writer that read the order after the booking carries its
 *   transaction id.
 */
final class OrderGuard
{
    private function __construct()
    {
    }

    /**
     * woocommerce_cancel_unpaid_order
     *
     * @param mixed $cancel whether WooCommerce (or an earlier filter) would cancel the order
     */
    public static function allowUnpaidCancel($cancel, $order): bool
    {
        if (!$cancel || !$order instanceof \WC_Order) {
            return (bool) $cancel;
        }
        $id = (string) $order->get_id();
        $newest = Kernel::get($id)->checkouts($id)[0] ?? null;
        return $newest === null || !$newest->isPayable(time());
    }

    /** woocommerce_before_order_object_save, both order stores. @param mixed $order */
    public static function beforeSave($order): void
    {
        if ($order instanceof \WC_Order && $order->get_id() > 0 && array_key_exists('status', $order->get_changes())) {
            $transition = self::transition($order, false);
            if (!is_array($transition) || empty($transition['manual'])) {
                self::keepBookedPayment($order);
            }
        }
    }

    /**
     * woocommerce_hpos_post_record_migrated_on_read: repaired where it broke, not at the next save.
     * The object's data still holds what HPOS held: paid with one of the order's codes, that payment
     * (booked, or being booked right now) is kept whatever the older copy carries. @param mixed $order
     */
    public static function afterSyncOnRead($order): void
    {
        $held = $order instanceof \WC_Order ? $order->get_data() : [];
        $paid = in_array($held['status'] ?? '', WooCommerceOrderPort::PAID_STATUSES, true);
        if ($held !== [] && self::keepBookedPayment($order, $paid ? strtolower((string) $held['transaction_id']) : null)) {
            $order->save();
        }
    }

    /**
     * Puts the payment of $code, or else the booked one, back on $order when it is about to lose it,
     * in the paid status the object was read with, or payment_complete()'s; true when it did.
     */
    private static function keepBookedPayment(\WC_Order $order, ?string $code = null): bool
    {
        $status = (string) $order->get_status('edit');
        if (in_array($status, WooCommerceOrderPort::PAID_STATUSES, true)) {
            return false;
        }
        $id = (string) $order->get_id();
        $booked = array_values(array_filter(Kernel::get()->checkouts($id), static function (StoredCheckout $checkout) use ($code): bool {
            return $code === null ? $checkout->resolution === StoredCheckout::RESOLUTION_BOOKED : $checkout->transactionCode === $code;
        }))[0] ?? null;
        if ($booked === null || ($code === null && strtolower((string) $order->get_transaction_id('edit')) === $booked->transactionCode)) {
            return false;
        }
        $paidStatus = in_array($order->get_data()['status'], WooCommerceOrderPort::PAID_STATUSES, true) ? $order->get_data()['status']
            : apply_filters('woocommerce_payment_complete_order_status', $order->needs_processing() ? 'processing' : 'completed', $order->get_id(), $order);
        $paidAt = $order->get_date_paid('edit') ?? ($order->get_data()['date_paid'] ?? null);
        $order->set_status($paidStatus);
        $order->set_transaction_id($booked->transactionCode);
        $order->set_date_paid($paidAt ?? $booked->checkedAt ?? time());
        self::transition($order, true);
        $order->add_order_note(sprintf(
            /* translators: 1: transaction code, 2: order status the save tried to set */
            __('Crypto Checkout: a save that had not seen the payment of transaction %1$s tried to set the order to "%2$s"; the order keeps its booked payment.', 'cryptocheckout-for-woocommerce'),
            $booked->transactionCode,
            wc_get_order_status_name($status)
        ));
        Kernel::log('warning', sprintf('A save that had not seen the booked payment tried to set the order to "%s"; the payment was kept.', $status), ['order' => $id, 'transaction' => $booked->transactionCode]);
        return true;
    }

    /**
     * The order's pending status change (private to WC_Order until save()); cleared, the save writes
     * the status without the status hooks and note. @return mixed array{from, to, note, manual} or false
     */
    private static function transition(\WC_Order $order, bool $clear)
    {
        return \Closure::bind(static function (\WC_Order $order, bool $clear) {
            $transition = $order->status_transition;
            if ($clear) {
                $order->status_transition = false;
            }
            return $transition;
        }, null, \WC_Order::class)($order, $clear);
    }
}
