<?php

declare(strict_types=1);

namespace CryptoCheckout\Client;

use CryptoCheckout\Client\Exception\ApiException;
use CryptoCheckout\Client\Exception\CryptoCheckoutException;
use CryptoCheckout\Client\Exception\UnexpectedResponseException;
use CryptoCheckout\Client\Http\CurlTransport;
use CryptoCheckout\Client\Http\StreamTransport;
use CryptoCheckout\Client\Http\Transport;
use CryptoCheckout\Client\Support\Json;

/**
 * Client for the Crypto Checkout API: the four checkout calls, the wallet check and the refund calls. Every answer is
 * checked against the documented shape before it is returned, so callers only ever see well-formed
 * data or an exception:
 * ApiException (the service's error envelope), NetworkException (no answer, or a timeout) or
 * UnexpectedResponseException (anything else). All extend CryptoCheckoutException.
 */
final class Client
{
    public const VERSION = '0.1.0';

    private string $baseUrl;
    private Transport $transport;
    private int $timeoutSeconds;

    /**
     * @param string $baseUrl the API base: the service's public origin followed by /api
     * @param Transport|null $transport defaults to curl, or PHP streams where curl is missing
     */
    public function __construct(string $baseUrl, ?Transport $transport = null, int $timeoutSeconds = 10)
    {
        $this->baseUrl = rtrim($baseUrl, '/');
        $this->transport = $transport ?? self::createDefaultTransport();
        $this->timeoutSeconds = max(1, $timeoutSeconds);
    }

    /** A client for the service at $origin ("https://pay.example.com"); the API lives under /api. */
    public static function forServiceOrigin(string $origin, ?Transport $transport = null, int $timeoutSeconds = 10): self
    {
        return new self(rtrim($origin, '/') . '/api', $transport, $timeoutSeconds);
    }

    /**
     * CurlTransport when ext-curl is usable, StreamTransport otherwise.
     *
     * @param bool|null $curlAvailable overrides detection (null: detect)
     */
    public static function createDefaultTransport(?bool $curlAvailable = null): Transport
    {
        $useCurl = $curlAvailable ?? CurlTransport::isAvailable();
        return $useCurl ? new CurlTransport() : new StreamTransport();
    }

    public function getBaseUrl(): string
    {
        return $this->baseUrl;
    }

    /**
     * `POST /checkout`: creates a pending order; send the buyer to the returned checkout_url.
     * Pass fiat_amount as a decimal string ("12.50"); a float is sent as its shortest exact text.
     *
     * @param array<string, mixed> $request fiat_amount, fiat_currency, external_reference, customer{wallet_address,
     *     crypto_currency, crypto_currency_network}, optional webhook_url, success_url, cancel_url
     * @return array<string, mixed> transaction_code, status, amount_in_usd, checkout_url, payment_options, expires_at
     * @throws CryptoCheckoutException
     */
    public function createCheckout(array $request): array
    {
        if (isset($request['fiat_amount']) && is_float($request['fiat_amount']) && is_finite($request['fiat_amount'])) {
            // A host's serialize_precision could otherwise print 0.1 as 0.10000000000000001.
            $request['fiat_amount'] = Money::floatToString($request['fiat_amount']);
        }
        $body = json_encode($request, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE);
        if ($body === false) {
            throw new \InvalidArgumentException('The checkout request cannot be encoded as JSON: ' . json_last_error_msg());
        }
        return $this->call('POST', '/checkout', [], $body, [ResponseValidator::class, 'checkoutCreated']);
    }

    /**
     * `GET /transaction`: the authoritative live state of an order.
     *
     * @return array<string, mixed>
     * @throws CryptoCheckoutException
     */
    public function getTransaction(string $code): array
    {
        return $this->call('GET', '/transaction', ['transaction_code' => $code], null, [ResponseValidator::class, 'transaction']);
    }

    /**
     * `GET /payment_options`: the rails available for an amount, priced.
     *
     * @return array<string, mixed>
     * @throws CryptoCheckoutException
     */
    public function getPaymentOptions(string $fiatAmount, string $fiatCurrency): array
    {
        return $this->call(
            'GET',
            '/payment_options',
            ['fiat_amount' => $fiatAmount, 'fiat_currency' => $fiatCurrency],
            null,
            [ResponseValidator::class, 'paymentOptions']
        );
    }

