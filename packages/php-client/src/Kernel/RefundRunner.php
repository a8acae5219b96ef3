<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

use CryptoCheckout\Client\Client;
use CryptoCheckout\Client\Exception\ApiException;
use CryptoCheckout\Client\Exception\CryptoCheckoutException;
use CryptoCheckout\Client\Exception\MoneyException;
use CryptoCheckout\Client\Exception\NetworkException;
use CryptoCheckout\Client\Kernel\Ledger\Ledger;
use CryptoCheckout\Client\Kernel\Ledger\RefundLedger;
use CryptoCheckout\Client\Money;
use CryptoCheckout\Client\Support\Text;
use CryptoCheckout\Client\Wallet\Networks;

/**
 * Refunds, the same on every platform (docs/plugin-kernel.md, "Refunds"). start() asks the service
 * for a refund of a settled order and has the platform send the buyer the claim link; check() follows
 * each open refund with the authoritative GET /refund (a refund.paid webhook is only a hint) and,
 * once it is paid, has the platform record it, exactly once: under the order's claim (the Runner's
 * compare-and-swap), after asking the platform again whether it holds it already.
 */
final class RefundRunner
{
    /** Creating a refund is an admin's action: it may wait longer than a webhook's lookup. */
    public const CREATE_TIMEOUT_SECONDS = 15;
    /** How long start() waits for another request that holds the order. */
    public const START_CLAIM_WAIT_SECONDS = 8;
    /** Refunds a check looks at per run at most, and the time after which it stops starting lookups. */
    public const BATCH_SIZE = 20;
    public const TIME_BUDGET_SECONDS = 40;
    /** A refund awaiting the merchant's payment is looked at every poll (PollPolicy::INTERVAL_SECONDS). */
    public const PAYMENT_RECHECK_SECONDS = 240;
    /** One awaiting the buyer's address (up to 30 days) every quarter of an hour. */
    public const ADDRESS_RECHECK_SECONDS = 900;

    public const RESULT_RECORDED = 'recorded';
    public const RESULT_CHANGED = 'changed';
    public const RESULT_UNCHANGED = 'unchanged';
    public const RESULT_BUSY = 'busy';
    public const RESULT_LOOKUP_FAILED = 'lookup_failed';
    public const RESULT_FAILED = 'failed';
    /** No refund of this shop has the id. */
    public const RESULT_UNKNOWN = 'unknown';

    /** English with %placeholders%, through the platform's translation. */
    public const MESSAGES = [
        'no_credential' => 'No merchant key is set: enter the merchant key your Crypto Checkout operator gave you in the payment settings. Nothing was refunded.',
        'credential_malformed' => 'The merchant key in the payment settings is not valid (it must be one word, without spaces): copy it again. Nothing was refunded.',
        RefundStart::INVALID_AMOUNT => 'The refund amount must be a positive number such as 12.50. Nothing was refunded.',
        RefundStart::NO_SETTLED_CHECKOUT => 'This order has no settled Crypto Checkout payment to refund. Nothing was refunded.',
        RefundStart::BUSY => 'Another request is updating this order right now. Nothing was refunded; try again in a moment.',
        RefundStart::UNREACHABLE => 'The Crypto Checkout service could not be reached (%error%). Nothing was refunded; try again in a few minutes.',
        RefundStart::UNAUTHORIZED => 'The Crypto Checkout service did not accept the merchant key: %message% Check the key in the payment settings. Nothing was refunded.',
        RefundStart::REFUSED => 'The Crypto Checkout service refused the refund: %message%',
        RefundStart::UNEXPECTED => 'The Crypto Checkout service gave an answer the plugin cannot read (%error%). Nothing was refunded; try again in a few minutes.',
        'started' => 'Refund of %amount% %asset% requested; the buyer was sent the claim link.',
        'started_no_link' => 'Refund of %amount% %asset% requested, but the claim link could not be sent to the buyer: send them %claim_url%',
        'started_before' => 'Refund of %amount% %asset% was requested before; the buyer has the claim link.',
        RefundRecord::AWAITING_PAYMENT => 'The buyer confirmed the address for the refund of %amount% %asset%: send %amount% %asset% on %network% to %address%.',
        RefundRecord::CANCELLED => 'The refund of %amount% %asset% was cancelled; nothing was paid.',
        RefundRecord::EXPIRED => 'The refund of %amount% %asset% expired: the buyer did not confirm an address in time, and nothing was paid. Start a new refund if the buyer should still get it.',
    ];

