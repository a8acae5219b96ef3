<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs;

use CryptoCheckout\Whmcs\Vendor\Client\Client;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\BuyerStatus;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\CheckoutOpener;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\Clock;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\OrderState;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\Runner;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\SystemClock;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\WebhookHandler;
use WHMCS\Database\Capsule;

/** Wires the module's parts and the kernel for one request from the gateway's settings. */
final class Gateway
{
    public Settings $settings;
    private Clock $clock;
    private ?TransactionStore $store = null;
    private ?InvoiceLedger $ledger = null;
    private ?InvoicePort $port = null;
    private ?Runner $runner = null;
    private ?Tokens $tokens = null;

    /** @param array<string, mixed> $params getGatewayVariables() or the _link $params */
    public function __construct(array $params, ?Clock $clock = null)
    {
        $this->settings = Settings::fromParams($params);
        $this->clock = $clock ?? new SystemClock();
    }

    /** The saved settings, read the way getGatewayVariables() does, for places WHMCS passes none. */
    public static function fromSavedSettings(): self
    {
        $params = [];
        foreach (Capsule::table('tblpaymentgateways')->where('gateway', Settings::GATEWAY)->get() as $row) {
            $params[(string) $row->setting] = (string) $row->value;
        }
        $params['systemurl'] = (string) Capsule::table('tblconfiguration')->where('setting', 'SystemURL')->value('value');
        return new self($params);
    }

    public static function isActivated(): bool
    {
        return Capsule::table('tblpaymentgateways')->where('gateway', Settings::GATEWAY)->where('setting', 'type')->exists();
    }

    public function store(): TransactionStore
    {
        return $this->store ?? ($this->store = new TransactionStore());
    }

    public function ledger(): InvoiceLedger
    {
        return $this->ledger ?? ($this->ledger = new InvoiceLedger($this->settings));
    }

    public function port(): InvoicePort
    {
        return $this->port ?? ($this->port = new InvoicePort($this->store(), $this->ledger(), $this->settings));
    }

    public function tokens(): Tokens
    {
        return $this->tokens ?? ($this->tokens = new Tokens($this->store()));
    }

    public function runner(): Runner
    {
        return $this->runner ?? ($this->runner = new Runner($this->port(), [self::class, 'client'], $this->clock));
    }

    public function opener(): CheckoutOpener
    {
        return new CheckoutOpener($this->port(), $this->runner(), [self::class, 'client'], $this->clock);
    }

    public function webhooks(): WebhookHandler
    {
        return new WebhookHandler($this->port(), $this->runner());
    }

    /** The client for a checkout's service URL, cut off in time for the webhook's answer. */
    public static function client(string $serviceUrl): Client
    {
        return Client::forServiceOrigin($serviceUrl, null, Runner::LOOKUP_TIMEOUT_SECONDS);
    }

    /**
     * What the client's invoice page shows about the payment (BuyerStatus). Before any checkout
     * there is nothing to report yet, rather than "the payment window has closed".
     *
     * @return array{state: string, message: string, terminal: bool, checkout_url: string|null}
     */
    public function buyerStatus(int $invoiceId): array
    {
        $orderId = (string) $invoiceId;
        $state = $this->port()->orderState($orderId);
        $checkouts = $this->port()->checkouts($orderId);
        $status = BuyerStatus::of($state, $checkouts, $this->clock->now());
        if ($checkouts === [] && in_array($state, OrderState::OPEN, true)) {
            $status['message'] = '';
        }
        return $status;
    }
}
