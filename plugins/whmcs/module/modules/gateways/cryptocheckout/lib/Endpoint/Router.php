<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs\Endpoint;

use CryptoCheckout\Whmcs\Gateway;
use CryptoCheckout\Whmcs\HttpResponse;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\HttpReply;

/**
 * The module's single web entry point is WHMCS's callback file; it serves three requests:
 * the service's webhook (POST, JSON body), the invoice's pay button (POST ?action=pay) and the
 * invoice's status box (GET ?action=status).
 */
final class Router
{
    private function __construct()
    {
    }

    /**
     * @param array<string, mixed> $gatewayParams getGatewayVariables()
     * @param array<string, mixed> $query $_GET
     * @param array<string, mixed> $form $_POST
     * @param array<string, mixed> $server $_SERVER
     */
    public static function handle(array $gatewayParams, array $query, array $form, array $server, string $rawBody): HttpResponse
    {
        $gateway = new Gateway($gatewayParams);
        $method = strtoupper((string) ($server['REQUEST_METHOD'] ?? 'GET'));
        $action = is_string($query['action'] ?? null) ? $query['action'] : '';
        switch ($action) {
            case 'pay':
                return (new PayEndpoint($gateway))->handle($method, $form, (string) ($server['HTTP_ACCEPT'] ?? ''));
            case 'status':
                return (new StatusEndpoint($gateway))->handle($method, $query);
            case '':
                return (new WebhookEndpoint($gateway))->handle($method, $rawBody);
            default:
                return HttpResponse::fromReply(HttpReply::error(404, 'not_found', 'Unknown action; use action=pay, action=status, or POST the webhook without one.', 'action'));
        }
    }
}
