<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

use CryptoCheckout\Client\Client;
use CryptoCheckout\Client\Exception\CryptoCheckoutException;
use CryptoCheckout\Client\Money;
use CryptoCheckout\Client\Reconciler;

/**
 * Brings an order in line with the service. Webhooks, the scheduled poll and the buyer's return
 * all come here, and every decision is taken on the authoritative GET /transaction, never on a
 * webhook body. For each checkout of the order:
 *
 *   lookup → decide → claim the order → decide again on what it is now → apply → finish
 *
 * The claim (OrderPort::swapClaim) lets one run at a time change an order. Applying is idempotent —
 * a payment whose transaction id the platform already holds is never booked again — so a run that
 * dies anywhere is completed by the next one: its claim expires (Claim::LEASE_SECONDS), the next run
 * takes it over, decides on what the order is now, and does what is left.
 */
final class Runner
{
    /** Lookups are cut off well inside the 8 s the service waits for a webhook answer. */
    public const LOOKUP_TIMEOUT_SECONDS = 5;

    /** At most this many checkouts of one order per run (newest first). */
    public const MAX_CHECKOUTS_PER_RUN = 5;

    /** Checks triggered by a buyer's page are made at most this often per order. */
    public const BUYER_CHECK_SECONDS = 5;

    private OrderPort $port;
    /** @var callable(string): Client */
    private $clientFor;
    private Clock $clock;

    /**
     * @param callable(string): Client $clientFor the client for a service URL (the one stored on the
     *     checkout), with the platform's transport and LOOKUP_TIMEOUT_SECONDS
     */
    public function __construct(OrderPort $port, callable $clientFor, ?Clock $clock = null)
    {
        $this->port = $port;
        $this->clientFor = $clientFor;
        $this->clock = $clock ?? new SystemClock();
    }

    /**
     * Reconciles one order: the checkout with $transactionCode, or every checkout still watched
     * (newest first). With $waitSeconds, a run that finds the order claimed waits up to that long
     * for the claim to go (a webhook arriving while the buyer's page checks the same order).
     *
     * @param string $trigger webhook, poll, return, status or admin (for the log)
     */
    public function run(string $orderId, string $trigger, ?string $transactionCode = null, int $waitSeconds = 0): RunOutcome
    {
        $outcomes = [];
        foreach ($this->selectCheckouts($orderId, $transactionCode) as $checkout) {
            $outcomes[] = $this->runCheckout($orderId, $checkout, $trigger, $waitSeconds);
        }
        return RunOutcome::combine($outcomes);
    }

    /**
     * A run for a buyer's page: at most once every BUYER_CHECK_SECONDS per order, and only while the
     * order has a watched checkout. Returns null when no check was due.
     */
    public function runForBuyer(string $orderId): ?RunOutcome
    {
        $now = $this->clock->now();
        $checkouts = $this->port->checkouts($orderId);
        foreach ($checkouts as $checkout) {
            if ($checkout->checkedAt !== null && $checkout->checkedAt > $now - self::BUYER_CHECK_SECONDS) {
                return null;
            }
        }
        foreach ($checkouts as $checkout) {
            if ($checkout->isWatched($now)) {
                return $this->run($orderId, 'status');
            }
        }
        return null;
    }

    /**
     * One scheduled poll: the due checkouts in the policy's order, until the batch or the time
     * budget is used up.
     *
     * @return list<RunOutcome>
     */
    public function poll(PollPolicy $policy): array
    {
        $started = $this->clock->now();
        $outcomes = [];
        foreach ($this->port->dueCheckouts($policy, $started) as [$orderId, $code]) {
            $now = $this->clock->now();
            if ($now - $started >= $policy->timeBudgetSeconds) {
                $this->port->log('info', 'Poll stopped at its time budget; the rest is checked next time.', ['checked' => count($outcomes)]);
                break;
            }
            $checkout = $this->findCheckout((string) $orderId, (string) $code);
            if ($checkout === null || !$policy->isDue($checkout, $now)) {
                continue;
            }
            $outcomes[] = $this->runCheckout((string) $orderId, $checkout, 'poll', 0);
        }
        return $outcomes;
    }

