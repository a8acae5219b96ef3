<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Helper;

defined('ABSPATH') || exit;

/**
 * A short-lived lock shared by every PHP process of the site, so that webhooks, scheduled polls and
 * buyer returns racing on one order change it once. Taking the lock is a single INSERT on the
 * options table's unique option_name: the database lets exactly one process win. A lock left by a
 * crashed process expires after its time to live.
 */
final class Lock
{
    private string $name;
    private string $token = '';

    public function __construct(string $name)
    {
        $this->name = 'cryptocheckout_lock_' . $name;
    }

    public function acquire(int $ttlSeconds = 30): bool
    {
        global $wpdb;
        $now = time();
        $token = ($now + $ttlSeconds) . ':' . wp_generate_password(12, false);
        if ($this->insert($token)) {
            return true;
        }
        // The holder may have crashed: take over a lock past its expiry, once.
        $current = $wpdb->get_var($wpdb->prepare("SELECT option_value FROM {$wpdb->options} WHERE option_name = %s", $this->name));
        if (is_string($current) && (int) strtok($current, ':') < $now) {
            $wpdb->query($wpdb->prepare("DELETE FROM {$wpdb->options} WHERE option_name = %s AND option_value = %s", $this->name, $current));
            return $this->insert($token);
        }
        return false;
    }

    public function release(): void
    {
        global $wpdb;
        if ($this->token === '') {
            return;
        }
        $wpdb->query($wpdb->prepare("DELETE FROM {$wpdb->options} WHERE option_name = %s AND option_value = %s", $this->name, $this->token));
        $this->token = '';
    }

    private function insert(string $token): bool
    {
        global $wpdb;
        $suppress = $wpdb->suppress_errors(true);
        $inserted = $wpdb->query(
            $wpdb->prepare(
                "INSERT INTO {$wpdb->options} (option_name, option_value, autoload) VALUES (%s, %s, 'no')",
                $this->name,
                $token
            )
        );
        $wpdb->suppress_errors($suppress);
        if ($inserted === 1) {
            $this->token = $token;
            return true;
        }
        return false;
    }
}
