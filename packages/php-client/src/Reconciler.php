<?php

declare(strict_types=1);

namespace CryptoCheckout\Client;

use CryptoCheckout\Client\Exception\MoneyException;
use CryptoCheckout\Client\Support\Text;
use CryptoCheckout\Client\Wallet\Networks;

/**
 * Decides what a merchant platform does with one checkout of an order, given the authoritative
 * GET /transaction lookup: the port of @cryptocheckout/core's decideReconciliation, held to the same
 * answers by packages/core/vectors/reconcile.json. Pure: no I/O, the same inputs give the same
 * decision. Every rule of the decision is here (docs/plugin-kernel.md, "The decision"); the kernel's
 * Runner only gathers the inputs and applies the result.
 *
 * Order states: awaiting_payment, underpaid, late_payment_review, paid, cancelled.
 * Actions: none, mark_paid, hold_underpaid, cancel_expired, hold_late_payment, reject_mismatch,
 * flag_extra_payment, record_booked.
 *
 * A settled lookup pays in full when received_usd reaches amount_in_usd, or when the service
 * settled it short within its payment tolerance (the lookup's optional payment_tolerance:
 * received_usd + accepted_shortfall_usd reaches amount_in_usd, and accepted_shortfall_usd is at
 * most amount_in_usd × percent / 100, computed exactly); the note then says how much is short.
 */
final class Reconciler
{
    public const ORDER_STATES = ['awaiting_payment', 'underpaid', 'late_payment_review', 'paid', 'cancelled'];

    /** Order states in which the buyer can still pay. */
    private const OPEN_STATES = ['awaiting_payment', 'underpaid'];

    private function __construct()
    {
    }

    /**
     * @param array<string, mixed> $stored what the platform's ledger holds for the checkout and its order:
     *     transaction_code, fiat_amount (decimal string), fiat_currency, wallet_address, wallet_currency,
     *     wallet_network, order_state; and, all optional: applied_action (the last action applied for this
     *     checkout), resolution ("booked", "flagged" or null), payment_booked (the platform holds a payment
     *     with this transaction code), newest (this is the order's newest checkout; default true),
     *     replaced_by ({transaction_code, fiat_amount, fiat_currency} of a newer checkout with other terms)
     * @param array<string, mixed> $lookup the data of GET /transaction (as Client::getTransaction() returns it)
     * @return array{action: string, reason: string, note: string, amount_due_usd?: string} reason is a stable
     *     code; note is a sentence for the order history; amount_due_usd comes with hold_underpaid
     * @throws MoneyException when an amount in $lookup is not an amount at all
     */
    public static function decide(array $stored, array $lookup): array
    {
        $applied = $stored['applied_action'] ?? null;
        $mismatch = self::findMismatch($stored, $lookup);
        if ($mismatch !== null) {
            return $applied === 'reject_mismatch' ? self::alreadyApplied() : $mismatch;
        }

        $received = Money::parseDecimal($lookup['received_usd'] ?? null, 'USD amount');
        $due = Money::parseDecimal($lookup['amount_in_usd'] ?? null, 'USD amount');
        $state = (string) ($stored['order_state'] ?? '');
        $code = (string) $lookup['transaction_code'];
        $resolution = $stored['resolution'] ?? null;

        if ($resolution === 'booked') {
            return self::decideBooked($state, $code);
        }
        if ($state === 'paid') {
            return self::decidePaidOrder($stored, $lookup, $received, $code);
        }
        if ($resolution === 'flagged') {
            // Handed to the owner (a late or replaced payment, an extra one): never changes the order again by itself.
            return self::decision('none', 'handed_to_owner', 'This payment was handed to the shop owner for review.');
        }

        $decision = self::decideByStatus($state, $lookup, $received, $due, $code);
        $replacement = $stored['replaced_by'] ?? null;
        if ($decision['action'] === 'mark_paid' && is_array($replacement)) {
            // Paid in full for what the order asked before it changed: the owner decides.
            $decision = self::decision(
                'hold_late_payment',
                'settled_replaced',
                sprintf(
                    'Crypto Checkout: transaction %s settled %s USD for %s %s, but the order was changed since and now asks %s %s (transaction %s). Review the payment before fulfilling or refunding.',
                    $code,
                    $received,
                    (string) $stored['fiat_amount'],
                    (string) $stored['fiat_currency'],
                    (string) ($replacement['fiat_amount'] ?? ''),
                    (string) ($replacement['fiat_currency'] ?? ''),
                    (string) ($replacement['transaction_code'] ?? '')
                )
            );
        }
        if ($decision['reason'] === 'already_held' && $state === 'late_payment_review' && self::paysTheOrderAsItIsNow($stored, $lookup, $received, $due)) {
            // The hold was for another payment (a replaced checkout, a late one); this one pays
            // what the order asks now, on time: book it. The held payment stays before the owner.
            $tolerated = self::toleratedShortfall($lookup, $received, $due);
            $decision = self::decision(
                'mark_paid',
                'settled_while_held',
                $tolerated === null
                    ? sprintf(
                        'Crypto Checkout: payment of %s USD settled (transaction %s), the order\'s current amount in full. The payment held for review earlier is an extra payment: refund or credit the buyer.',
                        $received,
                        $code
                    )
                    : sprintf(
                        'Crypto Checkout: payment of %s USD settled (transaction %s), the order\'s current amount, %s USD short, within the service\'s payment tolerance of %s%%. The payment held for review earlier is an extra payment: refund or credit the buyer.',
                        Money::roundHalfUp($received, 2),
                        $code,
                        $tolerated['short'],
                        $tolerated['percent']
                    )
            );
        }
        if ($decision['action'] !== 'none' && $applied === $decision['action']) {
            return self::alreadyApplied();
        }
        return $decision;
    }