    private OrderPort $orders;
    private Ledger $ledger;
    private RefundLedger $refunds;
    /** @var callable(string, int): Client */
    private $clientFor;
    private Clock $clock;
    /** @var callable(string, array<string, string>): string|null */
    private $translate;
    private bool $ready = false;

    /**
     * @param OrderPort $orders for the log
     * @param callable(string, int): Client $clientFor the client for a service URL, cut off after the seconds given
     * @param callable(string, array<string, string>): string|null $translate
     */
    public function __construct(OrderPort $orders, Ledger $ledger, callable $clientFor, Clock $clock, ?callable $translate = null)
    {
        $this->orders = $orders;
        $this->ledger = $ledger;
        $this->refunds = $ledger->refunds();
        $this->clientFor = $clientFor;
        $this->clock = $clock;
        $this->translate = $translate;
    }

    /**
     * Asks the service to refund $amount $currency of the order's settled payment (Kernel::startRefund()).
     * Nothing is stored when the service made no refund.
     */
    public function start(string $orderId, string $amount, string $currency, string $platformRefundId, ?string $reason, string $credential, RefundPort $port): RefundStart
    {
        $credential = trim($credential);
        if ($credential === '') {
            return RefundStart::failed(RefundStart::NO_CREDENTIAL, $this->say('no_credential'));
        }
        if (!SettingsRules::isMerchantKey($credential)) {
            return RefundStart::failed(RefundStart::NO_CREDENTIAL, $this->say('credential_malformed'));
        }
        try {
            $amount = Money::parseDecimal(trim($amount));
        } catch (MoneyException $invalid) {
            $amount = '0';
        }
        if (Money::compare($amount, '0') <= 0) {
            return RefundStart::failed(RefundStart::INVALID_AMOUNT, $this->say(RefundStart::INVALID_AMOUNT));
        }
        $this->ensureTables();
        $checkout = $this->settledCheckout($orderId);
        if ($checkout === null) {
            return RefundStart::failed(RefundStart::NO_SETTLED_CHECKOUT, $this->say(RefundStart::NO_SETTLED_CHECKOUT));
        }
        $context = ['order' => $orderId, 'transaction' => $checkout->transactionCode, 'platform_refund' => $platformRefundId];
        // Under the order's claim: a retried admin action waits for the first one and finds its row.
        $claim = $this->ledger->claimWaiting($orderId, 'refund', $checkout->transactionCode, self::START_CLAIM_WAIT_SECONDS, $this->clock);
        if ($claim === null) {
            return RefundStart::failed(RefundStart::BUSY, $this->say(RefundStart::BUSY));
        }
        try {
            $request = ['transaction_code' => $checkout->transactionCode, 'amount' => $amount, 'currency' => Text::asciiUpper(trim($currency))];
            $platformRefundId = trim($platformRefundId);
            if ($platformRefundId !== '') {
                $request['reference'] = $platformRefundId;
            }
            $reason = self::printable($reason, 200);
            if ($reason !== null) {
                $request['reason'] = $reason;
            }
            try {
                $created = ($this->clientFor)($checkout->serviceUrl, self::CREATE_TIMEOUT_SECONDS)->createRefund($request, $credential);
            } catch (CryptoCheckoutException $problem) {
                $this->orders->log('warning', 'Starting a refund failed; nothing was refunded: ' . StartProblem::forOwner($problem), $context);
                return $this->problemOf($problem);
            }
            return $this->keep($orderId, $created, $platformRefundId === '' ? null : $platformRefundId, $checkout->serviceUrl, $port, $context);
        } finally {
            $this->ledger->release($claim);
        }
    }

    /**
     * Looks at the refund $refundId, or at the due ones (never checked first, then the least
     * recently checked; at most BATCH_SIZE, within TIME_BUDGET_SECONDS).
     *
     * @param int $waitSeconds how long to wait for a request that holds the order
     * @return list<array{refund_id: string, order_id: string|null, result: string, status: string|null}>
     */
    public function check(RefundPort $port, ?string $refundId = null, int $waitSeconds = 0): array
    {
        $this->ensureTables();
        if ($refundId !== null) {
            $refund = $this->refunds->find($refundId);
            if ($refund === null) {
                return [['refund_id' => strtolower(trim($refundId)), 'order_id' => null, 'result' => self::RESULT_UNKNOWN, 'status' => null]];
            }
            return [$this->checkOne($refund, $port, $waitSeconds)];
        }
        $started = $this->clock->now();
        $outcomes = [];
        foreach ($this->refunds->due($started - self::PAYMENT_RECHECK_SECONDS, $started - self::ADDRESS_RECHECK_SECONDS, self::BATCH_SIZE) as $refund) {
            if ($this->clock->now() - $started >= self::TIME_BUDGET_SECONDS) {
                $this->orders->log('info', 'Refund check stopped at its time budget; the rest is checked next time.', ['checked' => count($outcomes)]);
                break;
            }
            $outcomes[] = $this->checkOne($refund, $port, $waitSeconds);
        }
        return $outcomes;
    }

