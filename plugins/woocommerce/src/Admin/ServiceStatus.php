<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Admin;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Helper\Kernel;
use CryptoCheckout\WooCommerce\Helper\WordPressTransport;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\ServiceProbe;

/**
 * Whether the configured service answers, for the settings page: the kernel's ServiceProbe through
 * the WordPress HTTP API (at most 5 s), remembered a minute in a transient so showing the page
 * again does not wait on the service each time. Saving the settings checks afresh.
 */
final class ServiceStatus
{
    public const TRANSIENT_PREFIX = 'cryptocheckout_service_probe_';
    public const CACHE_SECONDS = 60;

    private function __construct()
    {
    }

    /**
     * @param bool $fresh ask the service even when a recent answer is remembered
     * @return array{reachable: bool, problem: string|null, message: string, checked_at: int}
     */
    public static function check(string $serviceUrl, bool $fresh = false): array
    {
        $key = self::TRANSIENT_PREFIX . md5($serviceUrl);
        if (!$fresh) {
            $cached = get_transient($key);
            if (is_array($cached) && isset($cached['reachable'], $cached['message'], $cached['checked_at'])) {
                return $cached;
            }
        }
        $probe = new ServiceProbe(new WordPressTransport(), [Kernel::class, 'translate'], ServiceProbe::TIMEOUT_SECONDS);
        $result = $probe->probe($serviceUrl) + ['checked_at' => time()];
        set_transient($key, $result, self::CACHE_SECONDS);
        return $result;
    }

    /**
     * The state as HTML for the field's description (WooCommerce passes descriptions through
     * wp_kses_post, which keeps the span and its data attribute).
     *
     * @param array{reachable: bool, problem: string|null, message: string, checked_at: int} $result
     */
    public static function describe(array $result): string
    {
        $label = $result['reachable']
            ? __('Service reachable.', 'cryptocheckout-for-woocommerce')
            : __('Service unreachable.', 'cryptocheckout-for-woocommerce');
        $checked = sprintf(
            /* translators: %s: time of the check */
            __('Checked at %s.', 'cryptocheckout-for-woocommerce'),
            wp_date((string) get_option('time_format', 'H:i'), (int) $result['checked_at'])
        );
        return sprintf(
            '<span class="cryptocheckout-service-state" data-state="%s"><strong>%s</strong> %s %s</span>',
            esc_attr($result['reachable'] ? 'reachable' : 'unreachable'),
            esc_html($label),
            esc_html($result['message']),
            esc_html($checked)
        );
    }
}
