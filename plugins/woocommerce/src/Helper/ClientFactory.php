<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Helper;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Vendor\Client\Client;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\Runner;

/** Builds API clients that talk through the WordPress HTTP API. */
final class ClientFactory
{
    private function __construct()
    {
    }

    /** A client for the service at $origin (the API lives under /api), cut off at the kernel's lookup timeout. */
    public static function forOrigin(string $origin): Client
    {
        return Client::forServiceOrigin($origin, new WordPressTransport(), Runner::LOOKUP_TIMEOUT_SECONDS);
    }
}