    /**
     * A checkout whose payment the kernel booked: the ledger is the truth. An order that shows
     * unpaid again was changed by a save that did not see the payment; it is set back to paid.
     *
     * @return array{action: string, reason: string, note: string}
     */
    private static function decideBooked(string $state, string $code): array
    {
        if ($state === 'paid') {
            return self::decision('none', 'already_paid', 'The order is already paid.');
        }
        if (in_array($state, self::OPEN_STATES, true)) {
            return self::decision(
                'mark_paid',
                'booked_undone',
                sprintf(
                    'Crypto Checkout: the payment of transaction %s was booked, but the order was later saved as unpaid by a change that had not seen the payment. The order is set back to paid.',
                    $code
                )
            );
        }
        // Cancelled or held by the merchant after the payment was booked: their decision stands.
        return self::decision('none', 'already_booked', 'The payment is booked; the order was changed since by hand.');
    }

    /**
     * An order that is paid: through this checkout by a run that was interrupted before it
     * recorded so, or through another checkout or by hand, which makes money on this one extra.
     *
     * @param array<string, mixed> $stored
     * @param array<string, mixed> $lookup
     * @return array{action: string, reason: string, note: string}
     */
    private static function decidePaidOrder(array $stored, array $lookup, string $received, string $code): array
    {
        $unresolved = ($stored['resolution'] ?? null) === null;
        if ($unresolved && ($stored['payment_booked'] ?? false) === true) {
            return self::decision('record_booked', 'booked_earlier', sprintf('Crypto Checkout: the payment of transaction %s is booked on the order.', $code));
        }
        $holdsMoney = in_array($lookup['status'] ?? null, ['settled', 'underpaid', 'expired'], true) && Money::compare($received, '0') > 0;
        if ($unresolved && $holdsMoney) {
            return self::decision(
                'flag_extra_payment',
                'extra_payment',
                sprintf(
                    'Crypto Checkout: transaction %s received %s USD, but the order was already paid (through another transaction or by hand). The payment was not booked: refund or credit the buyer.',
                    $code,
                    $received
                )
            );
        }
        return self::decision('none', 'already_paid', 'The order is already paid.');
    }

