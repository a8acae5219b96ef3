<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

declare(strict_types=1);

namespace CryptoCheckout\PrestaShop;

use CryptoCheckout\PrestaShop\Vendor\Client\Client;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\Runner;

/**
 * The API client for a service URL, over PHP's default transport (curl, or streams without it),
 * with the kernel's lookup timeout so a webhook is answered inside the service's 8 seconds.
 */
final class ClientFactory
{
    private function __construct()
    {
    }

    public static function forService(string $serviceUrl): Client
    {
        return Client::forServiceOrigin($serviceUrl, null, Runner::LOOKUP_TIMEOUT_SECONDS);
    }
}
