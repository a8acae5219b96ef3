<?php

declare(strict_types=1);

namespace CryptoCheckout\Client;

use CryptoCheckout\Client\Exception\InvalidWebhookException;
use CryptoCheckout\Client\Support\Json;
use CryptoCheckout\Client\Validation\Rules;
use CryptoCheckout\Client\Validation\ShapeMismatch;

/**
 * Parses the bodies of the transaction.settled webhook (docs/api.md, "Webhook `transaction.settled`")
 * and the refund.paid webhook (docs/refunds.md), and verifies their optional signature. Even a
 * signed body is only a hint: read its transaction_code or refund_id, then act on
 * Client::getTransaction() or Client::getRefund().
 */
final class WebhookParser
{
    public const SETTLED_EVENT = 'transaction.settled';

    /** Sent once per refund when it is paid. */
    public const REFUND_PAID_EVENT = 'refund.paid';

    /** The header of the optional signature, in PHP $_SERVER['HTTP_X_CRYPTOCHECKOUT_SIGNATURE']. */
    public const SIGNATURE_HEADER = 'x-cryptocheckout-signature';

    /** Replay window verifySignature() allows by default, in seconds either side of now. */
    public const DEFAULT_TOLERANCE_SECONDS = 300;

    private function __construct()
    {
    }

    /**
     * Returns exactly the fields of the settled webhook (event, transaction_code, external_reference,
     * fiat_amount, fiat_currency, received_usd, wallet_address, wallet_currency, wallet_network,
     * payout_dispatched, timestamp in Unix seconds); other members of the body are dropped.
     *
     * @return array<string, mixed>
     * @throws InvalidWebhookException naming the first offending field ("" for the body itself)
     */
    public static function parse(string $rawBody): array
    {
        try {
            $body = Json::decode($rawBody);
        } catch (\JsonException $exception) {
            throw new InvalidWebhookException('', 'The webhook body is not JSON: ' . $exception->getMessage());
        }
        $rule = Rules::shape([
            'event' => Rules::oneOf([self::SETTLED_EVENT]),
            'transaction_code' => Rules::transactionCode(),
            'external_reference' => Rules::string(),
            'fiat_amount' => Rules::nonNegativeNumber(),
            'fiat_currency' => Rules::pattern('/\A[A-Z]{3}\z/', 'an uppercase ISO 4217 code'),
            'received_usd' => Rules::usdAmount(),
            'wallet_address' => Rules::nonEmptyString(),
            'wallet_currency' => Rules::nonEmptyString(),
            'wallet_network' => Rules::nonEmptyString(),
            'payout_dispatched' => Rules::boolean(),
            'timestamp' => Rules::nonNegativeInteger(),
        ]);
        try {
            return Rules::check($rule, $body);
        } catch (ShapeMismatch $mismatch) {
            throw new InvalidWebhookException($mismatch->getField(), 'Invalid webhook body: ' . $mismatch->getMessage());
        }
    }

    /**
     * The `event` member of a webhook body ("transaction.settled", "refund.paid"), or null when the
     * body is not a JSON object with a string event; parse() or parseRefundPaid() then checks the rest.
     */
    public static function eventOf(string $rawBody): ?string
    {
        try {
            $body = Json::decode($rawBody);
        } catch (\JsonException $exception) {
            return null;
        }
        $event = Json::isObject($body) ? (Json::members($body)['event'] ?? null) : null;
        return is_string($event) ? $event : null;
    }

    /**
     * Returns exactly the fields of the refund.paid webhook (event, refund_id, transaction_code,
     * external_reference, reference, amount as a decimal string, asset, network, address, tx_id,
     * timestamp in Unix seconds). A hint only: confirm with Client::getRefund($body['refund_id']).
     *
     * @return array<string, mixed>
     * @throws InvalidWebhookException naming the first offending field ("" for the body itself)
     */
    public static function parseRefundPaid(string $rawBody): array
    {
        try {
            $body = Json::decode($rawBody);
        } catch (\JsonException $exception) {
            throw new InvalidWebhookException('', 'The webhook body is not JSON: ' . $exception->getMessage());
        }
        $rule = Rules::shape([
            'event' => Rules::oneOf([self::REFUND_PAID_EVENT]),
            'refund_id' => Rules::refundId(),
            'transaction_code' => Rules::transactionCode(),
            'external_reference' => Rules::string(),
            'reference' => Rules::nullable(Rules::string()),
            'amount' => Rules::decimalString(),
            'asset' => Rules::string(),
            'network' => Rules::string(),
            'address' => Rules::string(),
            'tx_id' => Rules::string(),
            'timestamp' => Rules::nonNegativeInteger(),
        ]);
        try {
            return Rules::check($rule, $body);
        } catch (ShapeMismatch $mismatch) {
            throw new InvalidWebhookException($mismatch->getField(), 'Invalid webhook body: ' . $mismatch->getMessage());
        }
    }

    /**
     * True when $header is a valid signature of $rawBody under $secret, made within
     * $toleranceSeconds of $nowSeconds (both Unix seconds) either way, which bounds replays. The
     * header is `t=<unix seconds>,v1=<lower-case hex HMAC-SHA256 of "<t>.<body>">` (docs/api.md,
     * "Webhook signature"); pass the body exactly as received (php://input), before
     * any decoding. Never throws: a missing or malformed header, an empty secret, a duplicated
     * part, a non-hex or wrong-length digest all give false. Parts other than t and v1 are
     * ignored, so a later scheme can be sent alongside.
     */
    public static function verifySignature(
        string $secret,
        string $rawBody,
        string $header,
        int $nowSeconds,
        int $toleranceSeconds = self::DEFAULT_TOLERANCE_SECONDS
    ): bool {
        if ($secret === '') {
            return false;
        }
        $parts = self::signatureParts($header);
        if ($parts === null || !isset($parts['t'], $parts['v1'])) {
            return false;
        }
        $timestamp = $parts['t'];
        $given = $parts['v1'];
        // Exactly what the signer writes: a canonical decimal of at most 15 digits and a
        // lower-case hex digest. Anything else is refused, never normalised.
        if (
            preg_match('/\A(?:0|[1-9][0-9]{0,14})\z/', $timestamp) !== 1
            || preg_match('/\A[0-9a-f]{64}\z/', $given) !== 1
        ) {
            return false;
        }
        if (abs($nowSeconds - (int) $timestamp) > $toleranceSeconds) {
            return false;
        }
        return hash_equals(hash_hmac('sha256', $timestamp . '.' . $rawBody, $secret), $given);
    }

    /**
     * The header's `key=value` parts, separated by commas; null when a part has no key or a key
     * repeats.
     *
     * @return array<string, string>|null
     */
    private static function signatureParts(string $header): ?array
    {
        $parts = [];
        foreach (explode(',', $header) as $part) {
            $separator = strpos($part, '=');
            if ($separator === false || $separator === 0) {
                return null;
            }
            $key = substr($part, 0, $separator);
            if (array_key_exists($key, $parts)) {
                return null;
            }
            $parts[$key] = substr($part, $separator + 1);
        }
        return $parts;
    }
}