    /**
     * The transaction's status on an order that is not paid.
     *
     * @param array<string, mixed> $lookup
     * @return array{action: string, reason: string, note: string, amount_due_usd?: string}
     */
    private static function decideByStatus(string $state, array $lookup, string $received, string $due, string $code): array
    {
        $tolerated = self::toleratedShortfall($lookup, $received, $due);
        $fullyPaid = Money::compare($received, $due) >= 0 || $tolerated !== null;
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
                    $tolerated === null
                        ? sprintf(
                            'Crypto Checkout: payment of %s USD settled (transaction %s)%s.',
                            $received,
                            $code,
                            $late ? ', after the checkout had expired' : ''
                        )
                        : sprintf(
                            'Crypto Checkout: payment of %s USD settled (transaction %s)%s, %s USD short, within the service\'s payment tolerance of %s%%.',
                            Money::roundHalfUp($received, 2),
                            $code,
                            $late ? ', after the checkout had expired' : '',
                            $tolerated['short'],
                            $tolerated['percent']
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

    /**
     * True when the lookup settles, in full and on time, the order's newest checkout, on which
     * nothing was applied before: what the order asks now has been paid.
     *
     * @param array<string, mixed> $stored
     * @param array<string, mixed> $lookup
     */
    private static function paysTheOrderAsItIsNow(array $stored, array $lookup, string $received, string $due): bool
    {
        return ($stored['newest'] ?? true) === true
            && ($stored['replaced_by'] ?? null) === null
            && ($stored['applied_action'] ?? null) === null
            && ($lookup['status'] ?? null) === 'settled'
            && ($lookup['late'] ?? false) !== true
            && (Money::compare($received, $due) >= 0 || self::toleratedShortfall($lookup, $received, $due) !== null);
    }

    /**
     * How far a settled lookup is short of what was due when the service settled it within its
     * payment tolerance: received_usd + accepted_shortfall_usd reaches amount_in_usd, and
     * accepted_shortfall_usd is at most amount_in_usd × percent / 100 (exactly, no rounding).
     * Null when it is not short, not settled, carries no tolerance (or one that does not read), or
     * is short by more than the tolerance allows: then it is underpaid as before.
     *
     * @param array<string, mixed> $lookup
     * @return array{short: string, percent: string}|null short in USD with 2 decimals ("0.40"),
     *     percent as a canonical decimal ("1")
     */
    private static function toleratedShortfall(array $lookup, string $received, string $due): ?array
    {
        $tolerance = $lookup['payment_tolerance'] ?? null;
        if (($lookup['status'] ?? null) !== 'settled' || !is_array($tolerance) || Money::compare($received, $due) >= 0) {
            return null;
        }
        try {
            $percent = Money::parseDecimal($tolerance['percent'] ?? null, 'payment tolerance');
            $accepted = Money::parseDecimal($tolerance['accepted_shortfall_usd'] ?? null, 'accepted shortfall');
            if (Money::compare(Money::add($received, $accepted), $due) < 0) {
                return null;
            }
            // due × percent / 100 has exactly the decimals of both factors and two more.
            $allowed = Money::scaleByRatio($due, $percent, '100', self::decimals($due) + self::decimals($percent) + 2);
            if (Money::compare($accepted, $allowed) > 0) {
                return null;
            }
            return ['short' => Money::roundHalfUp(Money::subtractAtLeastZero($due, $received), 2), 'percent' => $percent];
        } catch (MoneyException $exception) {
            return null;
        }
    }

    /** Number of decimals of a canonical decimal string. */
    private static function decimals(string $decimal): int
    {
        $dot = strpos($decimal, '.');
        return $dot === false ? 0 : strlen($decimal) - $dot - 1;
    }

    /** @return array{action: string, reason: string, note: string} */
    private static function alreadyApplied(): array
    {
        return self::decision('none', 'already_applied', 'This decision was applied before.');
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

    /**
     * Whether $a and $b are the same address on $network: EVM hex and bech32 addresses are
     * case-insensitive (case carries only a checksum); base58 (Solana, TRON, Bitcoin P2PKH/P2SH) is
     * exact, two addresses differing only in case are two wallets.
     */
    public static function sameAddress(string $a, string $b, string $network): bool
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
