<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

declare(strict_types=1);

namespace CryptoCheckout\PrestaShop;

use CryptoCheckout\PrestaShop\Vendor\Client\Client;
use CryptoCheckout\PrestaShop\Vendor\Client\Exception\CryptoCheckoutException;
use CryptoCheckout\PrestaShop\Vendor\Client\Reconciler;

/**
 * Brings an order in line with the service, whoever asks (webhook, scheduled poll, the buyer's
 * return): look the transaction stored on the order up with GET /transaction, let the shared
 * Reconciler decide, and apply the decision through a conditional state change so it happens once.
 */
final class Reconciliation
{
    /** @var \PaymentModule */
    private $module;
    /** @var TransactionRepository */
    private $repository;
    /** @var Client */
    private $client;

    public function __construct(\PaymentModule $module, TransactionRepository $repository, Client $client)
    {
        $this->module = $module;
        $this->repository = $repository;
        $this->client = $client;
    }

    /**
     * @return array{outcome: string, action?: string, reason?: string, state?: string}
     *     outcome: applied (this call changed the order), unchanged, lost_race, lookup_failed, not_found
     */
    public function reconcile(int $idOrder): array
    {
        $row = $this->repository->findByOrder($idOrder);
        $order = new \Order($idOrder);
        if ($row === null || !\Validate::isLoadedObject($order) || (string) $row['transaction_code'] === '') {
            return ['outcome' => 'not_found'];
        }
        $observed = (string) $row['state'];
        $effective = $this->effectiveState($observed, $order);

        try {
            $lookup = $this->client->getTransaction((string) $row['transaction_code']);
        } catch (CryptoCheckoutException $exception) {
            Log::warning(sprintf('looking up transaction %s failed: %s', $row['transaction_code'], $exception->getMessage()), $idOrder);
            // Counted as a check, so buyers' status requests do not hammer a service that is down.
            $this->repository->recordCheck($idOrder, $row['last_status'] === null ? null : (string) $row['last_status']);

            return ['outcome' => 'lookup_failed', 'state' => $observed];
        }

        $stored = [
            'transaction_code' => (string) $row['transaction_code'],
            'fiat_amount' => (string) $row['fiat_amount'],
            'fiat_currency' => (string) $row['fiat_currency'],
            'wallet_address' => (string) $row['wallet_address'],
            'wallet_currency' => (string) $row['wallet_currency'],
            'wallet_network' => (string) $row['wallet_network'],
            'order_state' => $effective,
        ];
        try {
            $decision = Reconciler::decide($stored, $lookup);
        } catch (CryptoCheckoutException $exception) {
            Log::warning('the transaction lookup held an unreadable amount: ' . $exception->getMessage(), $idOrder);

            return ['outcome' => 'lookup_failed', 'state' => $observed];
        }
        $this->repository->recordCheck($idOrder, is_string($lookup['status'] ?? null) ? $lookup['status'] : null);
        Log::debug(sprintf('order %d: %s (%s)', $idOrder, $decision['action'], $decision['reason']), $idOrder);

        $target = $this->targetState($decision['action']);
        if ($target === null) {
            if ($decision['action'] === 'reject_mismatch') {
                Log::error($decision['note'] . ' (' . $decision['reason'] . ')', $idOrder);
            }

            return ['outcome' => 'unchanged', 'action' => $decision['action'], 'reason' => $decision['reason'], 'state' => $observed];
        }

        if (!$this->repository->claimTransition($idOrder, $observed, $target)) {
            // Another request applied a decision first; its outcome stands.
            return ['outcome' => 'lost_race', 'action' => $decision['action'], 'reason' => $decision['reason']];
        }
        $this->apply($idOrder, $target, $decision, (string) $row['fiat_amount'], (string) $row['transaction_code']);

        return ['outcome' => 'applied', 'action' => $decision['action'], 'reason' => $decision['reason'], 'state' => $target];
    }

    /**
     * A merchant may cancel an order by hand in the back office; the Reconciler must then see it
     * as cancelled, so that a later payment is held for review rather than accepted.
     */
    private function effectiveState(string $observed, \Order $order): string
    {
        if ($observed !== TransactionRepository::STATE_CANCELLED
            && (int) $order->getCurrentState() === (int) \Configuration::get('PS_OS_CANCELED')) {
            return TransactionRepository::STATE_CANCELLED;
        }

        return $observed;
    }

    private function targetState(string $action): ?string
    {
        switch ($action) {
            case 'mark_paid':
                return TransactionRepository::STATE_PAID;
            case 'hold_underpaid':
                return TransactionRepository::STATE_UNDERPAID;
            case 'cancel_expired':
                return TransactionRepository::STATE_CANCELLED;
            case 'hold_late_payment':
                return TransactionRepository::STATE_LATE_REVIEW;
            default:
                return null;
        }
    }

    /** @param array{action: string, reason: string, note: string} $decision */
    private function apply(int $idOrder, string $target, array $decision, string $fiatAmount, string $code): void
    {
        $order = new \Order($idOrder);
        if ($target === TransactionRepository::STATE_PAID) {
            // The payment is recorded before the state change, so entering the paid state finds
            // the order covered and PrestaShop adds no second payment of its own.
            $order->addOrderPayment($fiatAmount, $this->module->displayName, $code);
            $order = new \Order($idOrder);
        }
        $idState = OrderStates::forReconcileState($target);
        if ((int) $order->getCurrentState() !== $idState) {
            $order->setCurrentState($idState);
        }
        $this->addNote($order, $decision['note']);
        Log::debug(sprintf('order %d moved to %s', $idOrder, $target), $idOrder);
    }

    /** A private message on the order, visible to the merchant only. */
    private function addNote(\Order $order, string $note): void
    {
        $message = new \Message();
        $message->message = $note;
        $message->id_cart = (int) $order->id_cart;
        $message->id_customer = (int) $order->id_customer;
        $message->id_order = (int) $order->id;
        $message->private = true;
        $message->add();
    }
}
