<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

declare(strict_types=1);

namespace CryptoCheckout\PrestaShop;

/**
 * Writes to PrestaShop's log (Advanced Parameters > Logs). Problems are always written; the
 * step-by-step trace only with debug logging switched on.
 */
final class Log
{
    private const INFO = 1;
    private const WARNING = 2;
    private const ERROR = 3;

    private function __construct()
    {
    }

    public static function debug(string $message, ?int $idOrder = null): void
    {
        if (Settings::isDebug()) {
            self::write(self::INFO, $message, $idOrder);
        }
    }

    public static function warning(string $message, ?int $idOrder = null): void
    {
        self::write(self::WARNING, $message, $idOrder);
    }

    public static function error(string $message, ?int $idOrder = null): void
    {
        self::write(self::ERROR, $message, $idOrder);
    }

    private static function write(int $severity, string $message, ?int $idOrder): void
    {
        $prefix = 'Crypto Checkout: ';
        if (strncmp($message, $prefix, strlen($prefix)) !== 0) {
            $message = $prefix . $message;
        }
        \PrestaShopLogger::addLog($message, $severity, null, $idOrder === null ? null : 'Order', $idOrder, true);
    }
}
