<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Helper;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Vendor\Client\Client;

/** Builds API clients that talk through the WordPress HTTP API. */
final class ClientFactory
{
    /** Seconds to wait for the service; the webhook must answer within 8 s, so lookups stay well below. */
    public const TIMEOUT_SECONDS = 5;

    private function __construct()
    {
    }

    /** A client for the service at $origin (the API lives under /api). */
    public static function forOrigin(string $origin): Client
    {
        $client = apply_filters('cryptocheckout_wc_client', null, $origin);
        if ($client instanceof Client) {
            return $client;
        }
        return Client::forServiceOrigin($origin, new WordPressTransport(), self::TIMEOUT_SECONDS);
    }
}