    /**
     * `GET /payment_link`: payment instructions for one rail of a transaction, kind "crypto"
     * (address, amount, uri) or "fiat" (redirect_url).
     *
     * @return array<string, mixed>
     * @throws CryptoCheckoutException
     */
    public function getPaymentLink(string $code, string $paymentMethod): array
    {
        return $this->call(
            'GET',
            '/payment_link',
            ['transaction_code' => $code, 'payment_method' => $paymentMethod],
            null,
            [ResponseValidator::class, 'paymentLink']
        );
    }

    /**
     * `GET /wallet_check` (docs/bitcoin.md): whether the service takes $walletAddress as the
     * merchant's wallet on $network, in the form it stores it, and for a Bitcoin extended public
     * key (xpub, ypub, zpub or a descriptor) a description and its first receive addresses, to
     * compare with the merchant's wallet software. Nothing is stored at the service. Services
     * from before this check answer 404.
     *
     * @return array{network: string, wallet_address: string, kind: string, description: string, first_addresses: list<string>}
     *     kind "extended_key" or "address"; first_addresses is empty for a plain address
     * @throws CryptoCheckoutException ApiException 400 invalid_request naming wallet_address (or network)
     *     when the service refuses the wallet, ApiException or UnexpectedResponseException 404 from an
     *     older service, NetworkException, UnexpectedResponseException
     */
    public function checkWallet(string $network, string $walletAddress): array
    {
        return $this->call(
            'GET',
            '/wallet_check',
            ['network' => $network, 'wallet_address' => $walletAddress],
            null,
            [ResponseValidator::class, 'walletCheck']
        );
    }

    /**
     * `POST /refunds` (docs/refunds.md): asks the service to refund part or all of a settled order.
     * The same `reference` (the shop's own refund id) answers the same refund again (`created`
     * false), so a retried admin action never refunds twice.
     *
     * @param array<string, mixed> $request transaction_code, amount (decimal string, in currency),
     *     currency (the order's fiat currency or the paid asset, "EUR" / "USDC"), optional reference, reason
     * @param string $credential the merchant key (`ccm_…`) or the operator token, sent as a Bearer token
     * @return array<string, mixed> the refund, plus claim_url (the buyer's claim link) and created
     * @throws \InvalidArgumentException when $credential is empty or not one header line
     * @throws CryptoCheckoutException ApiException (401 unauthorized, 403 forbidden, 404 not_found,
     *     409 conflict, 422 unprocessable naming amount or currency), NetworkException, UnexpectedResponseException
     */
    public function createRefund(array $request, string $credential): array
    {
        if (isset($request['amount']) && is_float($request['amount']) && is_finite($request['amount'])) {
            $request['amount'] = Money::floatToString($request['amount']);
        }
        $body = json_encode($request, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE);
        if ($body === false) {
            throw new \InvalidArgumentException('The refund request cannot be encoded as JSON: ' . json_last_error_msg());
        }
        return $this->call('POST', '/refunds', [], $body, [ResponseValidator::class, 'refundCreated'], self::bearer($credential));
    }

    /**
     * `GET /refund`: one refund as the service holds it now (never its claim link). No credential:
     * the refund id is the secret.
     *
     * @return array<string, mixed>
     * @throws CryptoCheckoutException
     */
    public function getRefund(string $refundId): array
    {
        return $this->call('GET', '/refund', ['refund_id' => $refundId], null, [ResponseValidator::class, 'refund']);
    }

    /**
     * `GET /refunds`: the refunds of one order, oldest first, with what it received and what is
     * left to refund (decimal strings in the paid asset).
     *
     * @return array<string, mixed> transaction_code, asset, network, received, refundable, refunds
     * @throws CryptoCheckoutException
     */
    public function refundsOf(string $transactionCode): array
    {
        return $this->call('GET', '/refunds', ['transaction_code' => $transactionCode], null, [ResponseValidator::class, 'refundsOfTransaction']);
    }