    /** @return list<RefundRecord> the order's refunds, newest first */
    public function ofOrder(string $orderId): array
    {
        $this->ensureTables();
        return $this->refunds->ofOrder($orderId);
    }

    /**
     * Stores the refund the service made (or found again), sends the claim link once, and tells the owner.
     *
     * @param array<string, mixed> $created
     * @param array<string, scalar|null> $context
     */
    private function keep(string $orderId, array $created, ?string $platformRefundId, string $serviceUrl, RefundPort $port, array $context): RefundStart
    {
        $now = $this->clock->now();
        $refund = RefundRecord::fromService($created, $orderId, $platformRefundId, $serviceUrl, $now);
        $context['refund'] = $refund->refundId;
        if (!$this->refunds->add($refund)) {
            // Asked before with the same platform refund id: what the kernel did then stands.
            $stored = $this->refunds->find($refund->refundId) ?? $refund;
            $stored->observe($created, $now);
            $stored->claimUrl = $stored->claimUrl ?? $refund->claimUrl;
            $refund = $stored;
        }
        $message = 'started_before';
        if ($refund->claimSentAt === null && $refund->status === RefundRecord::AWAITING_ADDRESS) {
            $sent = false;
            try {
                $sent = $port->sendClaimLink($orderId, $refund);
            } catch (\Exception $failure) {
                $this->orders->log('error', 'Sending the refund claim link failed: ' . $failure->getMessage(), $context);
            }
            $refund->claimSentAt = $sent ? $now : null;
            $message = $sent ? 'started' : 'started_no_link';
            try {
                $port->refundNote($orderId, $refund, $this->say($message, $this->placeholders($refund)));
            } catch (\Exception $failure) {
                $this->orders->log('error', 'Writing the refund note failed: ' . $failure->getMessage(), $context);
            }
        }
        $this->refunds->save($refund);
        $this->orders->log('info', sprintf('Refund %s of %s %s %s.', $refund->refundId, $refund->amount, $refund->asset, ($created['created'] ?? true) ? 'requested' : 'found again'), $context);
        return RefundStart::started($refund, (bool) ($created['created'] ?? true), $this->say($message, $this->placeholders($refund)));
    }

    /** @return array{refund_id: string, order_id: string|null, result: string, status: string|null} */
    private function checkOne(RefundRecord $known, RefundPort $port, int $waitSeconds): array
    {
        $orderId = $known->orderId;
        $context = ['order' => $orderId, 'refund' => $known->refundId];
        $outcome = static function (string $result, ?string $status) use ($known, $orderId): array {
            return ['refund_id' => $known->refundId, 'order_id' => $orderId, 'result' => $result, 'status' => $status];
        };
        $askedAt = $this->clock->now();
        try {
            $lookup = ($this->clientFor)($known->serviceUrl, Runner::LOOKUP_TIMEOUT_SECONDS)->getRefund($known->refundId);
        } catch (CryptoCheckoutException $exception) {
            $this->refunds->touch($known->refundId, $askedAt);
            $this->orders->log('warning', 'Looking up the refund failed: ' . $exception->getMessage(), $context);
            return $outcome(self::RESULT_LOOKUP_FAILED, null);
        }
        $status = (string) $lookup['status'];
        $claim = $this->ledger->claimWaiting($orderId, 'refund', $known->refundId, $waitSeconds, $this->clock);
        if ($claim === null) {
            $this->orders->log('debug', 'Another request is updating the order; this refund check leaves it to it.', $context);
            return $outcome(self::RESULT_BUSY, $status);
        }
        try {
            $refund = $this->refunds->find($known->refundId);
            if ($refund === null || ($refund->checkedAt !== null && $refund->checkedAt > $askedAt)) {
                // Another check looked after this one asked: its record is the fresher one.
                return $outcome(self::RESULT_UNCHANGED, $refund === null ? $status : $refund->status);
            }
            $result = $refund->observe($lookup, $this->clock->now()) ? self::RESULT_CHANGED : self::RESULT_UNCHANGED;
            if ($refund->status === RefundRecord::PAID && $refund->recordedAt === null) {
                // Asked again under the claim: a run that died after recording it must not record it twice.
                if (!$port->isRefundRecorded($orderId, $refund->refundId)) {
                    $port->recordRefundPaid($orderId, $refund);
                }
                $refund->recordedAt = $this->clock->now();
                $refund->noticedStatus = RefundRecord::PAID;
                $result = self::RESULT_RECORDED;
            } elseif ($refund->status !== RefundRecord::AWAITING_ADDRESS && $refund->status !== RefundRecord::PAID && $refund->noticedStatus !== $refund->status) {
                $port->refundNote($orderId, $refund, $this->say($refund->status, $this->placeholders($refund)));
                $refund->noticedStatus = $refund->status;
            }
            $this->refunds->save($refund);
        } catch (\Exception $exception) {
            $this->orders->log('error', 'Applying the refund\'s status failed: ' . $exception->getMessage(), $context);
            return $outcome(self::RESULT_FAILED, $status);
        } finally {
            $this->ledger->release($claim);
        }
        if ($result !== self::RESULT_UNCHANGED) {
            $this->orders->log('info', sprintf('Refund %s of %s %s is %s.', $refund->refundId, $refund->amount, $refund->asset, $refund->status) . ($result === self::RESULT_RECORDED ? ' Recorded on the order.' : ''), $context);
        }
        return $outcome($result, $refund->status);
    }

