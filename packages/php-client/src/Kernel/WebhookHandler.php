<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

use CryptoCheckout\Client\Exception\InvalidWebhookException;
use CryptoCheckout\Client\Kernel\Ledger\Ledger;
use CryptoCheckout\Client\WebhookParser;

/**
 * The transaction.settled webhook, the same on every platform. The body is unsigned, so it only
 * names a transaction: the order is found by the transaction code stored on it (never by the
 * order's current payment method, which platforms change behind the plugin's back), and the
 * Runner decides on the service's own record.
 *
 * HTTP status policy (the service waits 8 s; a lookup is cut off at 5 s):
 * - 405 not POST; 413 body over 64 KiB; 400 not a transaction.settled body (field named);
 * - 200 "ignored": no order holds this code (a forged or foreign webhook; nothing to retry);
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

    public function __construct(OrderPort $orders, Ledger $ledger, Runner $runner)
    {
        $this->orders = $orders;
        $this->ledger = $ledger;
        $this->runner = $runner;
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

    /** @return array{reply: HttpReply, verified: bool} */
    private static function unverified(HttpReply $reply): array
    {
        return ['reply' => $reply, 'verified' => false];
    }
}