    /** @return list<StoredCheckout> */
    private function selectCheckouts(string $orderId, ?string $transactionCode): array
    {
        $checkouts = $this->port->checkouts($orderId);
        if ($transactionCode !== null) {
            foreach ($checkouts as $checkout) {
                if ($checkout->hasCode($transactionCode)) {
                    return [$checkout];
                }
            }
            return [];
        }
        $now = $this->clock->now();
        $watched = array_values(array_filter($checkouts, static function (StoredCheckout $checkout) use ($now): bool {
            return $checkout->isWatched($now);
        }));
        if ($watched === [] && $checkouts !== [] && $this->port->readClaim($orderId) !== null) {
            // Nothing left to watch, but an interrupted run left its claim: finish it.
            $watched = [$checkouts[0]];
        }
        return array_slice($watched, 0, self::MAX_CHECKOUTS_PER_RUN);
    }

    private function runCheckout(string $orderId, StoredCheckout $checkout, string $trigger, int $waitSeconds): RunOutcome
    {
        $code = $checkout->transactionCode;
        $context = ['order' => $orderId, 'transaction' => $code, 'trigger' => $trigger];
        $held = $this->waitForClaim($orderId, $waitSeconds);
        if ($held !== null && !Claim::isExpired($held, $this->clock->now())) {
            $this->port->log('debug', 'Another request is updating the order; this one leaves it to it.', $context);
            return new RunOutcome(RunOutcome::BUSY, $code);
        }

        try {
            $lookup = ($this->clientFor)($checkout->serviceUrl)->getTransaction($code);
        } catch (CryptoCheckoutException $exception) {
            $checkout->checkedAt = $this->clock->now();
            $this->port->recordCheck($orderId, $checkout);
            $this->port->log('warning', 'Looking up the transaction failed: ' . $exception->getMessage(), $context);
            return new RunOutcome(RunOutcome::LOOKUP_FAILED, $code);
        }
        $checkout->recordLookup($lookup, $this->clock->now());
        $this->port->recordCheck($orderId, $checkout);
        $status = $checkout->lastStatus;

        try {
            $decision = $this->decide($orderId, $checkout, $lookup);
        } catch (CryptoCheckoutException $exception) {
            $this->port->log('warning', 'The transaction lookup held an unreadable amount: ' . $exception->getMessage(), $context);
            return new RunOutcome(RunOutcome::LOOKUP_FAILED, $code, null, null, $status);
        }
        if ($decision->isNone() && $held === null) {
            $this->port->log('debug', sprintf('Transaction is %s; nothing to change (%s).', (string) $status, $decision->reason), $context);
            return new RunOutcome(RunOutcome::UNCHANGED, $code, $decision->action, $decision->reason, $status);
        }

        $claim = Claim::create($decision->action, $code, $this->clock->now());
        if (!$this->port->swapClaim($orderId, $held, $claim->marker())) {
            return new RunOutcome(RunOutcome::BUSY, $code, $decision->action, $decision->reason, $status);
        }
        if ($held !== null) {
            $this->port->log('warning', 'Completing the work of an interrupted run (' . $held . ').', $context);
        }

        try {
            // Under the claim: what another run may have done just before is visible now.
            $checkout = $this->findCheckout($orderId, $code) ?? $checkout;
            $checkout->recordLookup($lookup, $this->clock->now());
            $decision = $this->decide($orderId, $checkout, $lookup);
            if (!$decision->isNone()) {
                $this->apply($orderId, $decision);
            }
        } catch (\Exception $exception) {
            $this->port->swapClaim($orderId, $claim->marker(), null);
            $this->port->log('error', sprintf('Applying %s failed: %s', $decision->action, $exception->getMessage()), $context);
            return new RunOutcome(RunOutcome::FAILED, $code, $decision->action, $decision->reason, $status);
        }
        $this->port->swapClaim($orderId, $claim->marker(), null);

        if ($decision->isNone()) {
            return new RunOutcome(RunOutcome::UNCHANGED, $code, $decision->action, $decision->reason, $status);
        }
        $this->port->log($decision->action === Decision::MARK_PAID || $decision->action === Decision::RECORD_BOOKED ? 'info' : 'warning', $decision->note, $context + ['action' => $decision->action]);
        return new RunOutcome(RunOutcome::APPLIED, $code, $decision->action, $decision->reason, $status);
    }

