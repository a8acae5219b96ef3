<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

declare(strict_types=1);

namespace CryptoCheckout\PrestaShop;

/**
 * The kernel's log sink: PrestaShop's log (Advanced Parameters > Logs), each entry tied to its
 * order. What happened to an order and every problem are always written; the step-by-step trace
 * (debug) only with debug logging switched on.
 */
final class Log
{
    private const SEVERITY = ['debug' => 1, 'info' => 1, 'warning' => 2, 'error' => 3];
    private const PREFIX = 'Crypto Checkout: ';

    private function __construct()
    {
    }

    /**
     * @param string $level debug, info, warning or error
     * @param array<string, scalar|null> $context the kernel's context; "order" ties the entry to the order
     */
    public static function write(string $level, string $message, array $context = []): void
    {
        if ($level === 'debug' && !Settings::isDebug()) {
            return;
        }
        $idOrder = isset($context['order']) && is_numeric($context['order']) ? (int) $context['order'] : null;
        $details = [];
        foreach ($context as $key => $value) {
            if ($key !== 'order' && $value !== null && $value !== '') {
                $details[] = $key . ' ' . (is_bool($value) ? ($value ? 'yes' : 'no') : (string) $value);
            }
        }
        if (strncmp($message, self::PREFIX, strlen(self::PREFIX)) !== 0) {
            $message = self::PREFIX . $message;
        }
        if ($details !== []) {
            $message .= ' [' . implode(', ', $details) . ']';
        }
        \PrestaShopLogger::addLog($message, self::SEVERITY[$level] ?? 2, null, $idOrder === null ? null : 'Order', $idOrder, true);
    }
}
