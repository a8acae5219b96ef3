<?php

declare(strict_types=1);

namespace CryptoCheckout\KernelTest;

use CryptoCheckout\Client\Client;
use CryptoCheckout\Client\Kernel\CheckoutOpener;
use CryptoCheckout\Client\Kernel\OrderState;
use CryptoCheckout\Client\Kernel\Runner;
use CryptoCheckout\Client\Kernel\StoredCheckout;
use CryptoCheckout\Client\Kernel\WebhookHandler;

/** One shop: the in-memory platform, the scripted service, a clock and the kernel wired over them. */
final class World
{
    public const WALLET = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
    public const SERVICE = 'https://pay.example.com';

    public MemoryOrderPort $port;
    public ScriptedService $service;
    public FakeClock $clock;
    public Runner $runner;
    public CheckoutOpener $opener;
    public WebhookHandler $webhooks;

    public function __construct()
    {
        $this->port = new MemoryOrderPort();
        $this->clock = new FakeClock();
        $this->service = new ScriptedService($this->clock);
        $service = $this->service;
        $clientFor = static function (string $serviceUrl) use ($service): Client {
            return Client::forServiceOrigin($serviceUrl, $service, Runner::LOOKUP_TIMEOUT_SECONDS);
        };
        $this->runner = new Runner($this->port, $clientFor, $this->clock);
        $this->opener = new CheckoutOpener($this->port, $this->runner, $clientFor, $this->clock);
        $this->webhooks = new WebhookHandler($this->port, $this->runner);
    }

    /** A fresh runner over the same platform and service, as a second PHP request would have. */
    public function secondRunner(): Runner
    {
        $service = $this->service;
        return new Runner($this->port, static function (string $serviceUrl) use ($service): Client {
            return Client::forServiceOrigin($serviceUrl, $service, Runner::LOOKUP_TIMEOUT_SECONDS);
        }, $this->clock);
    }

    /** Places an order and opens its checkout; returns the transaction code. */
    public function placeOrder(string $orderId, string $amount = '25.00', string $currency = 'EUR'): string
    {
        if (!isset($this->port->orders[$orderId])) {
            $this->port->addOrder($orderId);
        }
        $opened = $this->opener->open($orderId, $this->terms($orderId, $amount, $currency));
        return $opened['checkout']->transactionCode;
    }

    /** @return array<string, string> */
    public function terms(string $orderId, string $amount = '25.00', string $currency = 'EUR'): array
    {
        return [
            'fiat_amount' => $amount,
            'fiat_currency' => $currency,
            'external_reference' => 'order-' . $orderId,
            'service_url' => self::SERVICE,
            'wallet_address' => self::WALLET,
            'wallet_currency' => 'USDC',
            'wallet_network' => 'POLYGON',
            'webhook_url' => 'https://shop.example/webhook',
        ];
    }

    /** The service reports a payment of $receivedUsd with $status. */
    public function pay(string $code, string $receivedUsd = '27.00', string $status = 'settled', bool $late = false): void
    {
        $this->service->update($code, ['status' => $status, 'received_usd' => $receivedUsd, 'late' => $late]);
    }

    /** The webhook body the service would send for $code. */
    public function webhookBody(string $code): string
    {
        $data = $this->service->transactions[$code];
        return (string) json_encode([
            'event' => 'transaction.settled',
            'transaction_code' => $code,
            'external_reference' => $data['external_reference'],
            'fiat_amount' => $data['fiat_amount'],
            'fiat_currency' => $data['fiat_currency'],
            'received_usd' => $data['received_usd'],
            'wallet_address' => $data['wallet_address'],
            'wallet_currency' => $data['wallet_currency'],
            'wallet_network' => $data['wallet_network'],
            'payout_dispatched' => true,
            'timestamp' => $this->clock->now,
        ]);
    }

    /**
     * A shop with order "1" whose checkout the service reports settled in full; nothing has told
     * the shop yet.
     *
     * @return array{0: self, 1: string} the world and the transaction code
     */
    public static function withPaidOrder(): array
    {
        $world = new self();
        $code = $world->placeOrder('1');
        $world->pay($code);
        return [$world, $code];
    }

    /**
     * How many port calls a webhook makes that pays an order: the steps a crash or another request
     * can come between.
     */
    public static function stepsOfPayingWebhook(): int
    {
        [$world, $code] = self::withPaidOrder();
        $before = count($world->port->calls);
        $world->webhooks->handle('POST', $world->webhookBody($code));
        return count($world->port->calls) - $before;
    }

    /** @return array<string, mixed> */
    public function order(string $orderId): array
    {
        return $this->port->orders[$orderId];
    }

    public function checkout(string $orderId, string $code): StoredCheckout
    {
        return StoredCheckout::fromArray($this->port->orders[$orderId]['checkouts'][$code]);
    }

    /** A summary a test can compare: state, booked payments, claim held. @return array<string, mixed> */
    public function summary(string $orderId): array
    {
        $order = $this->port->orders[$orderId];
        return ['state' => $order['state'], 'payments' => $order['payments'], 'claimed' => $order['claim'] !== null];
    }

    public static function paidStates(): array
    {
        return [OrderState::PAID];
    }
}