    /**
     * The Reconciler's decision on the order as it is now, completed by the kernel's own rules.
     *
     * @param array<string, mixed> $lookup
     * @throws CryptoCheckoutException when an amount in the lookup is unreadable
     */
    private function decide(string $orderId, StoredCheckout $checkout, array $lookup): Decision
    {
        $state = $this->port->orderState($orderId);
        $decided = Reconciler::decide($checkout->reconcilerInput($state), $lookup);
        $decision = new Decision($decided['action'], $decided['reason'], $decided['note'], $checkout, $lookup, $state, $decided['amount_due_usd'] ?? null);
        $code = $checkout->transactionCode;

        if ($decision->reason === 'already_paid') {
            $booked = $this->port->isPaymentBooked($orderId, $code);
            if ($booked && $checkout->resolution === null) {
                return new Decision(Decision::RECORD_BOOKED, 'booked_earlier', sprintf('Crypto Checkout: the payment of transaction %s is booked on the order.', $code), $checkout, $lookup, $state);
            }
            if (!$booked && $this->holdsMoney($lookup) && $checkout->resolution === null) {
                return new Decision(
                    Decision::FLAG_EXTRA_PAYMENT,
                    'extra_payment',
                    sprintf(
                        'Crypto Checkout: transaction %s received %s USD, but the order was already paid (through another transaction or by hand). The payment was not booked: refund or credit the buyer.',
                        $code,
                        (string) $checkout->receivedUsd
                    ),
                    $checkout,
                    $lookup,
                    $state
                );
            }
        }
        if ($decision->action === Decision::MARK_PAID) {
            $replacement = $this->newerCheckoutWithOtherTerms($orderId, $checkout);
            if ($replacement !== null) {
                // Paid in full for what the order asked before it changed: the owner decides.
                $decision = new Decision(
                    Decision::HOLD_LATE_PAYMENT,
                    'settled_replaced',
                    sprintf(
                        'Crypto Checkout: transaction %s settled %s USD for %s %s, but the order was changed since and now asks %s %s (transaction %s). Review the payment before fulfilling or refunding.',
                        $code,
                        (string) $checkout->receivedUsd,
                        $checkout->fiatAmount,
                        $checkout->fiatCurrency,
                        $replacement->fiatAmount,
                        $replacement->fiatCurrency,
                        $replacement->transactionCode
                    ),
                    $checkout,
                    $lookup,
                    $state
                );
            }
        }
        if ($decision->reason === 'already_held' && $state === OrderState::LATE_PAYMENT_REVIEW && $this->paysTheOrderAsItIsNow($orderId, $checkout, $lookup)) {
            // The hold was for another payment (a replaced checkout, a late one); this one pays
            // what the order asks now, on time: book it. The held payment stays before the owner.
            $decision = new Decision(
                Decision::MARK_PAID,
                'settled_while_held',
                sprintf(
                    'Crypto Checkout: payment of %s USD settled (transaction %s), the order\'s current amount in full. The payment held for review earlier is an extra payment: refund or credit the buyer.',
                    (string) $checkout->receivedUsd,
                    $code
                ),
                $checkout,
                $lookup,
                $state
            );
        }
        if (!$decision->isNone() && $checkout->appliedAction === $decision->action) {
            return new Decision(Decision::NONE, 'already_applied', 'This decision was applied before.', $checkout, $lookup, $state);
        }
        return $decision;
    }

    /** A checkout created after $checkout for another amount or currency, or null. */
    private function newerCheckoutWithOtherTerms(string $orderId, StoredCheckout $checkout): ?StoredCheckout
    {
        foreach ($this->port->checkouts($orderId) as $other) {
            if ($other->hasCode($checkout->transactionCode)) {
                return null;
            }
            $sameTerms = $other->fiatCurrency === $checkout->fiatCurrency
                && Money::compare($other->fiatAmount, $checkout->fiatAmount) === 0;
            if (!$sameTerms) {
                return $other;
            }
        }
        return null;
    }

