<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Order;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Gateway\Gateway;
use CryptoCheckout\WooCommerce\Helper\Logger;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\Decision;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\OrderPort;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\OrderState;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\PollPolicy;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\StoredCheckout;

/**
 * WooCommerce under the kernel: checkouts in order meta (CheckoutStore), the claim in the options
 * table (ClaimStore), order states from order statuses, and the side effects through the order
 * CRUD API (payment_complete, update_status, order notes), so HPOS and legacy storage both work.
 * Every method reads the order afresh: a request never acts on a copy another request has changed.
 */
final class WooCommerceOrderPort implements OrderPort
{
    /** Why the plugin put an order on hold; the shared states underpaid and late_payment_review are on-hold orders with one of these. */
    public const HOLD_REASON = '_cryptocheckout_hold_reason';
    public const HOLD_UNDERPAID = 'underpaid';
    public const HOLD_LATE_PAYMENT = 'late_payment';
    /** The owner notices already written (transaction|action|reason), so each is written once. */
    public const NOTIFIED = '_cryptocheckout_notified';

    private CheckoutStore $store;
    private ClaimStore $claims;
    private Logger $logger;

    public function __construct(CheckoutStore $store, ClaimStore $claims, Logger $logger)
    {
        $this->store = $store;
        $this->claims = $claims;
        $this->logger = $logger;
    }

    public function findOrderByTransactionCode(string $transactionCode): ?string
    {
        return OrderQuery::orderByCode($transactionCode);
    }

    public function checkouts(string $orderId): array
    {
        $order = self::order($orderId);
        return $order === null ? [] : $this->store->checkouts($order);
    }

    public function addCheckout(string $orderId, StoredCheckout $checkout): void
    {
        $this->store->add(self::requireOrder($orderId), $checkout, time());
    }

    public function recordCheck(string $orderId, StoredCheckout $checkout): void
    {
        $this->store->writeCheck(self::requireOrder($orderId), $checkout, time());
    }

    public function recordApplied(string $orderId, StoredCheckout $checkout): void
    {
        $this->store->writeApplied(self::requireOrder($orderId), $checkout, time());
    }

    public function orderState(string $orderId): string
    {
        $order = self::order($orderId);
        return $order === null ? OrderState::CANCELLED : self::stateOf($order);
    }

    /** The shared state of a WooCommerce order: its status, and why the plugin put it on hold. */
    public static function stateOf(\WC_Order $order): string
    {
        if ($order->has_status(['processing', 'completed', 'refunded'])) {
            return OrderState::PAID;
        }
        if ($order->has_status('cancelled')) {
            return OrderState::CANCELLED;
        }
        if ($order->has_status('on-hold')) {
            $reason = (string) $order->get_meta(self::HOLD_REASON);
            if ($reason === self::HOLD_UNDERPAID) {
                return OrderState::UNDERPAID;
            }
            if ($reason === self::HOLD_LATE_PAYMENT) {
                return OrderState::LATE_PAYMENT_REVIEW;
            }
        }
        return OrderState::AWAITING_PAYMENT;
    }

    public function readClaim(string $orderId): ?string
    {
        return $this->claims->read($orderId);
    }

    public function swapClaim(string $orderId, ?string $expected, ?string $replacement): bool
    {
        return $this->claims->swap($orderId, $expected, $replacement);
    }

    /** payment_complete($code) stores the code as the transaction id and sets the date paid. */
    public function isPaymentBooked(string $orderId, string $transactionCode): bool
    {
        $order = self::order($orderId);
        return $order !== null
            && strtolower((string) $order->get_transaction_id()) === strtolower($transactionCode)
            && $order->get_date_paid() !== null;
    }

    public function bookPayment(string $orderId, Decision $decision): void
    {
        $order = self::requireOrder($orderId);
        $code = $decision->transactionCode();
        $this->restorePaymentMethod($order);
        $order->delete_meta_data(self::HOLD_REASON);
        $order->save();
        $order->add_order_note($decision->note);
        $order->payment_complete($code);

        $order = self::requireOrder($orderId);
        if (!$this->isPaymentBooked($orderId, $code)) {
            // A status payment_complete() does not take (a custom one): the payment is booked all the same.
            $order->set_transaction_id($code);
            $order->set_date_paid(time());
            $order->save();
        }
    }

