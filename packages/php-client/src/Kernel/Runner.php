<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

use CryptoCheckout\Client\Client;
use CryptoCheckout\Client\Exception\CryptoCheckoutException;
use CryptoCheckout\Client\Kernel\Ledger\Ledger;
use CryptoCheckout\Client\Reconciler;

/**
 * Brings an order in line with the service. Webhooks, the scheduled poll and the buyer's return
 * all come here, and every decision is taken on the authoritative GET /transaction, never on a
 * webhook body. For each checkout of the order:
 *
 *   lookup → claim the order → read one snapshot → decide (Reconciler) → apply → record → release
 *
 * The lookup happens before the claim, so the claim is held only for a few writes. The claim (one
 * compare-and-swap on the ledger) lets one run at a time change an order, and the snapshot is read
 * under it, so the decision is taken once, on what the order is now. Applying is idempotent — a
 * payment whose transaction id the platform already holds is never booked again — so a run that
 * dies anywhere is completed by the next one: its lease ends (Claim::LEASE_SECONDS), the next run
 * takes the order over, decides on what it finds, and does what is left.
 */
final class Runner
{
    /** Lookups are cut off well inside the 8 s the service waits for a webhook answer. */
    public const LOOKUP_TIMEOUT_SECONDS = 5;

    /** At most this many checkouts of one order per run (newest first). */
    public const MAX_CHECKOUTS_PER_RUN = 5;

    /** Checks triggered by a buyer's page are made at most this often per order. */
    public const BUYER_CHECK_SECONDS = 5;

    /** Log levels of applied actions: a payment that does not match its order is what an owner must see. */
    private const LEVELS = [
        Decision::MARK_PAID => 'info',
        Decision::RECORD_BOOKED => 'info',
        Decision::REJECT_MISMATCH => 'error',
    ];

    private OrderPort $orders;
    private Ledger $ledger;
    /** @var callable(string): Client */
    private $clientFor;
    private Clock $clock;

    /**
     * @param callable(string): Client $clientFor the client for a service URL (the one stored on the
     *     checkout), with the platform's transport and LOOKUP_TIMEOUT_SECONDS
     */
    public function __construct(OrderPort $orders, Ledger $ledger, callable $clientFor, ?Clock $clock = null)
    {
        $this->orders = $orders;
        $this->ledger = $ledger;
        $this->clientFor = $clientFor;
        $this->clock = $clock ?? new SystemClock();
    }

    /**
     * Reconciles one order: the checkout with $transactionCode, or every checkout still watched or
     * awaiting confirmation of its booked payment (newest first). With $waitSeconds, a run that finds the order claimed waits up to that long
     * for the claim to go (a webhook arriving while the buyer's page checks the same order).
     *
     * @param string $trigger webhook, poll, return, status or admin (for the log)
     */
    public function run(string $orderId, string $trigger, ?string $transactionCode = null, int $waitSeconds = 0): RunOutcome
    {
        $now = $this->clock->now();
        $outcomes = [];
        $checked = 0;
        foreach ($this->ledger->checkouts($orderId) as $checkout) {
            $named = $transactionCode !== null && $checkout->hasCode($transactionCode);
            $looked = $checkout->isWatched($now) || $checkout->awaitsConfirmation($now);
            if ($named || ($transactionCode === null && $looked && $checked++ < self::MAX_CHECKOUTS_PER_RUN)) {
                $outcomes[] = $this->runCheckout($orderId, $checkout, $trigger, $waitSeconds);
            }
        }
        return RunOutcome::combine($outcomes);
    }

