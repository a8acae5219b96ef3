<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

declare(strict_types=1);

namespace CryptoCheckout\PrestaShop;

use CryptoCheckout\PrestaShop\Vendor\Client\Client;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\ServiceProbe;

/**
 * Whether the saved service answers: the kernel's ServiceProbe (one GET /payment_options), run on
 * every save of the settings and by the payment step at most once a minute, its last result kept
 * in Configuration. The payment option is offered only while the last result says reachable, so
 * no buyer places an order that cannot be paid.
 */
final class ServiceReachability
{
    /** Configuration key of the last result: JSON {service_url, reachable, problem, message, checked_at}. */
    public const LAST_CHECK = 'CRYPTOCHECKOUT_SERVICE_CHECK';

    /** How long a result stands before the payment step asks again (seconds). */
    public const FRESH_SECONDS = 60;

    /** The payment step waits at most this long for the service (seconds). */
    public const CHECKOUT_TIMEOUT_SECONDS = 2;

    private function __construct()
    {
    }

    /**
     * Asks the service now and keeps the answer.
     *
     * @param callable(string, array<string, string>): string $translate
     * @return array{service_url: string, reachable: bool, problem: string|null, message: string, checked_at: int}
     */
    public static function check(string $serviceUrl, callable $translate, int $timeoutSeconds = ServiceProbe::TIMEOUT_SECONDS): array
    {
        $probe = new ServiceProbe(Client::createDefaultTransport(), $translate, $timeoutSeconds);
        $result = ['service_url' => $serviceUrl] + $probe->probe($serviceUrl) + ['checked_at' => time()];
        \Configuration::updateValue(self::LAST_CHECK, (string) json_encode($result));

        return $result;
    }

    /**
     * The last result for this service URL, or null when there is none.
     *
     * @return array{service_url: string, reachable: bool, problem: string|null, message: string, checked_at: int}|null
     */
    public static function last(string $serviceUrl): ?array
    {
        $stored = json_decode((string) \Configuration::get(self::LAST_CHECK), true);
        if (!is_array($stored) || ($stored['service_url'] ?? null) !== $serviceUrl || !isset($stored['reachable'], $stored['checked_at'])) {
            return null;
        }

        return $stored;
    }

    /**
     * True when the service can take a payment now, as far as the module knows: the last result
     * when it is under a minute old, otherwise a new short check.
     *
     * @param callable(string, array<string, string>): string $translate
     */
    public static function isReachable(string $serviceUrl, callable $translate, int $now): bool
    {
        $last = self::last($serviceUrl);
        if ($last !== null && $now - (int) $last['checked_at'] < self::FRESH_SECONDS) {
            return (bool) $last['reachable'];
        }

        return self::check($serviceUrl, $translate, self::CHECKOUT_TIMEOUT_SECONDS)['reachable'];
    }
}
