<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Gateway;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Helper\Kernel;

/**
 * Webhooks are sent once and never retried, so the kernel's poll runs on a schedule: every five
 * minutes through Action Scheduler (WP-Cron where it is missing). What is due and in which order
 * is the kernel's PollPolicy, applied in the port's query.
 */
final class Poller
{
    public const HOOK = 'cryptocheckout_poll_open_orders';
    public const GROUP = 'cryptocheckout';
    public const INTERVAL_SECONDS = 300;

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

    /** @return list<array{result: string, transaction_code: string|null, action: string|null, reason: string|null, status: string|null}> */
    public static function run(): array
    {
        $port = Kernel::port();
        $outcomes = [];
        foreach (Kernel::runner($port)->poll(Kernel::policy()) as $outcome) {
            $outcomes[] = $outcome->toArray();
        }
        return $outcomes;
    }
}
