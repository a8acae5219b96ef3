<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Helper;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\HttpReply;

/**
 * Throttles the plugin's public endpoints per client IP: each request can make the shop ask the
 * service and write order meta, and neither takes a credential (the webhook takes none, the status
 * endpoint only the order key). A fixed window of WINDOW_SECONDS counted in a transient (the object
 * cache when the site has one); the count is not atomic, so a burst may pass a few requests over
 * the limit, which is enough to keep a flood off the service and the database.
 *
 * Limits are requests per window and filterable; 0 turns a limit off:
 * - cryptocheckout_wc_webhook_rate_limit (default 60), per IP;
 * - cryptocheckout_wc_status_rate_limit (default 30, the status box polls every 3 s), per IP and order.
 * The IP is REMOTE_ADDR; behind a reverse proxy, supply the visitor's with cryptocheckout_wc_client_ip.
 */
final class RateLimiter
{
    public const WINDOW_SECONDS = 60;
    public const WEBHOOK_LIMIT = 60;
    public const STATUS_LIMIT = 30;

    private const KEY_PREFIX = 'cryptocheckout_rl_';

    private function __construct()
    {
    }

    /** A 429 reply when this client sent too many webhooks in the window, else null (the request is counted). */
    public static function webhook(): ?HttpReply
    {
        $limit = (int) apply_filters('cryptocheckout_wc_webhook_rate_limit', self::WEBHOOK_LIMIT);
        return self::hit('webhook|' . self::clientIp(), $limit, time());
    }

    /** A 429 reply when this client asked for the order's status too often in the window, else null. */
    public static function status(string $orderId): ?HttpReply
    {
        $limit = (int) apply_filters('cryptocheckout_wc_status_rate_limit', self::STATUS_LIMIT, $orderId);
        return self::hit('status|' . self::clientIp() . '|' . $orderId, $limit, time());
    }

    /** The client's IP address, or "unknown" when none can be read (those clients share one count). */
    public static function clientIp(): string
    {
        $address = isset($_SERVER['REMOTE_ADDR']) ? sanitize_text_field(wp_unslash((string) $_SERVER['REMOTE_ADDR'])) : '';
        $address = (string) apply_filters('cryptocheckout_wc_client_ip', $address);
        return filter_var($address, FILTER_VALIDATE_IP) !== false ? $address : 'unknown';
    }

    /**
     * Counts one request of $bucket in the window that holds $now; a 429 in the service's envelope,
     * with Retry-After (seconds until the window ends), once the limit is reached.
     */
    public static function hit(string $bucket, int $limit, int $now): ?HttpReply
    {
        if ($limit <= 0) {
            return null;
        }
        $windowStart = $now - ($now % self::WINDOW_SECONDS);
        $key = self::KEY_PREFIX . md5($bucket . '|' . $windowStart);
        $count = (int) get_transient($key);
        if ($count >= $limit) {
            $retryAfter = max(1, $windowStart + self::WINDOW_SECONDS - $now);
            return HttpReply::error(429, 'rate_limited', 'Too many requests; try again later.', null, ['Retry-After' => (string) $retryAfter]);
        }
        set_transient($key, $count + 1, self::WINDOW_SECONDS);
        return null;
    }
}
