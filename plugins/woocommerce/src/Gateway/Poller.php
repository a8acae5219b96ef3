<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Gateway;

defined('ABSPATH') || exit;

/**
 * Webhooks are sent once and never retried, so open orders are also checked on a schedule: every
 * five minutes through Action Scheduler (WP-Cron where it is missing). An order is watched until
 * it is paid, or until the late-payment window after its expiry has closed.
 */
final class Poller
{
    public const HOOK = 'cryptocheckout_poll_open_orders';
    public const GROUP = 'cryptocheckout';
    public const INTERVAL_SECONDS = 300;
    public const BATCH = 50;

    private function __construct()
    {
    }

    public static function ensureScheduled(): void
    {
        if (function_exists('as_next_scheduled_action')) {
            if (as_next_scheduled_action(self::HOOK, [], self::GROUP) === false) {
                as_schedule_recurring_action(time() + 60, self::INTERVAL_SECONDS, self::HOOK, [], self::GROUP, true);
            }
            return;
        }
        if (wp_next_scheduled(self::HOOK) === false) {
            wp_schedule_event(time() + 60, 'cryptocheckout_five_minutes', self::HOOK);
        }
    }

    public static function unschedule(): void
    {
        if (function_exists('as_unschedule_all_actions')) {
            as_unschedule_all_actions(self::HOOK, [], self::GROUP);
        }
        wp_clear_scheduled_hook(self::HOOK);
    }

    /**
     * @param array<string, array{interval: int, display: string}> $schedules
     * @return array<string, array{interval: int, display: string}>
     */
    public static function cronSchedules($schedules): array
    {
        $schedules = is_array($schedules) ? $schedules : [];
        $schedules['cryptocheckout_five_minutes'] = [
            'interval' => self::INTERVAL_SECONDS,
            'display' => __('Every five minutes (Crypto Checkout)', 'cryptocheckout-for-woocommerce'),
        ];
        return $schedules;
    }

    /** @return array<int, array{result: string, action?: string, reason?: string}> outcome per order id */
    public static function run(): array
    {
        $now = time();
        $ids = wc_get_orders([
            'payment_method' => Gateway::ID,
            'status' => ['pending', 'on-hold', 'cancelled'],
            'date_created' => '>' . ($now - 3 * DAY_IN_SECONDS),
            'orderby' => 'date',
            'order' => 'ASC',
            'limit' => self::BATCH,
            'return' => 'ids',
        ]);
        $sync = new OrderSync();
        $outcomes = [];
        foreach ((array) $ids as $id) {
            $order = wc_get_order((int) $id);
            if ($order instanceof \WC_Order && OrderData::isWatched($order, $now)) {
                $outcomes[(int) $id] = $sync->sync((int) $id, 'poll');
            }
        }
        return $outcomes;
    }
}