    /**
     * `POST /refunds/{refund_id}/cancel`: cancels a refund not paid yet (409 conflict once it is final).
     *
     * @return array<string, mixed> the refund
     * @throws \InvalidArgumentException when $credential is empty or not one header line
     * @throws CryptoCheckoutException
     */
    public function cancelRefund(string $refundId, string $credential, ?string $reason = null): array
    {
        $body = json_encode($reason === null ? new \stdClass() : ['reason' => $reason], JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE);
        if ($body === false) {
            throw new \InvalidArgumentException('The cancel request cannot be encoded as JSON: ' . json_last_error_msg());
        }
        return $this->call('POST', '/refunds/' . rawurlencode($refundId) . '/cancel', [], $body, [ResponseValidator::class, 'refund'], self::bearer($credential));
    }

    /**
     * The Authorization header for a credential.
     *
     * @return array<string, string>
     */
    private static function bearer(string $credential): array
    {
        $credential = trim($credential);
        if ($credential === '') {
            throw new \InvalidArgumentException('A refund needs a credential: the merchant key (ccm_…) or the operator token.');
        }
        if (preg_match('/[\x00-\x20\x7f]/', $credential) === 1) {
            throw new \InvalidArgumentException('The credential must be one word without spaces or line breaks; copy the merchant key again.');
        }
        return ['Authorization' => 'Bearer ' . $credential];
    }

    /**
     * @param array<string, string> $query
     * @param callable(mixed, int): array<string, mixed> $validate
     * @param array<string, string> $extraHeaders sent as they are (a credential)
     * @return array<string, mixed>
     */
    private function call(string $method, string $path, array $query, ?string $body, callable $validate, array $extraHeaders = []): array
    {
        $url = $this->baseUrl . $path . ($query === [] ? '' : '?' . http_build_query($query, '', '&', PHP_QUERY_RFC3986));
        $headers = [
            'Accept' => 'application/json',
            'User-Agent' => sprintf('CryptoCheckout-PHP/%s PHP/%s', self::VERSION, PHP_VERSION),
        ] + $extraHeaders;
        if ($body !== null) {
            $headers['Content-Type'] = 'application/json';
        }

        $response = $this->transport->send($method, $url, $headers, $body, $this->timeoutSeconds);
        $status = $response->getStatus();
        $what = $method . ' ' . $path;

        try {
            $json = Json::decode($response->getBody());
        } catch (\JsonException $exception) {
            throw new UnexpectedResponseException(
                sprintf('The service answered %s with HTTP %d and a body that is not JSON.', $what, $status),
                $status,
                null,
                $exception
            );
        }

        $error = self::errorEnvelope($json);
        if ($error !== null) {
            throw new ApiException($error['code'], $error['message'], $status, $error['field']);
        }

        $envelope = Json::isObject($json) ? Json::members($json) : [];
        if ($status < 200 || $status > 299 || ($envelope['status'] ?? null) !== 'success' || !array_key_exists('data', $envelope)) {
            throw new UnexpectedResponseException(
                sprintf('The service answered %s with HTTP %d without a success or error envelope.', $what, $status),
                $status
            );
        }
        return $validate($envelope['data'], $status);
    }

    /**
     * The members of an error envelope, or null when $json is not one.
     *
     * @param mixed $json
     * @return array{code: string, message: string, field: string|null}|null
     */
    private static function errorEnvelope($json): ?array
    {
        if (!Json::isObject($json)) {
            return null;
        }
        $envelope = Json::members($json);
        if (($envelope['status'] ?? null) !== 'error' || !isset($envelope['error']) || !Json::isObject($envelope['error'])) {
            return null;
        }
        $error = Json::members($envelope['error']);
        $code = $error['code'] ?? null;
        $message = $error['message'] ?? null;
        $field = $error['field'] ?? null;
        if (!is_string($code) || $code === '' || !is_string($message) || ($field !== null && !is_string($field))) {
            return null;
        }
        return ['code' => $code, 'message' => $message, 'field' => $field];
    }
}
