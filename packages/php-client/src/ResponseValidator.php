<?php

declare(strict_types=1);

namespace CryptoCheckout\Client;

use CryptoCheckout\Client\Exception\UnexpectedResponseException;
use CryptoCheckout\Client\Support\Json;
use CryptoCheckout\Client\Validation\Rules;
use CryptoCheckout\Client\Validation\ShapeMismatch;

/**
 * Checks the `data` of each successful call against the documented shape (docs/api.md): field
 * presence and types, enough to refuse garbage before a plugin acts on it. Each method takes the
 * decoded JSON (objects as stdClass or arrays) and returns it as arrays without unknown members.
 */
final class ResponseValidator
{
    /** Every state a transaction can be in; settled is terminal. */
    public const TRANSACTION_STATUSES = ['pending', 'processing', 'underpaid', 'settled', 'expired'];

    /** Every state a refund can be in (docs/refunds.md); paid, cancelled and expired are final. */
    public const REFUND_STATUSES = ['awaiting_address', 'awaiting_payment', 'paid', 'cancelled', 'expired'];

    /** Refund states a refund never leaves. */
    public const FINAL_REFUND_STATUSES = ['paid', 'cancelled', 'expired'];

    /**
     * A decimal of the service's rates and percentages (`rateDecimalSchema` in @cryptocheckout/core):
     * up to 21 integer digits and 18 decimals, at most 32 characters.
     */
    private const RATE_DECIMAL = '/\A(?=.{1,32}\z)(0|[1-9]\d{0,20})(\.\d{1,18})?\z/';

    private function __construct()
    {
    }

    /**
     * `POST /checkout` data: transaction_code, status, amount_in_usd, checkout_url, payment_options, expires_at.
     *
     * @param mixed $data
     * @return array<string, mixed>
     * @throws UnexpectedResponseException naming the first offending field
     */
    public static function checkoutCreated($data, int $httpStatus = 200): array
    {
        return self::run(Rules::shape([
            'transaction_code' => Rules::transactionCode(),
            'status' => Rules::oneOf(['pending']),
            'amount_in_usd' => Rules::usdAmount(),
            'checkout_url' => Rules::httpUrl(),
            'payment_options' => Rules::listOf(self::paymentOptionRule()),
            'expires_at' => Rules::isoDateTime(),
        ]), $data, 'checkout', $httpStatus);
    }

    /**
     * `GET /transaction` data: the authoritative state of an order, with its locked `rate` when
     * the service sent one that reads (LockedRate::fromArray()), else without it, and its
     * `payment_tolerance` ({percent, accepted_shortfall_usd}, decimal strings) when the service
     * settles payments short by up to percent: optional, but checked when present, since the
     * Reconciler books payments on it.
     *
     * @param mixed $data
     * @return array<string, mixed>
     * @throws UnexpectedResponseException naming the first offending field
     */
    public static function transaction($data, int $httpStatus = 200): array
    {
        $payment = Rules::shape([
            'payment_method' => Rules::string(),
            'asset' => Rules::string(),
            'network' => Rules::nullable(Rules::string()),
            'amount' => Rules::decimalString(),
            'amount_usd' => Rules::usdAmount(),
            'tx_id' => Rules::string(),
            'seen_at' => Rules::isoDateTime(),
        ]);
        $checked = self::run(Rules::shape([
            'transaction_code' => Rules::transactionCode(),
            'status' => Rules::oneOf(self::TRANSACTION_STATUSES),
            'external_reference' => Rules::string(),
            'fiat_amount' => Rules::nonNegativeNumber(),
            'fiat_currency' => Rules::string(),
            'amount_in_usd' => Rules::usdAmount(),
            'received_usd' => Rules::usdAmount(),
            'checkout_url' => Rules::httpUrl(),
            'wallet_address' => Rules::string(),
            'wallet_currency' => Rules::string(),
            'wallet_network' => Rules::string(),
            'payout_dispatched' => Rules::boolean(),
            'payment_method' => Rules::nullable(Rules::string()),
            'late' => Rules::boolean(),
            'created_at' => Rules::isoDateTime(),
            'expires_at' => Rules::isoDateTime(),
            'settled_at' => Rules::nullable(Rules::isoDateTime()),
            'payments' => Rules::listOf($payment),
        ], [
            'payment_tolerance' => Rules::shape([
                'percent' => Rules::pattern(self::RATE_DECIMAL, 'a decimal string like "1"'),
                'accepted_shortfall_usd' => Rules::pattern(self::RATE_DECIMAL, 'a decimal string like "0.40"'),
            ]),
        ]), $data, 'transaction', $httpStatus);
        // The locked rate is optional (older services lack it) and informative only: one that
        // does not read is left out rather than failing the lookup an order is booked on.
        $rate = LockedRate::fromArray(Json::members($data)['rate'] ?? null);
        if ($rate !== null) {
            $checked['rate'] = $rate->toArray();
        }
        return $checked;
    }

