<?php

declare(strict_types=1);

namespace CryptoCheckout\KernelTest;

use CryptoCheckout\Client\Kernel\Kernel;
use CryptoCheckout\Client\Kernel\Ledger\Ledger;
use CryptoCheckout\Client\Kernel\OrderState;
use CryptoCheckout\Client\Kernel\StoredCheckout;

/**
 * One shop: the in-memory platform, the kernel's ledger on a real database (SQLite in-process, or
 * MariaDB through $sql), the scripted service, a clock, and the Kernel assembled over them.
 */
final class World
{
    public const WALLET = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
    public const SERVICE = 'https://pay.example.com';

    public Steps $steps;
    public MemoryOrders $orders;
    public PdoSqlPort $sql;
    public Ledger $ledger;
    public ScriptedService $service;
    public FakeClock $clock;
    public Kernel $kernel;
    public MemoryRefunds $refunds;
    /** The service URL new orders are opened at (checkouts keep theirs). */
    public string $serviceUrl = self::SERVICE;

    public function __construct(?PdoSqlPort $sql = null)
    {
        $this->steps = new Steps();
        $this->orders = new MemoryOrders($this->steps);
        $this->refunds = new MemoryRefunds($this->steps);
        $this->sql = $sql ?? PdoSqlPort::sqlite($this->steps);
        $this->clock = new FakeClock();
        $this->service = new ScriptedService($this->clock);
        $this->kernel = $this->newKernel();
        $this->ledger = $this->kernel->ledger();
        $this->ledger->install();
    }

    /** Another kernel over the same platform, database and service, as a second PHP request has. */
    public function newKernel(): Kernel
    {
        return new Kernel($this->orders, $this->sql, $this->service, null, $this->clock);
    }

    /** Places an order and opens its checkout; returns the transaction code. */
    public function placeOrder(string $orderId, string $amount = '25.00', string $currency = 'EUR'): string
    {
        if (!isset($this->orders->orders[$orderId])) {
            $this->orders->addOrder($orderId);
        }
        $opened = $this->kernel->open($orderId, $this->terms($orderId, $amount, $currency));
        return $opened['checkout']->transactionCode;
    }

    /** @return array<string, string> */
    public function terms(string $orderId, string $amount = '25.00', string $currency = 'EUR'): array
    {
        return [
            'fiat_amount' => $amount,
            'fiat_currency' => $currency,
            'external_reference' => 'order-' . $orderId,
            'service_url' => $this->serviceUrl,
            'wallet_address' => self::WALLET,
            'wallet_currency' => 'USDC',
            'wallet_network' => 'POLYGON',
            'webhook_url' => 'https://shop.example/webhook',
        ];
    }

    /**
     * A world whose refunds go to the refund service at $refundServiceUrl over real HTTP, with order
     * $orderId paid and booked, and the service knowing the settled transaction (100 USDC received).
     *
     * @return array{0: self, 1: string} the world and the transaction code
     */
    public static function withSettledOrder(string $refundServiceUrl, string $orderId = '1', ?PdoSqlPort $sql = null): array
    {
        $world = new self($sql);
        $world->serviceUrl = $refundServiceUrl;
        $world->service->refundNetwork = \CryptoCheckout\Client\Client::createDefaultTransport();
        $code = $world->placeOrder($orderId);
        $world->pay($code);
        $world->webhook($code);
        (new RefundDesk($refundServiceUrl))->settled($code, '100', 'order-' . $orderId);
        return [$world, $code];
    }

    /**
     * A world whose kernel talks to a real service at $serviceUrl over HTTP (the reference server on
     * loopback), its clock at the real time.
     */
    public static function overNetwork(string $serviceUrl): self
    {
        $world = new self();
        $world->serviceUrl = $serviceUrl;
        $world->clock->now = time();
        $world->kernel = new Kernel($world->orders, $world->sql, \CryptoCheckout\Client\Client::createDefaultTransport(), null, $world->clock);
        $world->ledger = $world->kernel->ledger();
        return $world;
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

    /** The service's webhook for $code, through the kernel's endpoint. @return array{reply: \CryptoCheckout\Client\Kernel\HttpReply, verified: bool} */
    public function webhook(string $code, string $clientIp = '203.0.113.5'): array
    {
        return $this->kernel->webhook('POST', $this->webhookBody($code), $clientIp);
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
     * How many steps (platform calls and SQL statements) a webhook takes that pays an order: the
     * points a crash or another request can come between.
     */
    public static function stepsOfPayingWebhook(): int
    {
        [$world, $code] = self::withPaidOrder();
        $before = $world->steps->count();
        $world->webhook($code);
        return $world->steps->count() - $before;
    }

    public function checkout(string $orderId, string $code): StoredCheckout
    {
        foreach ($this->ledger->checkouts($orderId) as $checkout) {
            if ($checkout->hasCode($code)) {
                return $checkout;
            }
        }
        throw new \LogicException('No checkout ' . $code);
    }

    /** The order's state as the kernel sees it. */
    public function state(string $orderId): string
    {
        return $this->kernel->orderState($orderId);
    }

    /** A summary a test can compare: state, booked payments, whether a live claim holds it. @return array<string, mixed> */
    public function summary(string $orderId): array
    {
        return [
            'state' => $this->state($orderId),
            'payments' => $this->orders->orders[$orderId]['payments'],
            'claimed' => $this->ledger->isClaimed($orderId, $this->clock->now),
        ];
    }

    public static function paidStates(): array
    {
        return [OrderState::PAID];
    }
}
