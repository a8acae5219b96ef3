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

    /** @param array<string, scalar|null> $context */
    public function error(string $message, array $context = []): void
    {
        $this->log('error', $message, $context);
    }

    /**
     * @param string $level debug, info, warning or error
     * @param array<string, scalar|null> $context order, transaction, trigger…: written after the message
     */
    public function log(string $level, string $message, array $context = []): void
    {
        if (!function_exists('wc_get_logger') || (!$this->debug && in_array($level, ['debug', 'info'], true))) {
            return;
        }
        $details = [];
        foreach ($context as $key => $value) {
            $details[] = $key . ' ' . (is_bool($value) ? ($value ? 'yes' : 'no') : (string) $value);
        }
        $line = $details === [] ? $message : $message . ' (' . implode(', ', $details) . ')';
        wc_get_logger()->log($level, $line, ['source' => self::SOURCE]);
    }
}