    /**
     * `GET /payment_options` data: the rails available for an amount, priced.
     *
     * @param mixed $data
     * @return array<string, mixed>
     * @throws UnexpectedResponseException naming the first offending field
     */
    public static function paymentOptions($data, int $httpStatus = 200): array
    {
        return self::run(Rules::shape([
            'fiat_amount' => Rules::number(),
            'fiat_currency' => Rules::string(),
            'amount_in_usd' => Rules::usdAmount(),
            'payment_options' => Rules::listOf(self::paymentOptionRule()),
        ]), $data, 'payment options', $httpStatus);
    }

    /**
     * `GET /payment_link` data: crypto {kind, payment_method, address, amount, asset, network, uri, expires_at}
     * or fiat {kind, payment_method, redirect_url, expires_at}.
     *
     * @param mixed $data
     * @return array<string, mixed>
     * @throws UnexpectedResponseException naming the first offending field
     */
    public static function paymentLink($data, int $httpStatus = 200): array
    {
        return self::run(Rules::discriminated('kind', [
            'crypto' => Rules::shape([
                'kind' => Rules::oneOf(['crypto']),
                'payment_method' => Rules::string(),
                'address' => Rules::nonEmptyString(),
                'amount' => Rules::decimalString(),
                'asset' => Rules::string(),
                'network' => Rules::string(),
                'uri' => Rules::nonEmptyString(),
                'expires_at' => Rules::isoDateTime(),
            ]),
            'fiat' => Rules::shape([
                'kind' => Rules::oneOf(['fiat']),
                'payment_method' => Rules::string(),
                'redirect_url' => Rules::httpUrl(),
                'expires_at' => Rules::isoDateTime(),
            ]),
        ]), $data, 'payment link', $httpStatus);
    }

    /**
     * `GET /wallet_check` data: network, wallet_address (as the service stores it), kind
     * ("extended_key" or "address"), description (one line of text) and first_addresses (the
     * receive addresses derived from a key: letters and digits only, so they can be shown as they are).
     *
     * @param mixed $data
     * @return array<string, mixed>
     * @throws UnexpectedResponseException naming the first offending field
     */
    public static function walletCheck($data, int $httpStatus = 200): array
    {
        return self::run(Rules::shape([
            'network' => Rules::nonEmptyString(),
            'wallet_address' => Rules::nonEmptyString(),
            'kind' => Rules::oneOf(['extended_key', 'address']),
            'description' => Rules::pattern('/\A[^\x00-\x1f\x7f]{1,300}\z/u', 'one line of text of at most 300 characters'),
            'first_addresses' => Rules::listOf(Rules::pattern('/\A[A-Za-z0-9]{14,90}\z/', 'an address of letters and digits')),
        ]), $data, 'wallet check', $httpStatus);
    }

    /**
     * `GET /refund` data (docs/refunds.md): one refund; amounts stay decimal strings in its asset.
     *
     * @param mixed $data
     * @return array<string, mixed>
     * @throws UnexpectedResponseException naming the first offending field
     */
    public static function refund($data, int $httpStatus = 200): array
    {
        return self::run(self::refundRule(), $data, 'refund', $httpStatus);
    }

