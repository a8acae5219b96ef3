<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Http;

use CryptoCheckout\Client\Exception\NetworkException;

/**
 * Sends one HTTP request. Implementations return every answer, whatever its status, and throw
 * only when no answer arrived. A platform can supply its own (WordPress: wp_remote_request).
 */
interface Transport
{
    /**
     * @param string $method "GET" or "POST"
     * @param array<string, string> $headers header name => value
     * @param string|null $body request body, null for none
     * @throws NetworkException when the connection fails or $timeoutSeconds elapse
     */
    public function send(string $method, string $url, array $headers, ?string $body, int $timeoutSeconds): Response;
}
