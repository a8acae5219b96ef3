<?php

declare(strict_types=1);

namespace CryptoCheckout\KernelTest;

use CryptoCheckout\Client\Exception\NetworkException;
use CryptoCheckout\Client\Http\Response;
use CryptoCheckout\Client\Http\Transport;
use CryptoCheckout\Client\Money;

/**
 * The service as the kernel sees it through the real Client: GET /transaction answers from a table
 * the test changes, POST /checkout creates transactions, and the whole service can be down. Refund
 * calls go over real HTTP to $refundNetwork when it is set.
 */
final class ScriptedService implements Transport
{
    /** @var array<string, array<string, mixed>> code => GET /transaction data */
    public array $transactions = [];
    public bool $down = false;
    public int $lookups = 0;
    public int $created = 0;
    /** GET /payment_options questions (not counted as lookups). */
    public int $optionQuestions = 0;
    /**
     * What GET /payment_options lists for an amount, when a test sets it (each option completed with
     * the defaults of optionFor()); null: USDC on Polygon and USDC, USDT and SOL on Solana, each
     * available from 0.50 USD.
     *
     * @var list<array<string, mixed>>|null
     */
    public ?array $paymentOptions = null;
    /** @var list<array<string, mixed>> what POST /checkout answers in payment_options (priced for the wallet) */
    public array $createdOptions = [];
    /**
     * Where refund calls go (/api/refund…, the claim page): a real transport to the refund service
     * on loopback; null: there is none.
     */
    public ?Transport $refundNetwork = null;
    private int $sequence = 0;
    private FakeClock $clock;

    public function __construct(FakeClock $clock)
    {
        $this->clock = $clock;
    }

    public function send(string $method, string $url, array $headers, ?string $body, int $timeoutSeconds): Response
    {
        if ($this->refundNetwork !== null && preg_match('#/(api/refunds?\b|refund/)#', (string) parse_url($url, PHP_URL_PATH)) === 1) {
            return $this->refundNetwork->send($method, $url, $headers, $body, $timeoutSeconds);
        }
        if ($this->down) {
            throw new NetworkException('Connection refused (scripted)', false);
        }
        if ($method === 'POST') {
            $request = json_decode((string) $body, true);
            $this->created++;
            $this->sequence++;
            $code = sprintf('00000000-0000-4000-8000-%012d', $this->sequence);
            $this->transactions[$code] = self::transaction($code, $request, $this->clock->now);
            return self::json(201, ['status' => 'success', 'data' => [
                'transaction_code' => $code,
                'status' => 'pending',
                'amount_in_usd' => $this->transactions[$code]['amount_in_usd'],
                'checkout_url' => 'https://pay.example.com/pay/' . $code,
                'payment_options' => array_map(static function (array $option): array {
                    return self::optionFor('27.00', $option);
                }, $this->createdOptions),
                'expires_at' => $this->transactions[$code]['expires_at'],
            ]]);
        }
        parse_str((string) parse_url($url, PHP_URL_QUERY), $query);
        if (strpos($url, '/payment_options') !== false) {
            // Rails whose minimum is 0.50 USD unless the test lists others; amounts priced 1:1.
            $amount = (string) ($query['fiat_amount'] ?? '0');
            $this->optionQuestions++;
            $available = Money::compare($amount, '0.50') >= 0;
            $options = $this->paymentOptions ?? [
                ['available' => $available],
                ['slug' => 'usdc_solana', 'name' => 'USDC on Solana', 'network' => 'SOLANA', 'available' => $available],
                ['slug' => 'usdt_solana', 'name' => 'USDT on Solana', 'asset' => 'USDT', 'network' => 'SOLANA', 'available' => $available],
                ['slug' => 'sol_solana', 'name' => 'Solana', 'asset' => 'SOL', 'network' => 'SOLANA', 'available' => $available],
            ];
            return self::json(200, ['status' => 'success', 'data' => [
                'fiat_amount' => (float) $amount,
                'fiat_currency' => (string) ($query['fiat_currency'] ?? ''),
                'amount_in_usd' => (float) $amount,
                'payment_options' => array_map(static function (array $option) use ($amount): array {
                    return self::optionFor($amount, $option);
                }, $options),
            ]]);
        }
        $this->lookups++;
        $code = (string) ($query['transaction_code'] ?? '');
        if (!isset($this->transactions[$code])) {
            return self::json(404, ['status' => 'error', 'error' => ['code' => 'not_found', 'message' => 'No such transaction.']]);
        }
        return self::json(200, ['status' => 'success', 'data' => $this->transactions[$code]]);
    }

    /** Sets fields of a transaction (status, received_usd, late, expires_at …). @param array<string, mixed> $fields */
    public function update(string $code, array $fields): void
    {
        // Amounts travel as JSON numbers, as the service sends them.
        foreach (['received_usd', 'amount_in_usd'] as $amount) {
            if (isset($fields[$amount]) && is_string($fields[$amount])) {
                $fields[$amount] = (float) $fields[$amount];
            }
        }
        $this->transactions[$code] = $fields + $this->transactions[$code];
    }

    /**
     * One option as the service lists it: usdc_polygon from 0.50 USD, available, unless $fields say
     * otherwise (slug, asset, network, min_usd, available, unavailable_reason …).
     *
     * @param array<string, mixed> $fields
     * @return array<string, mixed>
     */
    private static function optionFor(string $amount, array $fields): array
    {
        return $fields + [
            'slug' => 'usdc_polygon',
            'name' => 'USDC on Polygon',
            'kind' => 'crypto',
            'asset' => 'USDC',
            'network' => 'POLYGON',
            'amount' => $amount,
            'amount_usd' => (float) $amount,
            'min_usd' => 0.5,
            'max_usd' => 100000,
            'available' => true,
        ];
    }

    /** @param array<string, mixed> $request */
    private static function transaction(string $code, array $request, int $now): array
    {
        return [
            'transaction_code' => $code,
            'status' => 'pending',
            'external_reference' => (string) $request['external_reference'],
            'fiat_amount' => (float) $request['fiat_amount'],
            'fiat_currency' => (string) $request['fiat_currency'],
            'amount_in_usd' => 27.0,
            'received_usd' => 0,
            'checkout_url' => 'https://pay.example.com/pay/' . $code,
            'wallet_address' => (string) $request['customer']['wallet_address'],
            'wallet_currency' => (string) $request['customer']['crypto_currency'],
            'wallet_network' => (string) $request['customer']['crypto_currency_network'],
            'payout_dispatched' => false,
            'payment_method' => null,
            'late' => false,
            'created_at' => gmdate('Y-m-d\TH:i:s.000\Z', $now),
            'expires_at' => gmdate('Y-m-d\TH:i:s.000\Z', $now + 3600),
            'settled_at' => null,
            'payments' => [],
        ];
    }

    /** @param array<string, mixed> $body */
    private static function json(int $status, array $body): Response
    {
        return new Response($status, (string) json_encode($body), ['content-type' => 'application/json']);
    }
}
