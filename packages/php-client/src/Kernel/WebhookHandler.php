<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

use CryptoCheckout\Client\Exception\InvalidWebhookException;
use CryptoCheckout\Client\Kernel\Ledger\Ledger;
use CryptoCheckout\Client\WebhookParser;

/**
 * The transaction.settled and refund.paid webhooks, the same on every platform. The body is
 * unsigned, so it only names a transaction or a refund: the order is found by the transaction code
 * stored on it (never by the order's current payment method, which platforms change behind the
 * plugin's back), and the Runner decides on the service's own record; a refund is found by its id
 * in the ledger and RefundRunner checks it with GET /refund.
 *
 * HTTP status policy (the service waits 8 s; a lookup is cut off at 5 s):
 * - 405 not POST; 413 body over 64 KiB; 400 not a transaction.settled or refund.paid body (field named);
 * - 200 "ignored": no order holds this code, no refund of the shop has this id, or the platform
 *   takes no refunds (a forged or foreign webhook; nothing to retry);
 * - 200 applied / unchanged / busy (another request is updating the order);
 * - 503 the service could not be asked, or applying failed: the delivery shows as failed in the
 *   service's log, its opt-in retries try again, and the poll picks the order up regardless.
 */
final class WebhookHandler
{
    public const MAX_BODY_BYTES = 65536;

    /** How long a webhook waits for another request that holds the order. */
    public const CLAIM_WAIT_SECONDS = 2;

    private OrderPort $orders;
    private Ledger $ledger;
    private Runner $runner;
    private ?RefundRunner $refundRunner;
    private ?RefundPort $refunds;

    public function __construct(OrderPort $orders, Ledger $ledger, Runner $runner, ?RefundRunner $refundRunner = null, ?RefundPort $refunds = null)
    {
        $this->orders = $orders;
        $this->ledger = $ledger;
        $this->runner = $runner;
        $this->refundRunner = $refundRunner;
        $this->refunds = $refunds;
    }

    /**
     * @return array{reply: HttpReply, verified: bool} verified: the webhook named a transaction of
     *     this shop and the service's lookup confirmed the settlement it announced (only then may a
     *     "last webhook" time be recorded)
     */
    public function handle(string $method, string $rawBody): array
    {
        if (strtoupper($method) !== 'POST') {
            return self::unverified(HttpReply::error(405, 'method_not_allowed', 'Send the webhook with POST.', null, ['Allow' => 'POST']));
        }
        if (strlen($rawBody) > self::MAX_BODY_BYTES) {
            return self::unverified(HttpReply::error(413, 'payload_too_large', 'The webhook body is larger than 64 KiB.', 'body'));
        }
        if (WebhookParser::eventOf($rawBody) === WebhookParser::REFUND_PAID_EVENT) {
            return $this->refundPaid($rawBody);
        }
        try {
            $hint = WebhookParser::parse($rawBody);
        } catch (InvalidWebhookException $exception) {
            $this->orders->log('warning', 'Webhook refused: ' . $exception->getMessage());
            $field = $exception->getField();
            return self::unverified(HttpReply::error(400, 'invalid_request', $exception->getMessage(), $field === '' ? 'body' : $field));
        }

        $code = strtolower((string) $hint['transaction_code']);
        $orderId = $this->ledger->orderOf($code);
        if ($orderId === null) {
            $this->orders->log('warning', 'Webhook for a transaction no order of this shop holds; ignored.', ['transaction' => $code, 'reference' => (string) $hint['external_reference']]);
            return self::unverified(HttpReply::success(['result' => 'ignored']));
        }

        $outcome = $this->runner->run($orderId, 'webhook', $code, self::CLAIM_WAIT_SECONDS);
        if ($outcome->result === RunOutcome::LOOKUP_FAILED || $outcome->result === RunOutcome::FAILED) {
            return self::unverified(HttpReply::error(503, 'unavailable', 'The transaction could not be confirmed with the service now; the order is checked again by the scheduled poll.'));
        }
        // Verified only when the service's own record says what the webhook announced: a forged
        // body naming a real but unpaid transaction must not look like a working webhook.
        return ['reply' => HttpReply::success(['result' => $outcome->result]), 'verified' => $outcome->status === 'settled'];
    }

    /**
     * refund.paid: the refund named is checked with the service (RefundRunner), never taken from the body.
     *
     * @return array{reply: HttpReply, verified: bool} verified: the service's record says paid
     */
    private function refundPaid(string $rawBody): array
    {
        try {
            $hint = WebhookParser::parseRefundPaid($rawBody);
        } catch (InvalidWebhookException $exception) {
            $this->orders->log('warning', 'Webhook refused: ' . $exception->getMessage());
            $field = $exception->getField();
            return self::unverified(HttpReply::error(400, 'invalid_request', $exception->getMessage(), $field === '' ? 'body' : $field));
        }
        $refundId = (string) $hint['refund_id'];
        if ($this->refundRunner === null || $this->refunds === null) {
            $this->orders->log('warning', 'Refund webhook, but this shop takes no refunds through the plugin; ignored.', ['refund' => $refundId]);
            return self::unverified(HttpReply::success(['result' => 'ignored']));
        }
        $outcome = $this->refundRunner->check($this->refunds, $refundId, self::CLAIM_WAIT_SECONDS)[0];
        if ($outcome['result'] === RefundRunner::RESULT_UNKNOWN) {
            $this->orders->log('warning', 'Webhook for a refund this shop did not start; ignored.', ['refund' => $refundId, 'transaction' => (string) $hint['transaction_code']]);
            return self::unverified(HttpReply::success(['result' => 'ignored']));
        }
        if ($outcome['result'] === RefundRunner::RESULT_LOOKUP_FAILED || $outcome['result'] === RefundRunner::RESULT_FAILED) {
            return self::unverified(HttpReply::error(503, 'unavailable', 'The refund could not be confirmed with the service now; it is checked again by the scheduled poll.'));
        }
        return ['reply' => HttpReply::success(['result' => $outcome['result']]), 'verified' => $outcome['status'] === RefundRecord::PAID];
    }

    /** @return array{reply: HttpReply, verified: bool} */
    private static function unverified(HttpReply $reply): array
    {
        return ['reply' => $reply, 'verified' => false];
    }
}
