<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Helper;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Vendor\Client\Exception\NetworkException;
use CryptoCheckout\WooCommerce\Vendor\Client\Http\Response;
use CryptoCheckout\WooCommerce\Vendor\Client\Http\Transport;

/**
 * Sends the client's requests through the WordPress HTTP API, so hosts' proxy settings, the
 * `http_request_args` filters and the bundled CA certificates all apply.
 */
final class WordPressTransport implements Transport
{
    /** @param array<string, string> $headers */
    public function send(string $method, string $url, array $headers, ?string $body, int $timeoutSeconds): Response
    {
        // A null body is WP_Http's default: no body.
        $response = wp_remote_request($url, ['method' => $method, 'headers' => $headers, 'body' => $body, 'timeout' => $timeoutSeconds, 'redirection' => 0]);
        if (is_wp_error($response)) {
            $message = $response->get_error_message();
            throw new NetworkException(sprintf('No answer from %s: %s', $url, $message), stripos($message, 'timed out') !== false);
        }
        $responseHeaders = [];
        foreach ((array) wp_remote_retrieve_headers($response) as $name => $value) {
            $responseHeaders[(string) $name] = is_array($value) ? implode(', ', $value) : (string) $value;
        }
        return new Response((int) wp_remote_retrieve_response_code($response), (string) wp_remote_retrieve_body($response), $responseHeaders);
    }
}
