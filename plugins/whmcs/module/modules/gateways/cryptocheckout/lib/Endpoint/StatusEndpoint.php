<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs\Endpoint;

use CryptoCheckout\Whmcs\Gateway;
use CryptoCheckout\Whmcs\HttpResponse;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\HttpReply;

/**
 * Feeds the invoice page's status box: the kernel's BuyerStatus in the service's envelope. A client
 * looking at the invoice is also a moment to check the invoice's checkouts with the service (the
 * kernel does so at most every few seconds per invoice).
 */
final class StatusEndpoint
{
    private Gateway $gateway;

    public function __construct(Gateway $gateway)
    {
        $this->gateway = $gateway;
    }

    /** @param array<string, mixed> $query */
    public function handle(string $method, array $query): HttpResponse
    {
        if ($method !== 'GET') {
            return HttpResponse::fromReply(HttpReply::error(405, 'method_not_allowed', 'Ask for the status with GET.', null, ['Allow' => 'GET']));
        }
        $invoiceId = (int) (is_string($query['invoice'] ?? null) ? $query['invoice'] : 0);
        $token = is_string($query['token'] ?? null) ? $query['token'] : '';
        if ($invoiceId <= 0 || !$this->gateway->tokens()->verify('status', [(string) $invoiceId], $token)) {
            return HttpResponse::fromReply(HttpReply::error(403, 'forbidden', 'This status link does not belong to the invoice; reload the invoice page.', 'token'));
        }
        try {
            $this->gateway->runner()->runForBuyer((string) $invoiceId);
        } catch (\Exception $error) {
            // The box keeps showing what is known; the cron checks again.
            $this->gateway->port()->log('warning', 'Checking the invoice for its page failed: ' . $error->getMessage(), ['order' => (string) $invoiceId]);
        }
        return HttpResponse::fromReply(HttpReply::success($this->gateway->buyerStatus($invoiceId)));
    }
}
