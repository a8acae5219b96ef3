<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs;

use CryptoCheckout\Whmcs\Vendor\Client\Client;
use WHMCS\Database\Capsule;

/** Wires the module's parts for one request from the gateway's settings. */
final class Gateway
{
    /** @var Settings */
    public $settings;
    /** @var TransactionStore|null */
    private $store;
    /** @var InvoiceLedger|null */
    private $ledger;
    /** @var Client|null */
    private $client;
    /** @var Tokens|null */
    private $tokens;

    /** @param array<string, mixed> $params getGatewayVariables() or the _link $params */
    public function __construct(array $params)
    {
        $this->settings = Settings::fromParams($params);
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
        if ($this->store === null) {
            $this->store = new TransactionStore();
        }
        return $this->store;
    }

    public function ledger(): InvoiceLedger
    {
        if ($this->ledger === null) {
            $this->ledger = new InvoiceLedger($this->settings);
        }
        return $this->ledger;
    }

    public function client(): Client
    {
        if ($this->client === null) {
            $this->client = $this->settings->client();
        }
        return $this->client;
    }

    public function tokens(): Tokens
    {
        if ($this->tokens === null) {
            $this->tokens = new Tokens($this->store());
        }
        return $this->tokens;
    }

    public function reconciliation(): Reconciliation
    {
        return new Reconciliation($this->settings, $this->client(), $this->store(), $this->ledger());
    }
}
