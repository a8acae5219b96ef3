<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

declare(strict_types=1);

namespace CryptoCheckout\PrestaShop;

use CryptoCheckout\PrestaShop\Vendor\Client\Client;

/**
 * Builds the API client for the configured service. Short timeouts keep the webhook answer well
 * inside the service's 8 second limit.
 */
final class ClientFactory
{
    public const TIMEOUT_SECONDS = 6;

    private function __construct()
    {
    }

    public static function create(): Client
    {
        return Client::forServiceOrigin(Settings::get(Settings::SERVICE_URL), null, self::TIMEOUT_SECONDS);
    }
}
