<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Helper;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Order\LegacyImport;
use CryptoCheckout\WooCommerce\Order\WooCommerceOrderPort;
use CryptoCheckout\WooCommerce\Order\WpdbSqlPort;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\Clock;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\Kernel as PluginKernel;

/**
 * The one place the plugin kernel is assembled over WooCommerce: the order port, the ledger on the
 * site's database, the WordPress HTTP API, the site's translations and the public endpoints' limits
 * (filters cryptocheckout_wc_webhook_rate_limit, cryptocheckout_wc_status_rate_limit: requests a
 * minute, 0 for none) and its time (filter cryptocheckout_wc_clock: a Clock, e.g. a site whose PHP
 * clock is off, or a test that moves time). Every entry point calls one method of what get() returns.
 */
final class Kernel
{
    public const TEXT_DOMAIN = 'cryptocheckout-for-woocommerce';

    private function __construct()
    {
    }

    /** The kernel; with an order id, for that order: its status limit, its records of 0.1.0 imported first (LegacyImport). */
    public static function get(string $orderId = ''): PluginKernel
    {
        $settings = get_option('woocommerce_cryptocheckout_settings', []);
        $debug = is_array($settings) && ($settings['debug'] ?? 'no') === 'yes';
        $clock = apply_filters('cryptocheckout_wc_clock', null);
        $kernel = (new PluginKernel(new WooCommerceOrderPort($debug), new WpdbSqlPort(), new WordPressTransport(), [self::class, 'translate'], $clock instanceof Clock ? $clock : null))->withLimits(
            (int) apply_filters('cryptocheckout_wc_webhook_rate_limit', PluginKernel::WEBHOOK_LIMIT),
            (int) apply_filters('cryptocheckout_wc_status_rate_limit', PluginKernel::STATUS_LIMIT, $orderId)
        );
        if ($orderId !== '') {
            LegacyImport::importOnDemand($kernel, $orderId);
        }
        return $kernel;
    }

    /** A line in the plugin's log (WooCommerce > Status > Logs, source "cryptocheckout"). @param array<string, scalar|null> $context */
    public static function log(string $level, string $message, array $context = []): void
    {
        self::get()->orders()->log($level, $message, $context);
    }

    /** The visitor's IP for the limits: REMOTE_ADDR, or the cryptocheckout_wc_client_ip filter's (behind a proxy). */
    public static function clientIp(): string
    {
        $address = isset($_SERVER['REMOTE_ADDR']) ? sanitize_text_field(wp_unslash((string) $_SERVER['REMOTE_ADDR'])) : '';
        $address = (string) apply_filters('cryptocheckout_wc_client_ip', $address);
        return filter_var($address, FILTER_VALIDATE_IP) !== false ? $address : 'unknown';
    }

    /** The kernel's English texts (listed in languages/*.pot) through WordPress' translations. @param array<string, string> $parameters */
    public static function translate(string $text, array $parameters = []): string
    {
        // phpcs:ignore WordPress.WP.I18n.NonSingularStringLiteralText -- the kernel's fixed texts, listed in languages/*.pot
        return strtr(__($text, self::TEXT_DOMAIN), $parameters);
    }
}