    /**
     * A run for a buyer's page: at most once every BUYER_CHECK_SECONDS per order, and only while the
     * order has a watched checkout, or shows unpaid although its payment is booked (a save undid it:
     * repaired now rather than at the next poll). Returns null when no check was due.
     */
    public function runForBuyer(string $orderId): ?RunOutcome
    {
        $now = $this->clock->now();
        $watched = false;
        $booked = false;
        foreach ($this->ledger->checkouts($orderId) as $checkout) {
            if ($checkout->checkedAt !== null && $checkout->checkedAt > $now - self::BUYER_CHECK_SECONDS) {
                return null;
            }
            $watched = $watched || $checkout->isWatched($now);
            $booked = $booked || $checkout->awaitsConfirmation($now);
        }
        if (!$watched && $booked) {
            $watched = in_array($this->orders->orderState($orderId, $this->ledger->recordedState($orderId)), OrderState::OPEN, true);
        }
        return $watched ? $this->run($orderId, 'status') : null;
    }

    /**
     * One scheduled poll: the due checkouts in the policy's order, until the batch or the time
     * budget is used up; then the kernel's expired state values are cleared.
     *
     * @return list<RunOutcome>
     */
    public function poll(PollPolicy $policy): array
    {
        $started = $this->clock->now();
        $outcomes = [];
        foreach ($this->ledger->due($policy, $started) as [$orderId, $code]) {
            if ($this->clock->now() - $started >= $policy->timeBudgetSeconds) {
                $this->orders->log('info', 'Poll stopped at its time budget; the rest is checked next time.', ['checked' => count($outcomes)]);
                break;
            }
            $outcomes[] = $this->run($orderId, 'poll', $code);
        }
        $this->ledger->forgetExpired($this->clock->now());
        return $outcomes;
    }

    private function runCheckout(string $orderId, StoredCheckout $known, string $trigger, int $waitSeconds): RunOutcome
    {
        $code = $known->transactionCode;
        $context = ['order' => $orderId, 'transaction' => $code, 'trigger' => $trigger];
        $askedAt = $this->clock->now();
        try {
            $lookup = ($this->clientFor)($known->serviceUrl)->getTransaction($code);
        } catch (CryptoCheckoutException $exception) {
            $this->ledger->touch($code, $askedAt);
            $this->orders->log('warning', 'Looking up the transaction failed: ' . $exception->getMessage(), $context);
            return new RunOutcome(RunOutcome::LOOKUP_FAILED, $code);
        }
        $status = is_string($lookup['status'] ?? null) ? $lookup['status'] : null;

        $claim = $this->ledger->claimWaiting($orderId, 'run', $code, $waitSeconds, $this->clock);
        if ($claim === null) {
            $this->orders->log('debug', 'Another request is updating the order; this one leaves it to it.', $context);
            return new RunOutcome(RunOutcome::BUSY, $code, null, null, $status);
        }
        if ($claim->tookOver !== null) {
            $this->orders->log('warning', 'Completing the work of an interrupted run (' . $claim->tookOver . ').', $context);
        }
        try {
            $snapshot = $this->snapshot($orderId, $code);
            $checkout = $snapshot->checkout($code);
            if ($checkout === null || ($checkout->checkedAt !== null && $checkout->checkedAt > $askedAt)) {
                // Another run checked after this one asked: its record is the fresher one.
                return new RunOutcome(RunOutcome::UNCHANGED, $code, null, 'checked_meanwhile', $checkout->lastStatus ?? $status);
            }
            $checkout->recordLookup($lookup, $this->clock->now());
            try {
                $decision = Decision::fromReconciler(Reconciler::decide($snapshot->reconcilerInput($checkout), $lookup), $checkout, $lookup, $snapshot->state);
            } catch (CryptoCheckoutException $unreadable) {
                $this->ledger->touch($code, $askedAt);
                $this->orders->log('warning', 'The transaction lookup held an unreadable amount: ' . $unreadable->getMessage(), $context);
                return new RunOutcome(RunOutcome::LOOKUP_FAILED, $code, null, null, $status);
            }
            $this->apply($snapshot, $decision);
            if ($trigger === 'poll' && $decision->isNone() && $checkout->resolution === StoredCheckout::RESOLUTION_BOOKED && $snapshot->state === OrderState::PAID) {
                // A poll, at least a minute after the booking (PollPolicy), still sees the order
                // paid: the requests that were running when it was booked are over.
                $checkout->confirmedAt = $checkout->confirmedAt ?? $this->clock->now();
            }
            $this->ledger->record($orderId, $checkout);
        } catch (\Exception $exception) {
            $this->orders->log('error', sprintf('Applying %s failed: %s', isset($decision) ? $decision->action : 'the decision', $exception->getMessage()), $context);
            return new RunOutcome(RunOutcome::FAILED, $code, isset($decision) ? $decision->action : null, isset($decision) ? $decision->reason : null, $status);
        } finally {
            $this->ledger->release($claim);
        }

        if ($decision->isNone()) {
            $this->orders->log('debug', sprintf('Transaction is %s; nothing to change (%s).', (string) $status, $decision->reason), $context);
            return new RunOutcome(RunOutcome::UNCHANGED, $code, $decision->action, $decision->reason, $status);
        }
        $logged = $context + ['action' => $decision->action, 'reason' => $decision->reason];
        $price = $decision->action === Decision::RECORD_BOOKED ? $decision->priceLine() : null;
        if ($price !== null) {
            // A payment an interrupted run booked is recorded now, so this line is the one that
            // carries its price (the run that booked it died before writing its own).
            $logged['price'] = $price;
        }
        $this->orders->log(self::LEVELS[$decision->action] ?? 'warning', $decision->note, $logged);
        return new RunOutcome(RunOutcome::APPLIED, $code, $decision->action, $decision->reason, $status);
    }