    /**
     * True when the lookup settles, in full and on time, the order's newest checkout, on which
     * nothing was applied before: what the order asks now has been paid.
     *
     * @param array<string, mixed> $lookup
     */
    private function paysTheOrderAsItIsNow(string $orderId, StoredCheckout $checkout, array $lookup): bool
    {
        $newest = $this->port->checkouts($orderId)[0] ?? null;
        if ($newest === null || !$newest->hasCode($checkout->transactionCode) || $checkout->appliedAction !== null) {
            return false;
        }
        if (($lookup['status'] ?? null) !== 'settled' || ($lookup['late'] ?? false) === true) {
            return false;
        }
        $received = Money::parseDecimal($lookup['received_usd'] ?? null, 'USD amount');
        return Money::compare($received, Money::parseDecimal($lookup['amount_in_usd'] ?? null, 'USD amount')) >= 0;
    }

    /** @param array<string, mixed> $lookup */
    private function holdsMoney(array $lookup): bool
    {
        if (!in_array($lookup['status'] ?? null, ['settled', 'underpaid', 'expired'], true)) {
            return false;
        }
        return Money::compare(Money::parseDecimal($lookup['received_usd'] ?? null, 'USD amount'), '0') > 0;
    }

    private function apply(string $orderId, Decision $decision): void
    {
        $checkout = $decision->checkout;
        $resolution = null;
        switch ($decision->action) {
            case Decision::MARK_PAID:
                if (!$this->port->isPaymentBooked($orderId, $checkout->transactionCode)) {
                    $this->port->bookPayment($orderId, $decision);
                }
                $this->port->changeOrderState($orderId, OrderState::PAID, $decision);
                $resolution = StoredCheckout::RESOLUTION_BOOKED;
                break;
            case Decision::RECORD_BOOKED:
                $resolution = StoredCheckout::RESOLUTION_BOOKED;
                break;
            case Decision::HOLD_UNDERPAID:
                $this->port->changeOrderState($orderId, OrderState::UNDERPAID, $decision);
                break;
            case Decision::CANCEL_EXPIRED:
                $this->port->changeOrderState($orderId, OrderState::CANCELLED, $decision);
                break;
            case Decision::HOLD_LATE_PAYMENT:
                $this->port->changeOrderState($orderId, OrderState::LATE_PAYMENT_REVIEW, $decision);
                $this->port->notifyOwner($orderId, $decision);
                $resolution = StoredCheckout::RESOLUTION_FLAGGED;
                break;
            case Decision::REJECT_MISMATCH:
            case Decision::FLAG_EXTRA_PAYMENT:
                $this->port->notifyOwner($orderId, $decision);
                $resolution = StoredCheckout::RESOLUTION_FLAGGED;
                break;
            default:
                return;
        }
        $checkout->appliedAction = $decision->action === Decision::RECORD_BOOKED ? Decision::MARK_PAID : $decision->action;
        $checkout->resolution = $resolution;
        $this->port->recordApplied($orderId, $checkout);
    }

    /**
     * The claim marker once it is free or expired, waiting up to $waitSeconds for a live one to go.
     */
    private function waitForClaim(string $orderId, int $waitSeconds): ?string
    {
        $deadline = $this->clock->now() + $waitSeconds;
        $held = $this->port->readClaim($orderId);
        while ($held !== null && !Claim::isExpired($held, $this->clock->now()) && $this->clock->now() < $deadline) {
            $this->clock->sleep(200000);
            $held = $this->port->readClaim($orderId);
        }
        return $held;
    }

    private function findCheckout(string $orderId, string $code): ?StoredCheckout
    {
        foreach ($this->port->checkouts($orderId) as $checkout) {
            if ($checkout->hasCode($code)) {
                return $checkout;
            }
        }
        return null;
    }
}
