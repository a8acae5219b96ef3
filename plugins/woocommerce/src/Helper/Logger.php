<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Helper;

defined('ABSPATH') || exit;

/**
 * Writes to WooCommerce's log (WooCommerce > Status > Logs, source "cryptocheckout"). Warnings and
 * errors are always written; debug and info lines only when debug logging is on in the settings.
 */
final class Logger
{
    public const SOURCE = 'cryptocheckout';

    private bool $debug;

    public function __construct(bool $debug)
    {
        $this->debug = $debug;
    }

    public static function fromSettings(): self
    {
        $settings = get_option('woocommerce_cryptocheckout_settings', []);
        return new self(is_array($settings) && ($settings['debug'] ?? 'no') === 'yes');
    }

    /** @param array<string, mixed> $context */
    public function debug(string $message, array $context = []): void
    {
        if ($this->debug) {
            $this->write('debug', $message, $context);
        }
    }

    /** @param array<string, mixed> $context */
    public function info(string $message, array $context = []): void
    {
        if ($this->debug) {
            $this->write('info', $message, $context);
        }
    }

    /** @param array<string, mixed> $context */
    public function warning(string $message, array $context = []): void
    {
        $this->write('warning', $message, $context);
    }

    /** @param array<string, mixed> $context */
    public function error(string $message, array $context = []): void
    {
        $this->write('error', $message, $context);
    }

    /** @param array<string, mixed> $context */
    private function write(string $level, string $message, array $context): void
    {
        if (!function_exists('wc_get_logger')) {
            return;
        }
        $context['source'] = self::SOURCE;
        wc_get_logger()->log($level, $message, $context);
    }
}
