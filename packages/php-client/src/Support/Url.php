<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Support;

/**
 * @internal
 */
final class Url
{
    private function __construct()
    {
    }

    /** "https://pay.example.com:8443" for any URL on that origin; messages name the origin, not the query. */
    public static function origin(string $url): string
    {
        $parts = parse_url($url);
        if (!is_array($parts) || !isset($parts['host'])) {
            return 'the service';
        }
        return ($parts['scheme'] ?? 'http') . '://' . $parts['host'] . (isset($parts['port']) ? ':' . $parts['port'] : '');
    }
}