    public function changeOrderState(string $orderId, string $state, Decision $decision): void
    {
        $order = self::requireOrder($orderId);
        if (self::stateOf($order) === $state) {
            return;
        }
        $status = [
            OrderState::PAID => 'processing',
            OrderState::UNDERPAID => 'on-hold',
            OrderState::LATE_PAYMENT_REVIEW => 'on-hold',
            OrderState::CANCELLED => 'cancelled',
            OrderState::AWAITING_PAYMENT => 'pending',
        ][$state] ?? null;
        if ($status === null) {
            throw new \InvalidArgumentException('Unknown order state ' . $state);
        }
        $reason = [OrderState::UNDERPAID => self::HOLD_UNDERPAID, OrderState::LATE_PAYMENT_REVIEW => self::HOLD_LATE_PAYMENT][$state] ?? null;
        if ($reason === null) {
            $order->delete_meta_data(self::HOLD_REASON);
        } else {
            $order->update_meta_data(self::HOLD_REASON, $reason);
        }
        $this->markNotified($order, $decision);
        $order->save();
        if ($order->has_status($status)) {
            // Same WooCommerce status, another reason (on hold): no status change writes the note.
            $order->add_order_note($decision->note);
            return;
        }
        $order->update_status($status, $decision->note);
    }

    public function notifyOwner(string $orderId, Decision $decision): void
    {
        $order = self::requireOrder($orderId);
        if (in_array(self::noticeKey($decision), self::notified($order), true)) {
            return;
        }
        $this->markNotified($order, $decision);
        $order->save();
        $order->add_order_note($decision->note);
    }

    public function dueCheckouts(PollPolicy $policy, int $now): array
    {
        foreach (OrderQuery::legacyWatchedOrders($now, $policy->batchSize) as $id) {
            $order = self::order((string) $id);
            if ($order !== null) {
                $this->store->adopt($order, $now);
            }
        }
        $due = [];
        foreach (OrderQuery::dueOrders($now, $policy->batchSize) as $id) {
            $order = self::order((string) $id);
            if ($order === null) {
                continue;
            }
            $checkouts = array_values(array_filter($this->store->checkouts($order), static function (StoredCheckout $checkout) use ($policy, $now): bool {
                return $policy->isDue($checkout, $now);
            }));
            if ($checkouts === []) {
                // The index said due, the checkouts say not (one left its watch meanwhile): correct the index.
                $this->store->refreshPollIndex($order, $now);
                continue;
            }
            usort($checkouts, [PollPolicy::class, 'compare']);
            foreach ($checkouts as $checkout) {
                $due[] = [(string) $id, $checkout->transactionCode];
            }
        }
        return array_slice($due, 0, $policy->batchSize);
    }

    public function log(string $level, string $message, array $context = []): void
    {
        $this->logger->log($level, $message, $context);
    }

    /**
     * WooCommerce's Store API resets a pending order's payment method to the default gateway when
     * the cart changes around the block checkout's "Place order" click; the order's own checkout
     * says whose payment it is, so the payment method is put back before the payment is booked.
     */
    private function restorePaymentMethod(\WC_Order $order): void
    {
        if ($order->get_payment_method() === Gateway::ID) {
            return;
        }
        $previous = (string) $order->get_payment_method();
        $gateways = function_exists('WC') ? WC()->payment_gateways()->payment_gateways() : [];
        $gateway = $gateways[Gateway::ID] ?? null;
        if ($gateway instanceof \WC_Payment_Gateway) {
            $order->set_payment_method($gateway);
        } else {
            $order->set_payment_method(Gateway::ID);
        }
        $order->add_order_note(sprintf(
            /* translators: %s: id of the payment method the order showed */
            __('Crypto Checkout: the order was paid through Crypto Checkout; its payment method (changed to "%s" after the checkout was created) is set back to Crypto Checkout.', 'cryptocheckout-for-woocommerce'),
            $previous === '' ? __('none', 'cryptocheckout-for-woocommerce') : $previous
        ));
    }

    private function markNotified(\WC_Order $order, Decision $decision): void
    {
        $keys = self::notified($order);
        $keys[] = self::noticeKey($decision);
        $order->update_meta_data(self::NOTIFIED, (string) wp_json_encode(array_values(array_unique($keys))));
    }

    /** @return list<string> */
    private static function notified(\WC_Order $order): array
    {
        $keys = json_decode((string) $order->get_meta(self::NOTIFIED), true);
        return is_array($keys) ? array_values(array_filter($keys, 'is_string')) : [];
    }

    private static function noticeKey(Decision $decision): string
    {
        return implode('|', [$decision->transactionCode(), $decision->action, $decision->reason]);
    }

    private static function order(string $orderId): ?\WC_Order
    {
        $order = ctype_digit($orderId) ? wc_get_order((int) $orderId) : false;
        return $order instanceof \WC_Order ? $order : null;
    }

    private static function requireOrder(string $orderId): \WC_Order
    {
        $order = self::order($orderId);
        if ($order === null) {
            throw new \RuntimeException(sprintf('Order %s does not exist.', $orderId));
        }
        return $order;
    }
}
