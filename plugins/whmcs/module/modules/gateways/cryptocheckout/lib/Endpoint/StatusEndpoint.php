<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs\Endpoint;

use CryptoCheckout\Whmcs\Gateway;
use CryptoCheckout\Whmcs\HttpResponse;
use CryptoCheckout\Whmcs\StatusMessages;
use CryptoCheckout\Whmcs\TransactionStore;

/**
 * Feeds the invoice page's status widget. A buyer back on the invoice is also a moment to check
 * the open checkout with the service (at most every few seconds per checkout).
 */
final class StatusEndpoint
{
    /** Minimum seconds between two service lookups triggered by the widget for one checkout. */
    public const RECHECK_SECONDS = 5;

    /** @var Gateway */
    private $gateway;

    public function __construct(Gateway $gateway)
    {
        $this->gateway = $gateway;
    }

    /** @param array<string, mixed> $query */
    public function handle(string $method, array $query): HttpResponse
    {
        if ($method !== 'GET') {
            return HttpResponse::json(405, ['error' => 'Use GET.']);
        }
        $invoiceId = (int) (is_string($query['invoice'] ?? null) ? $query['invoice'] : 0);
        $token = is_string($query['token'] ?? null) ? $query['token'] : '';
        if ($invoiceId <= 0 || !$this->gateway->tokens()->verify('status', [(string) $invoiceId], $token)) {
            return HttpResponse::json(403, ['error' => 'invoice/token: reload the invoice page.']);
        }

        $store = $this->gateway->store();
        $row = $store->latestForInvoice($invoiceId);
        if (
            $row !== null
            && in_array((string) $row->state, TransactionStore::OPEN_STATES, true)
            && $this->gateway->settings->problems() === []
            && ($row->checked_at === null || strtotime((string) $row->checked_at . ' UTC') <= time() - self::RECHECK_SECONDS)
        ) {
            try {
                $this->gateway->reconciliation()->run($row);
            } catch (\Exception $error) {
                // The widget keeps showing the last known state; the cron will try again.
            }
            $row = $store->latestForInvoice($invoiceId);
        }

        $invoice = $this->gateway->ledger()->invoice($invoiceId);
        $invoiceStatus = $invoice === null ? 'Unknown' : (string) $invoice['status'];
        $state = $row === null ? '' : (string) $row->state;
        $message = $invoiceStatus === 'Paid' ? StatusMessages::forState('paid') : StatusMessages::forState($state);
        return HttpResponse::json(200, [
            'invoice_status' => $invoiceStatus,
            'state' => $state,
            'message' => $message,
            'terminal' => StatusMessages::isTerminal($state, $invoiceStatus),
        ]);
    }
}