    /** The checkout whose payment the order holds (booked), else the newest the service settled. */
    private function settledCheckout(string $orderId): ?StoredCheckout
    {
        $checkouts = $this->ledger->checkouts($orderId);
        foreach ($checkouts as $checkout) {
            if ($checkout->resolution === StoredCheckout::RESOLUTION_BOOKED) {
                return $checkout;
            }
        }
        foreach ($checkouts as $checkout) {
            if ($checkout->lastStatus === 'settled') {
                return $checkout;
            }
        }
        return null;
    }

    private function problemOf(CryptoCheckoutException $problem): RefundStart
    {
        $detail = $problem->getMessage();
        if ($problem instanceof ApiException) {
            $status = $problem->getHttpStatus();
            if ($status >= 500) {
                return RefundStart::failed(RefundStart::UNREACHABLE, $this->say(RefundStart::UNREACHABLE, ['%error%' => $detail]), $detail, $problem->getErrorCode(), $problem->getField());
            }
            $kind = $status === 401 ? RefundStart::UNAUTHORIZED : RefundStart::REFUSED;
            return RefundStart::failed($kind, $this->say($kind, ['%message%' => $detail]), $detail, $problem->getErrorCode(), $problem->getField());
        }
        $kind = $problem instanceof NetworkException ? RefundStart::UNREACHABLE : RefundStart::UNEXPECTED;
        return RefundStart::failed($kind, $this->say($kind, ['%error%' => $detail]), $detail);
    }

    /** @return array<string, string> */
    private function placeholders(RefundRecord $refund): array
    {
        $network = Networks::get($refund->network);
        return [
            '%amount%' => $refund->amount,
            '%asset%' => $refund->asset,
            '%network%' => $network === null ? $refund->network : (string) $network['name'],
            '%address%' => (string) $refund->address,
            '%claim_url%' => (string) $refund->claimUrl,
        ];
    }

    /** @param array<string, string> $parameters */
    private function say(string $key, array $parameters = []): string
    {
        $text = self::MESSAGES[$key];
        return $this->translate === null ? strtr($text, $parameters) : (string) ($this->translate)($text, $parameters);
    }

    /** A ledger installed before refunds gets their table on first use (plugins install once). */
    private function ensureTables(): void
    {
        if (!$this->ready) {
            if (!$this->ledger->isCurrent()) {
                $this->ledger->install();
            }
            $this->ready = true;
        }
    }

    /** Printable text of at most $limit characters (as the service counts them), or null. */
    private static function printable(?string $text, int $limit): ?string
    {
        if ($text === null || !Text::isUtf8($text)) {
            return null;
        }
        $text = trim((string) preg_replace('/[\p{Cc}\p{Cs}]+/u', ' ', $text));
        preg_match('/\A.{0,' . $limit . '}/us', $text, $head);
        $text = rtrim($head[0]);
        // Characters beyond the Basic Multilingual Plane count twice.
        while ($text !== '' && Text::utf16Length($text) > $limit) {
            $text = (string) preg_replace('/.\z/us', '', $text);
        }
        return $text === '' ? null : $text;
    }
}
