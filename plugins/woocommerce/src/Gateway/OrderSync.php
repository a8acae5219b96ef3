<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Gateway;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Helper\ClientFactory;
use CryptoCheckout\WooCommerce\Helper\Lock;
use CryptoCheckout\WooCommerce\Helper\Logger;
use CryptoCheckout\WooCommerce\Vendor\Client\Exception\CryptoCheckoutException;
use CryptoCheckout\WooCommerce\Vendor\Client\Reconciler;

/**
 * Brings one order in line with the service. Webhooks, the scheduled poll and the buyer's return all
 * end here: the decision is always taken on the authoritative GET /transaction for the transaction
 * code stored on the order (never on a webhook body), by the shared Reconciler, under a lock so an
 * order changes once however many of them race.
 */
final class OrderSync
{
    private Logger $logger;

    public function __construct(?Logger $logger = null)
    {
        $this->logger = $logger ?? Logger::fromSettings();
    }

    /**
     * @param string $trigger webhook, poll, return or status (for the log)
     * @return array{result: string, action?: string, reason?: string} result is one of: applied,
     *     unchanged, not_found, not_ours, no_transaction, busy, lookup_failed
     */
    public function sync(int $orderId, string $trigger): array
    {
        $order = wc_get_order($orderId);
        if (!$order instanceof \WC_Order) {
            return ['result' => 'not_found'];
        }
        if ($order->get_payment_method() !== Gateway::ID) {
            return ['result' => 'not_ours'];
        }
        if (OrderData::transactionCode($order) === '') {
            return ['result' => 'no_transaction'];
        }

        $lock = new Lock('order_' . $orderId);
        if (!$lock->acquire()) {
            $this->logger->debug(sprintf('Order %d is being updated by another request; %s skipped.', $orderId, $trigger));
            return ['result' => 'busy'];
        }
        try {
            // Read the order again now that no other request can change it.
            $order = wc_get_order($orderId);
            if (!$order instanceof \WC_Order) {
                return ['result' => 'not_found'];
            }
            return $this->syncLocked($order, $trigger);
        } finally {
            $lock->release();
        }
    }

    /** @return array{result: string, action?: string, reason?: string} */
    private function syncLocked(\WC_Order $order, string $trigger): array
    {
        $code = OrderData::transactionCode($order);
        $origin = (string) $order->get_meta(OrderData::SERVICE_URL);
        try {
            $lookup = ClientFactory::forOrigin($origin)->getTransaction($code);
            $decision = Reconciler::decide(OrderData::storedForReconciler($order), $lookup);
        } catch (CryptoCheckoutException $exception) {
            $this->logger->warning(sprintf(
                'Order %d: looking up transaction %s failed (%s): %s',
                $order->get_id(),
                $code,
                $trigger,
                $exception->getMessage()
            ));
            return ['result' => 'lookup_failed'];
        }

        $this->logger->debug(sprintf(
            'Order %d (%s): transaction %s is %s; decision %s (%s).',
            $order->get_id(),
            $trigger,
            $code,
            (string) $lookup['status'],
            $decision['action'],
            $decision['reason']
        ));

        $applied = $this->apply($order, $decision, $lookup);
        return [
            'result' => $applied ? 'applied' : 'unchanged',
            'action' => $decision['action'],
            'reason' => $decision['reason'],
        ];
    }

    /**
     * @param array{action: string, reason: string, note: string} $decision
     * @param array<string, mixed> $lookup
     */
    private function apply(\WC_Order $order, array $decision, array $lookup): bool
    {
        $code = OrderData::transactionCode($order);
        switch ($decision['action']) {
            case 'mark_paid':
                $order->update_meta_data(OrderData::RECEIVED_USD, (string) $lookup['received_usd']);
                $order->delete_meta_data(OrderData::HOLD_REASON);
                $order->delete_meta_data(OrderData::POLL_UNTIL);
                $order->add_order_note($decision['note']);
                $order->save();
                $order->payment_complete($code);
                $this->logger->info(sprintf('Order %d paid: %s', $order->get_id(), $decision['note']));
                return true;

            case 'hold_underpaid':
                $order->update_meta_data(OrderData::HOLD_REASON, OrderData::HOLD_UNDERPAID);
                $order->update_meta_data(OrderData::RECEIVED_USD, (string) $lookup['received_usd']);
                $order->save();
                $order->update_status('on-hold', $decision['note']);
                $this->logger->warning(sprintf('Order %d on hold: %s', $order->get_id(), $decision['note']));
                return true;

            case 'hold_late_payment':
                $order->update_meta_data(OrderData::HOLD_REASON, OrderData::HOLD_LATE_PAYMENT);
                $order->update_meta_data(OrderData::RECEIVED_USD, (string) $lookup['received_usd']);
                $order->delete_meta_data(OrderData::POLL_UNTIL);
                $order->save();
                $order->update_status('on-hold', $decision['note']);
                $this->logger->warning(sprintf('Order %d on hold: %s', $order->get_id(), $decision['note']));
                return true;

            case 'cancel_expired':
                // WooCommerce restores the stock of a cancelled order (wc_maybe_increase_stock_levels).
                $order->update_status('cancelled', $decision['note']);
                $this->logger->info(sprintf('Order %d cancelled: %s', $order->get_id(), $decision['note']));
                return true;

            case 'reject_mismatch':
                $this->logger->warning(sprintf('Order %d: %s (%s)', $order->get_id(), $decision['note'], $decision['reason']));
                if ($order->get_meta(OrderData::MISMATCH_NOTED) === '') {
                    $order->update_meta_data(OrderData::MISMATCH_NOTED, $decision['reason']);
                    $order->add_order_note($decision['note']);
                    $order->save();
                }
                return false;

            default:
                return false;
        }
    }
}
