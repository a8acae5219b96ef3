<?php

declare(strict_types=1);

namespace CryptoCheckout\Client;

use CryptoCheckout\Client\Exception\MoneyException;
use CryptoCheckout\Client\Support\Text;
use CryptoCheckout\Client\Wallet\Networks;

/**
 * Decides what a merchant platform does with an order, given the authoritative GET /transaction
 * lookup: the port of @cryptocheckout/core's decideReconciliation, held to the same answers by
 * packages/core/vectors/reconcile.json. Pure: no I/O, the same inputs give the same decision.
 *
 * Order states: awaiting_payment, underpaid, late_payment_review, paid, cancelled.
 * Actions: none, mark_paid, hold_underpaid, cancel_expired, hold_late_payment, reject_mismatch.
 */
final class Reconciler
{
    public const ORDER_STATES = ['awaiting_payment', 'underpaid', 'late_payment_review', 'paid', 'cancelled'];

    private function __construct()
    {
    }

    /**
     * @param array<string, mixed> $stored what the platform kept when the order was placed: transaction_code,
     *     fiat_amount (decimal string), fiat_currency, wallet_address, wallet_currency, wallet_network, order_state
     * @param array<string, mixed> $lookup the data of GET /transaction (as Client::getTransaction() returns it)
     * @return array{action: string, reason: string, note: string, amount_due_usd?: string} reason is a stable
     *     code; note is a sentence for the order history; amount_due_usd comes with hold_underpaid
     * @throws MoneyException when an amount in $lookup is not an amount at all
     */
    public static function decide(array $stored, array $lookup): array
    {
        $mismatch = self::findMismatch($stored, $lookup);
        if ($mismatch !== null) {
            return $mismatch;
        }

        $received = Money::parseDecimal($lookup['received_usd'] ?? null, 'USD amount');
        $due = Money::parseDecimal($lookup['amount_in_usd'] ?? null, 'USD amount');
        $fullyPaid = Money::compare($received, $due) >= 0;
        $state = (string) ($stored['order_state'] ?? '');
        $code = (string) $lookup['transaction_code'];

        if ($state === 'paid') {
            return self::decision('none', 'already_paid', 'The order is already paid.');
        }

        $status = $lookup['status'] ?? null;
        switch ($status) {
            case 'pending':
            case 'processing':
                return self::decision('none', 'not_final', sprintf('The payment is %s; nothing to do yet.', $status));

            case 'settled':
                if (!$fullyPaid) {
                    return self::holdUnderpaid($state, $received, $due);
                }
                if ($state === 'cancelled') {
                    return self::decision(
                        'hold_late_payment',
                        'settled_after_cancel',
                        sprintf(
                            'Crypto Checkout: a payment of %s USD settled transaction %s after the order was cancelled. Review it before fulfilling or refunding.',
                            $received,
                            $code
                        )
                    );
                }
                if ($state === 'late_payment_review') {
                    return self::decision('none', 'already_held', 'The late payment is already held for review.');
                }
                $late = ($lookup['late'] ?? false) === true;
                return self::decision(
                    'mark_paid',
                    $late ? 'settled_late' : 'settled',
                    sprintf(
                        'Crypto Checkout: payment of %s USD settled (transaction %s)%s.',
                        $received,
                        $code,
                        $late ? ', after the checkout had expired' : ''
                    )
                );

            case 'underpaid':
                return self::holdUnderpaid($state, $received, $due);

            case 'expired':
                if ($state === 'cancelled') {
                    return self::decision('none', 'already_cancelled', 'The order is already cancelled.');
                }
                // Money already received must not vanish with a cancellation: keep the order on hold.
                if (Money::compare($received, '0') > 0) {
                    return self::holdUnderpaid($state, $received, $due);
                }
                if ($state === 'late_payment_review') {
                    return self::decision('none', 'already_held', 'The order is held for review.');
                }
                return self::decision(
                    'cancel_expired',
                    'expired',
                    sprintf('Crypto Checkout: the checkout %s expired without payment.', $code)
                );

            default:
                // A status this version does not know is never a reason to change an order.
                return self::decision('none', 'unknown_status', 'The transaction status is not known to this version; nothing was changed.');
        }
    }

    /** @return array{action: string, reason: string, note: string, amount_due_usd?: string} */
    private static function holdUnderpaid(string $state, string $received, string $due): array
    {
        if ($state === 'underpaid' || $state === 'late_payment_review') {
            return self::decision('none', 'already_held', 'The order is already on hold.');
        }
        $amountDue = Money::subtractAtLeastZero($due, $received);
        $decision = self::decision(
            'hold_underpaid',
            $state === 'cancelled' ? 'underpaid_after_cancel' : 'underpaid',
            sprintf(
                'Crypto Checkout: received %s USD of %s USD; %s USD is still due. The order is on hold until the buyer tops up or you refund.',
                $received,
                $due,
                $amountDue
            )
        );
        $decision['amount_due_usd'] = $amountDue;
        return $decision;
    }

    /**
     * @param array<string, mixed> $stored
     * @param array<string, mixed> $lookup
     * @return array{action: string, reason: string, note: string}|null
     */
    private static function findMismatch(array $stored, array $lookup): ?array
    {
        $reject = static function (string $reason, string $what): array {
            return self::decision('reject_mismatch', $reason, sprintf('Crypto Checkout: ignored a transaction whose %s does not match this order.', $what));
        };
        $lookupCode = $lookup['transaction_code'] ?? null;
        $storedCode = $stored['transaction_code'] ?? null;
        if (!is_string($lookupCode) || !is_string($storedCode) || Text::asciiLower($lookupCode) !== Text::asciiLower($storedCode)) {
            return $reject('transaction_code', 'transaction code');
        }
        if (($lookup['fiat_currency'] ?? null) !== ($stored['fiat_currency'] ?? null)) {
            return $reject('fiat_currency', 'currency');
        }
        if (!self::sameAmount($lookup['fiat_amount'] ?? null, $stored['fiat_amount'] ?? null)) {
            return $reject('fiat_amount', 'amount');
        }
        $network = (string) ($stored['wallet_network'] ?? '');
        if (
            !self::sameAddress((string) ($lookup['wallet_address'] ?? ''), (string) ($stored['wallet_address'] ?? ''), $network)
            || ($lookup['wallet_currency'] ?? null) !== ($stored['wallet_currency'] ?? null)
            || ($lookup['wallet_network'] ?? null) !== $network
        ) {
            return $reject('wallet', 'destination wallet');
        }
        return null;
    }

    /**
     * @param mixed $wire
     * @param mixed $stored
     */
    private static function sameAmount($wire, $stored): bool
    {
        try {
            return Money::compare(Money::parseDecimal($wire), Money::parseDecimal($stored)) === 0;
        } catch (MoneyException $exception) {
            return false;
        }
    }

    /** EVM hex and bech32 addresses are case-insensitive (case carries only a checksum); base58 is exact. */
    private static function sameAddress(string $a, string $b, string $network): bool
    {
        $info = Networks::get($network);
        $family = $info['family'] ?? null;
        $caseInsensitive = $family === Networks::FAMILY_EVM
            || ($family === Networks::FAMILY_BITCOIN && preg_match('/\Abc1/i', $a) === 1);
        return $caseInsensitive ? Text::asciiLower($a) === Text::asciiLower($b) : $a === $b;
    }

    /** @return array{action: string, reason: string, note: string} */
    private static function decision(string $action, string $reason, string $note): array
    {
        return ['action' => $action, 'reason' => $reason, 'note' => $note];
    }
}
