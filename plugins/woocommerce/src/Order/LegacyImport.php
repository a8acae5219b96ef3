<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Order;

defined('ABSPATH') || exit;

use Automattic\WooCommerce\Utilities\OrderUtil;
use CryptoCheckout\WooCommerce\Helper\Kernel;
use CryptoCheckout\WooCommerce\Plugin;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\Decision;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\Kernel as PluginKernel;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\Ledger\LegacyRecords;

/**
 * The upgrade from 0.1.0, which kept its records in order meta (README "Upgrading from 0.1.0" lists
 * both layouts): the kernel's ledger is installed, and each order's records are read as that
 * version wrote them and handed to the kernel's one migration map, LegacyRecords::import() (a second
 * import adds nothing). Orders still watched (_cryptocheckout_poll_until ahead), the only ones a
 * webhook or the poll can be about, are imported before any request is served; the rest in batches
 * through Action Scheduler, and until then an order is imported when a page asks for it
 * (Helper\Kernel::get() with its id: its status, its order screen, paying it again). The old
 * metas stay, unread; the claim rows go. An order that cannot be imported keeps its records, the
 * log names it, a notice says so, and activating the plugin again tries again.
 */
final class LegacyImport
{
    /** Where the upgrade stands: absent (not run), "importing", "done" or "failed". */
    public const OPTION = 'cryptocheckout_wc_ledger';
    public const HOOK = 'cryptocheckout_import_legacy_orders';
    public const BATCH = 100;

    private const PREFIX = '_cryptocheckout_';
    private const CURSOR = 'wc_legacy_import_cursor';
    private const FAILED = 'wc_legacy_import_failed';
    /** The metas of the one checkout before the kernel, by ledger column. */
    private const ONE_CHECKOUT = ['checkout_url', 'service_url', 'fiat_amount', 'fiat_currency', 'wallet_address', 'wallet_currency', 'wallet_network', 'expires_at', 'received_usd'];

    private function __construct()
    {
    }

    /** init: installs the ledger and imports the watched orders, once; the rest is scheduled. */
    public static function upgrade(): void
    {
        if (get_option(self::OPTION) !== false) {
            return;
        }
        $kernel = Kernel::get();
        try {
            $kernel->ledger()->install();
        } catch (\RuntimeException $failure) {
            update_option(self::OPTION, 'failed', true);
            Kernel::log('error', 'The Crypto Checkout tables could not be created; orders keep their earlier records, and the upgrade is tried again when the plugin is activated again: ' . $failure->getMessage());
            return;
        }
        if (self::orderIds(self::PREFIX . 'transaction_code', null, 0, 1) === []) {
            update_option(self::OPTION, 'done', true);
            return;
        }
        // Until the option is set, every request (a webhook, the poll) runs this first.
        foreach (self::orderIds(self::PREFIX . 'poll_until', time(), 0, PHP_INT_MAX) as $orderId) {
            self::importOrder($kernel, $orderId);
        }
        update_option(self::OPTION, 'importing', true);
        if (as_next_scheduled_action(self::HOOK, null, Plugin::GROUP) === false) {
            as_enqueue_async_action(self::HOOK, [], Plugin::GROUP);
        }
    }

    /** Action Scheduler: the next batch in id order; then the next one, or the end. */
    public static function importBatch(): void
    {
        $kernel = Kernel::get();
        $ledger = $kernel->ledger();
        $cursor = (int) $ledger->value(self::CURSOR, 0);
        $ids = self::orderIds(self::PREFIX . 'transaction_code', null, $cursor, self::BATCH);
        foreach ($ids as $orderId) {
            if (!self::importOrder($kernel, $orderId)) {
                $ledger->putValue(self::FAILED, trim($ledger->value(self::FAILED, 0) . ' ' . $orderId));
            }
            $cursor = $orderId;
        }
        $ledger->putValue(self::CURSOR, (string) $cursor);
        if (count($ids) === self::BATCH) {
            as_enqueue_async_action(self::HOOK, [], Plugin::GROUP);
            return;
        }
        global $wpdb;
        $wpdb->query($wpdb->prepare("DELETE FROM {$wpdb->options} WHERE option_name LIKE %s OR option_name LIKE %s", $wpdb->esc_like('cryptocheckout_claim_') . '%', $wpdb->esc_like('cryptocheckout_lock_') . '%'));
        update_option(self::OPTION, (string) $ledger->value(self::FAILED, 0) === '' ? 'done' : 'failed', true);
        $ledger->putValue(self::CURSOR, '0');
        $ledger->putValue(self::FAILED, '');
    }

