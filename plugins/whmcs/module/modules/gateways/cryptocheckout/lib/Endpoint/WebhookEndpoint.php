<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs\Endpoint;

use CryptoCheckout\Whmcs\Gateway;
use CryptoCheckout\Whmcs\HttpResponse;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\WebhookHandler;

/**
 * The service's transaction.settled webhook, answered by the kernel's WebhookHandler (the invoice
 * is found by the transaction code stored with it; the decision comes from GET /transaction).
 *
 * Of WHMCS's callback checks, checkCbInvoiceID runs for the invoice of a known code, as every
 * callback makes it. checkCbTransID does not: it ends the request when the transaction id is
 * recorded already, so a replayed webhook would get an empty answer instead of the kernel's, and a
 * run interrupted right after the payment was booked would not be completed. The kernel asks the
 * same question (isPaymentBooked) under the invoice's claim before booking anything.
 */
final class WebhookEndpoint
{
    private Gateway $gateway;

    public function __construct(Gateway $gateway)
    {
        $this->gateway = $gateway;
    }

    public function handle(string $method, string $rawBody): HttpResponse
    {
        $code = self::namedTransaction($method, $rawBody);
        if ($code !== null) {
            $invoiceId = $this->gateway->port()->findOrderByTransactionCode($code);
            if ($invoiceId !== null) {
                checkCbInvoiceID((int) $invoiceId, $this->gateway->settings->displayName);
            }
        }
        return HttpResponse::fromReply($this->gateway->webhooks()->handle($method, $rawBody)['reply']);
    }

    /** The transaction code a POSTed body names, if any; the kernel validates the body itself. */
    private static function namedTransaction(string $method, string $rawBody): ?string
    {
        if ($method !== 'POST' || strlen($rawBody) > WebhookHandler::MAX_BODY_BYTES) {
            return null;
        }
        $body = json_decode($rawBody, true);
        $code = is_array($body) ? ($body['transaction_code'] ?? null) : null;
        return is_string($code) && $code !== '' && strlen($code) <= 64 ? $code : null;
    }
}
