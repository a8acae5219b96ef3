<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs;

use CryptoCheckout\Whmcs\Vendor\Client\Client;
use CryptoCheckout\Whmcs\Vendor\Client\Reconciler;

/**
 * Applies the shared reconciliation rules to one checkout: always from the authoritative
 * GET /transaction, decided by the client's Reconciler, each change made through a conditional
 * state transition so that racing webhooks, cron polls and return visits apply a payment once.
 */
final class Reconciliation
{
    /** @var Settings */
    private $settings;
    /** @var Client */
    private $client;
    /** @var TransactionStore */
    private $store;
    /** @var InvoiceLedger */
    private $ledger;

    public function __construct(Settings $settings, Client $client, TransactionStore $store, InvoiceLedger $ledger)
    {
        $this->settings = $settings;
        $this->client = $client;
        $this->store = $store;
        $this->ledger = $ledger;
    }

    /**
     * Looks the checkout up and acts on it.
     *
     * @param object $row a mod_cryptocheckout_transactions row
     * @return array{action: string, reason: string, state: string, status: string} state: the checkout's state
     *     here afterwards; status: the transaction's status on the service
     * @throws \CryptoCheckout\Whmcs\Vendor\Client\Exception\CryptoCheckoutException when the lookup fails
     */
    public function run($row): array
    {
        $lookup = $this->client->getTransaction((string) $row->transaction_code);
        $decision = Reconciler::decide($this->stored($row), $lookup);
        $state = $this->apply($row, $lookup, $decision);
        return [
            'action' => $decision['action'],
            'reason' => $decision['reason'],
            'state' => $state,
            'status' => (string) ($lookup['status'] ?? ''),
        ];
    }

    /**
     * @param object $row
     * @return array<string, mixed>
     */
    private function stored($row): array
    {
        return [
            'transaction_code' => (string) $row->transaction_code,
            'fiat_amount' => (string) $row->fiat_amount,
            'fiat_currency' => (string) $row->fiat_currency,
            'wallet_address' => (string) $row->wallet_address,
            'wallet_currency' => (string) $row->wallet_currency,
            'wallet_network' => (string) $row->wallet_network,
            'order_state' => (string) $row->state,
        ];
    }

    /**
     * @param object $row
     * @param array<string, mixed> $lookup
     * @param array{action: string, reason: string, note: string} $decision
     * @return string the checkout's state afterwards
     */
    private function apply($row, array $lookup, array $decision): string
    {
        $id = (int) $row->id;
        $from = (string) $row->state;
        $invoiceId = (int) $row->invoice_id;
        $log = [
            'invoice' => $invoiceId,
            'transaction_code' => (string) $row->transaction_code,
            'status' => (string) ($lookup['status'] ?? ''),
            'received_usd' => (string) ($lookup['received_usd'] ?? ''),
            'amount_in_usd' => (string) ($lookup['amount_in_usd'] ?? ''),
            'decision' => $decision['action'] . '/' . $decision['reason'],
        ];

        switch ($decision['action']) {
            case 'mark_paid':
                return $this->pay($row, $from, $decision['note'], $log, $decision['reason'] === 'settled_late');

            case 'hold_late_payment':
                // Settled after this module gave the checkout up: apply it only while the invoice is
                // still unpaid; otherwise the admin decides.
                return $this->pay($row, $from, $decision['note'], $log, true);

            case 'hold_underpaid':
                if ($this->store->transition($id, $from, 'underpaid', $decision['note'])) {
                    $this->ledger->log('Underpaid', $log);
                    $this->ledger->adminNote($invoiceId, $decision['note']);
                    return 'underpaid';
                }
                return $this->currentState($row);

            case 'cancel_expired':
                if ($this->store->transition($id, $from, 'cancelled', $decision['note'])) {
                    $this->ledger->log('Expired', $log);
                    return 'cancelled';
                }
                return $this->currentState($row);

            case 'reject_mismatch':
                $this->ledger->log('Ignored: ' . $decision['reason'] . ' mismatch', $log);
                $this->store->touch($id);
                return $from;

            default:
                if ($this->settings->debug) {
                    $this->ledger->log('No change: ' . $decision['reason'], $log);
                }
                $this->store->touch($id);
                return $from;
        }
    }

    /**
     * @param object $row
     * @param array<string, mixed> $log
     */
    private function pay($row, string $from, string $note, array $log, bool $late): string
    {
        $id = (int) $row->id;
        $invoiceId = (int) $row->invoice_id;
        $code = (string) $row->transaction_code;

        if (!$this->ledger->isUnpaid($invoiceId) || $this->ledger->isPaymentRecorded($code)) {
            $review = sprintf(
                'Crypto Checkout: transaction %s settled, but invoice #%d is no longer unpaid, so the payment was not applied. Review it and refund or credit the client.',
                $code,
                $invoiceId
            );
            if ($this->ledger->isPaymentRecorded($code)) {
                // Recorded by an earlier run that stopped before the state change.
                $this->store->transition($id, $from, 'paid', $note);
                return 'paid';
            }
            if ($this->store->transition($id, $from, 'late_payment_review', $review)) {
                $this->ledger->log('Late Payment: invoice not unpaid', $log);
                $this->ledger->adminNote($invoiceId, $review);
                return 'late_payment_review';
            }
            return $this->currentState($row);
        }

        // The winner of this transition is the only run that applies the payment.
        if (!$this->store->transition($id, $from, 'paid', $note)) {
            return $this->currentState($row);
        }
        $this->ledger->log($late ? 'Success (late payment)' : 'Success', $log);
        $this->ledger->addPayment($invoiceId, $code, (string) $row->invoice_amount);
        if ($late) {
            $this->ledger->adminNote($invoiceId, $note);
        }
        return 'paid';
    }

    /** @param object $row */
    private function currentState($row): string
    {
        $fresh = $this->store->findByCode((string) $row->transaction_code);
        return $fresh === null ? (string) $row->state : (string) $fresh->state;
    }
}
