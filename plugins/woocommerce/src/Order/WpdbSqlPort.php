<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Order;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\Ledger\SqlPort;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\Ledger\SqlText;

/**
 * The kernel's ledger on WordPress' database: the site's table prefix, every value escaped by $wpdb,
 * and a database error thrown (not printed), so the kernel logs it in the plugin's log.
 */
final class WpdbSqlPort implements SqlPort
{
    public function table(string $name): string
    {
        global $wpdb;
        return $wpdb->prefix . $name;
    }

    public function select(string $sql, array $parameters = []): array
    {
        return array_values((array) $this->run(false, $sql, $parameters));
    }

    public function execute(string $sql, array $parameters = []): int
    {
        return (int) $this->run(true, $sql, $parameters);
    }

    /**
     * @param list<string|int|null> $parameters
     * @return mixed the rows, or the count of changed rows
     */
    private function run(bool $change, string $sql, array $parameters)
    {
        global $wpdb;
        $text = SqlText::inline($sql, $parameters, static fn (string $value): string => "'" . esc_sql($value) . "'");
        $suppressed = $wpdb->suppress_errors(true);
        // phpcs:ignore WordPress.DB -- the ledger's own tables, every value escaped
        $result = $change ? $wpdb->query($text) : $wpdb->get_results($text, ARRAY_A);
        $wpdb->suppress_errors($suppressed);
        if ($result === false || $wpdb->last_error !== '') {
            $error = trim((string) preg_replace('/\s+/', ' ', wp_strip_all_tags($wpdb->last_error)));
            throw new \RuntimeException(sprintf('The database refused "%s…": %s', substr($sql, 0, 48), $error === '' ? 'no message' : $error));
        }
        return $result;
    }
}
