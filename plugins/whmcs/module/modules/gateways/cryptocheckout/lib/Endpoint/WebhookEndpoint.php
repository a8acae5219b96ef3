<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs\Endpoint;

use CryptoCheckout\Whmcs\Gateway;
use CryptoCheckout\Whmcs\HttpResponse;
use CryptoCheckout\Whmcs\Vendor\Client\Exception\CryptoCheckoutException;
use CryptoCheckout\Whmcs\Vendor\Client\Exception\InvalidWebhookException;
use CryptoCheckout\Whmcs\Vendor\Client\WebhookParser;

/**
 * The service's transaction.settled webhook. The body is unsigned, so it only names the
 * transaction to look at: the decision comes from GET /transaction for the checkout stored here.
 */
final class WebhookEndpoint
{
    /** @var Gateway */
    private $gateway;

    public function __construct(Gateway $gateway)
    {
        $this->gateway = $gateway;
    }

    public function handle(string $method, string $rawBody): HttpResponse
    {
        if ($method !== 'POST') {
            return HttpResponse::json(405, ['error' => 'POST the transaction.settled webhook here.']);
        }
        $ledger = $this->gateway->ledger();
        try {
            $hint = WebhookParser::parse($rawBody);
        } catch (InvalidWebhookException $error) {
            $ledger->log('Ignored: invalid webhook', ['field' => $error->getField(), 'error' => $error->getMessage()]);
            return HttpResponse::json(400, ['error' => $error->getMessage()]);
        }

        $code = (string) $hint['transaction_code'];
        $row = $this->gateway->store()->findByCode($code);
        if ($row === null) {
            $ledger->log('Ignored: unknown transaction', ['transaction_code' => $code]);
            return HttpResponse::json(202, ['ignored' => true]);
        }

        // WHMCS's own checks, as every callback makes them: the invoice exists, and this
        // transaction is not recorded yet (both end the request when they fail).
        checkCbInvoiceID((int) $row->invoice_id, $this->gateway->settings->displayName);
        checkCbTransID((string) $row->transaction_code);

        try {
            $result = $this->gateway->reconciliation()->run($row);
        } catch (CryptoCheckoutException $error) {
            $ledger->log('Lookup failed', ['transaction_code' => $code, 'error' => $error->getMessage()]);
            return HttpResponse::json(503, ['error' => 'The transaction could not be confirmed; it will be checked again by the cron.']);
        }
        return HttpResponse::json(200, ['received' => true, 'state' => $result['state']]);
    }
}
