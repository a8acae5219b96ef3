<?php

declare(strict_types=1);

namespace CryptoCheckout\Client;

use CryptoCheckout\Client\Exception\InvalidWebhookException;
use CryptoCheckout\Client\Support\Json;
use CryptoCheckout\Client\Validation\Rules;
use CryptoCheckout\Client\Validation\ShapeMismatch;

/**
 * Parses the body of the transaction.settled webhook (spec 6.2). The webhook is unsigned, so the
 * result is only a hint: read its transaction_code, then act on Client::getTransaction().
 */
final class WebhookParser
{
    public const SETTLED_EVENT = 'transaction.settled';

    private function __construct()
    {
    }

    /**
     * Returns exactly the fields of spec 6.2 (event, transaction_code, external_reference,
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
}
