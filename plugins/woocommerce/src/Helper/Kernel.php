<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Helper;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Order\CheckoutStore;
use CryptoCheckout\WooCommerce\Order\ClaimStore;
use CryptoCheckout\WooCommerce\Order\WooCommerceOrderPort;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\CheckoutOpener;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\PollPolicy;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\Runner;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\WebhookHandler;

/** The plugin kernel wired over WooCommerce: one place builds the port and what runs on it. */
final class Kernel
{
    public const TEXT_DOMAIN = 'cryptocheckout-for-woocommerce';

    private function __construct()
    {
    }

    /** The poll's policy; the port's poll index is computed with the same one. */
    public static function policy(): PollPolicy
    {
        return new PollPolicy();
    }

    public static function port(): WooCommerceOrderPort
    {
        return new WooCommerceOrderPort(new CheckoutStore(self::policy()), new ClaimStore(), Logger::fromSettings());
    }

    public static function runner(WooCommerceOrderPort $port): Runner
    {
        return new Runner($port, [ClientFactory::class, 'forOrigin']);
    }

    public static function webhooks(WooCommerceOrderPort $port): WebhookHandler
    {
        return new WebhookHandler($port, self::runner($port));
    }

    public static function opener(WooCommerceOrderPort $port): CheckoutOpener
    {
        return new CheckoutOpener($port, self::runner($port), [ClientFactory::class, 'forOrigin']);
    }

    /**
     * The kernel's English texts through WordPress' translations (they are listed in the plugin's
     * .pot), then their %placeholders% filled in.
     *
     * @param array<string, string> $parameters
     */
    public static function translate(string $text, array $parameters = []): string
    {
        // phpcs:ignore WordPress.WP.I18n.NonSingularStringLiteralText -- the kernel's fixed texts, listed in languages/*.pot
        return strtr(__($text, self::TEXT_DOMAIN), $parameters);
    }
}
