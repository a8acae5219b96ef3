<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Order;

defined('ABSPATH') || exit;

/**
 * The kernel's claim marker of an order, as one row of the options table that every PHP process
 * of the site shares. Each change is a single statement the database applies atomically, so among
 * any number of requests one wins each swap: INSERT (the unique option_name refuses a second one),
 * UPDATE … WHERE option_value = expected, DELETE … WHERE option_value = expected. The rows bypass
 * get_option() and its caches on purpose: a cached value is exactly what a compare-and-swap must
 * not trust.
 */
final class ClaimStore
{
    public const PREFIX = 'cryptocheckout_claim_';

    public function read(string $orderId): ?string
    {
        global $wpdb;
        $value = $wpdb->get_var($wpdb->prepare("SELECT option_value FROM {$wpdb->options} WHERE option_name = %s", self::name($orderId)));
        return is_string($value) ? $value : null;
    }

    /** Replaces the marker only if it is still $expected (null: no marker); true for exactly one caller. */
    public function swap(string $orderId, ?string $expected, ?string $replacement): bool
    {
        global $wpdb;
        $name = self::name($orderId);
        if ($expected === null && $replacement === null) {
            return $this->read($orderId) === null;
        }
        if ($expected === null) {
            // A second INSERT of the same option_name fails on the unique key: that is the lost race.
            $suppress = $wpdb->suppress_errors(true);
            $changed = $wpdb->query($wpdb->prepare("INSERT INTO {$wpdb->options} (option_name, option_value, autoload) VALUES (%s, %s, 'no')", $name, $replacement));
            $wpdb->suppress_errors($suppress);
            return $changed === 1;
        }
        if ($replacement === null) {
            $changed = $wpdb->query($wpdb->prepare("DELETE FROM {$wpdb->options} WHERE option_name = %s AND option_value = %s", $name, $expected));
            return $changed === 1;
        }
        if ($replacement === $expected) {
            return $this->read($orderId) === $expected;
        }
        $changed = $wpdb->query($wpdb->prepare("UPDATE {$wpdb->options} SET option_value = %s WHERE option_name = %s AND option_value = %s", $replacement, $name, $expected));
        return $changed === 1;
    }

    private static function name(string $orderId): string
    {
        return self::PREFIX . $orderId;
    }
}