    /**
     * `POST /refunds` data: the refund, the buyer's claim_url and created (false when the
     * reference named a refund that already existed).
     *
     * @param mixed $data
     * @return array<string, mixed>
     * @throws UnexpectedResponseException naming the first offending field
     */
    public static function refundCreated($data, int $httpStatus = 201): array
    {
        return self::run(self::refundRule([
            'claim_url' => Rules::httpUrl(),
            'created' => Rules::boolean(),
        ]), $data, 'refund', $httpStatus);
    }

    /**
     * `GET /refunds` data: an order's refunds (oldest first), what it received and what is left
     * to refund, in the paid asset.
     *
     * @param mixed $data
     * @return array<string, mixed>
     * @throws UnexpectedResponseException naming the first offending field
     */
    public static function refundsOfTransaction($data, int $httpStatus = 200): array
    {
        return self::run(Rules::shape([
            'transaction_code' => Rules::transactionCode(),
            'asset' => Rules::string(),
            'network' => Rules::string(),
            'received' => Rules::decimalString(),
            'refundable' => Rules::decimalString(),
            'refunds' => Rules::listOf(self::refundRule()),
        ]), $data, 'refunds', $httpStatus);
    }

    /** @param array<string, \Closure> $extra members beyond the refund's own */
    private static function refundRule(array $extra = []): \Closure
    {
        return Rules::shape([
            'refund_id' => Rules::refundId(),
            'transaction_code' => Rules::transactionCode(),
            'external_reference' => Rules::string(),
            'reference' => Rules::nullable(Rules::string()),
            'status' => Rules::oneOf(self::REFUND_STATUSES),
            'amount' => Rules::decimalString(),
            'asset' => Rules::string(),
            'network' => Rules::string(),
            'fiat_amount' => Rules::nullable(Rules::decimalString()),
            'fiat_currency' => Rules::string(),
            'reason' => Rules::nullable(Rules::string()),
            'address' => Rules::nullable(Rules::string()),
            'payment_request' => Rules::nullable(Rules::shape(['text' => Rules::string(), 'uri' => Rules::string()])),
            'tx_id' => Rules::nullable(Rules::string()),
            'tx_url' => Rules::nullable(Rules::httpUrl()),
            'created_at' => Rules::isoDateTime(),
            'claim_expires_at' => Rules::isoDateTime(),
            'address_confirmed_at' => Rules::nullable(Rules::isoDateTime()),
            'paid_at' => Rules::nullable(Rules::isoDateTime()),
            'cancelled_at' => Rules::nullable(Rules::isoDateTime()),
            'history' => Rules::listOf(Rules::shape([
                'status' => Rules::oneOf(self::REFUND_STATUSES),
                'at' => Rules::isoDateTime(),
                'note' => Rules::nullable(Rules::string()),
            ])),
        ] + $extra);
    }

    private static function paymentOptionRule(): \Closure
    {
        return Rules::shape([
            'slug' => Rules::pattern('/\A[a-z0-9_]+\z/', 'a rail slug such as "usdc_polygon"'),
            'name' => Rules::string(),
            'kind' => Rules::oneOf(['crypto', 'fiat']),
            'asset' => Rules::string(),
            'network' => Rules::nullable(Rules::string()),
            'amount' => Rules::decimalString(),
            'amount_usd' => Rules::usdAmount(),
            'min_usd' => Rules::usdAmount(),
            'max_usd' => Rules::usdAmount(),
            'available' => Rules::boolean(),
        ], [
            // Present only when available is false: why (docs/api.md); kept for the owner's reason.
            'unavailable_reason' => Rules::string(),
        ]);
    }

    /**
     * @param mixed $data
     * @return array<string, mixed>
     */
    private static function run(\Closure $rule, $data, string $what, int $httpStatus): array
    {
        try {
            return Rules::check($rule, $data);
        } catch (ShapeMismatch $mismatch) {
            throw new UnexpectedResponseException(
                sprintf('The service sent %s data in an unexpected shape: %s', $what, $mismatch->getMessage()),
                $httpStatus,
                $mismatch->getField(),
                $mismatch
            );
        }
    }
}