    /** The order as it is now: the platform's state and the ledger's checkouts, read once. */
    private function snapshot(string $orderId, string $code): OrderSnapshot
    {
        $state = $this->orders->orderState($orderId, $this->ledger->recordedState($orderId));
        return new OrderSnapshot($orderId, $state, $this->ledger->checkouts($orderId), $this->orders->isPaymentBooked($orderId, $code));
    }

    /** Carries out $decision on the platform, and updates the checkout's applied fields to match. */
    private function apply(OrderSnapshot $snapshot, Decision $decision): void
    {
        $orderId = $snapshot->orderId;
        $checkout = $decision->checkout;
        $target = null;
        $resolution = null;
        $notify = false;
        switch ($decision->action) {
            case Decision::MARK_PAID:
                if (!$snapshot->paymentBooked) {
                    $this->orders->bookPayment($orderId, $decision);
                }
                $target = OrderState::PAID;
                $resolution = StoredCheckout::RESOLUTION_BOOKED;
                // A later poll confirms the order still shows it, so a save that undid it is
                // repaired; a repair itself is made once (a platform that refuses it is not asked
                // again and again).
                $checkout->confirmedAt = $decision->reason === 'booked_undone' ? $this->clock->now() : null;
                break;
            case Decision::RECORD_BOOKED:
                $resolution = StoredCheckout::RESOLUTION_BOOKED;
                break;
            case Decision::HOLD_UNDERPAID:
                $target = OrderState::UNDERPAID;
                break;
            case Decision::CANCEL_EXPIRED:
                $target = OrderState::CANCELLED;
                break;
            case Decision::HOLD_LATE_PAYMENT:
                $target = OrderState::LATE_PAYMENT_REVIEW;
                $resolution = StoredCheckout::RESOLUTION_FLAGGED;
                $notify = true;
                break;
            case Decision::REJECT_MISMATCH:
            case Decision::FLAG_EXTRA_PAYMENT:
                $resolution = StoredCheckout::RESOLUTION_FLAGGED;
                $notify = true;
                break;
            default:
                return;
        }
        $noted = false;
        if ($target !== null) {
            $noted = $this->orders->changeOrderState($orderId, $target, $decision);
            $this->ledger->recordState($orderId, $target);
        }
        if ($notify && $checkout->notified !== $decision->noticeKey()) {
            // A hold whose note the state change wrote has told the owner already.
            if (!$noted) {
                $this->orders->notifyOwner($orderId, $decision);
            }
            $checkout->notified = $decision->noticeKey();
        }
        $checkout->appliedAction = $decision->action === Decision::RECORD_BOOKED ? Decision::MARK_PAID : $decision->action;
        $checkout->resolution = $resolution;
    }
}