    /** While importing: the order's records, unless the ledger has its checkouts already. */
    public static function importOnDemand(PluginKernel $kernel, string $orderId): void
    {
        if (get_option(self::OPTION) === 'importing' && ctype_digit($orderId) && $kernel->checkouts($orderId) === []) {
            self::importOrder($kernel, (int) $orderId);
        }
    }

    /** admin_notices: an import that left orders on their earlier records. */
    public static function notice(): void
    {
        if (get_option(self::OPTION) === 'failed' && current_user_can('manage_woocommerce')) {
            echo '<div class="notice notice-error"><p>' . esc_html__('Crypto Checkout could not move the payment records of every order into its own tables. Those orders keep their earlier records; the log (WooCommerce > Status > Logs, source "cryptocheckout") names them and says why. Deactivate and activate the plugin to try again.', 'cryptocheckout-for-woocommerce') . '</p></div>';
        }
    }

    /** False when the order's records could not be imported (logged; it keeps them). */
    private static function importOrder(PluginKernel $kernel, int $orderId): bool
    {
        $order = WooCommerceOrderPort::order((string) $orderId);
        try {
            $rows = $order === null ? [] : self::rows($order);
            if ($rows !== []) {
                LegacyRecords::import($kernel->ledger(), (string) $orderId, $rows, time());
            }
            return true;
        } catch (\RuntimeException $failure) {
            Kernel::log('error', 'The order\'s Crypto Checkout records could not be moved into the ledger; it keeps its earlier records: ' . $failure->getMessage(), ['order' => $orderId]);
            return false;
        }
    }

    /**
     * The order's checkouts as the earlier versions stored them, keyed by the ledger's columns.
     *
     * @return list<array<string, mixed>>
     */
    private static function rows(\WC_Order $order): array
    {
        $meta = static fn (string $key): string => (string) $order->get_meta(self::PREFIX . $key);
        $json = static function (string $key) use ($meta): array {
            $value = json_decode($meta($key), true);
            return is_array($value) ? $value : [];
        };
        $holdReason = $meta('hold_reason') === '' ? null : $meta('hold_reason');
        $terms = json_decode($meta('checkouts'), true);
        if (is_array($terms)) {
            $rows = [];
            foreach (array_filter($terms, 'is_array') as $row) {
                $code = strtolower((string) ($row['transaction_code'] ?? ''));
                $row = array_merge($row, $json('check_' . $code), $json('applied_' . $code), ['hold_reason' => $holdReason, 'notified' => null]);
                foreach ($json('notified') as $notice) {
                    // "<code>|<action>|<reason>", each written once; the last one of the checkout is its notice.
                    if (is_string($notice) && strpos($notice, $code . '|') === 0) {
                        $row['notified'] = substr($notice, strlen($code) + 1);
                    }
                }
                $rows[] = $row;
            }
            return $rows;
        }
        if ($meta('transaction_code') === '') {
            return [];
        }
        $created = $order->get_date_created();
        $row = [
            'transaction_code' => $meta('transaction_code'),
            'created_at' => $created instanceof \DateTimeInterface ? $created->getTimestamp() : 0,
            'watch_until' => $meta('poll_until') === '' ? null : $meta('poll_until'),
            'hold_reason' => $holdReason,
            // What the order's status and hold reason said is what that version had done.
            'legacy_state' => WooCommerceOrderPort::stateOf((string) $order->get_status('edit'), LegacyRecords::HOLD_REASONS[(string) $holdReason] ?? null),
            'applied_action' => $meta('mismatch_noted') === '' ? null : Decision::REJECT_MISMATCH,
        ];
        foreach (self::ONE_CHECKOUT as $column) {
            $row[$column] = $meta($column) === '' ? null : $meta($column);
        }
        return [$row];
    }

    /**
     * Ids of the orders after $after with a meta row $key (a number at least $atLeast), in id order,
     * from the authoritative order meta table (HPOS, or the posts storage).
     *
     * @return list<int>
     */
    private static function orderIds(string $key, ?int $atLeast, int $after, int $limit): array
    {
        global $wpdb;
        [$table, $column] = OrderUtil::custom_orders_table_usage_is_enabled() ? [$wpdb->prefix . 'wc_orders_meta', 'order_id'] : [$wpdb->postmeta, 'post_id'];
        $value = $atLeast === null ? '' : $wpdb->prepare(' AND CAST(meta_value AS SIGNED) >= %d', $atLeast);
        // phpcs:ignore WordPress.DB -- table and column names are WooCommerce's, the values placeholders
        $ids = $wpdb->get_col($wpdb->prepare("SELECT DISTINCT {$column} FROM {$table} WHERE meta_key = %s{$value} AND {$column} > %d ORDER BY {$column} LIMIT %d", $key, $after, $limit));
        return array_map('intval', (array) $ids);
    }
}
