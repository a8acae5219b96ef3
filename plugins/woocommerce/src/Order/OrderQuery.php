<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Order;

defined('ABSPATH') || exit;

use Automattic\WooCommerce\Utilities\OrderUtil;

/**
 * The order searches of the plugin, as wc_get_orders() meta queries, so they run on the
 * authoritative order storage: HPOS takes meta_query itself; the legacy posts storage ignores it
 * (WooCommerce 9.2+ reports it as unsupported) and gets the same clauses through its documented
 * filter, woocommerce_order_data_store_cpt_get_orders_query, into WP_Query. Every filter is part of
 * the query, ahead of its LIMIT.
 */
final class OrderQuery
{
    /** The query variable that carries the meta query to the legacy storage's WP_Query. */
    public const LEGACY_VAR = 'cryptocheckout_meta_query';

    private function __construct()
    {
    }

    /** The order one of whose checkouts has this transaction code, or null. */
    public static function orderByCode(string $code): ?string
    {
        $code = strtolower(trim($code));
        if ($code === '') {
            return null;
        }
        $ids = self::ids([['key' => CheckoutStore::CODE, 'value' => $code, 'compare' => '=']], ['ID' => 'ASC'], 1);
        return $ids === [] ? null : (string) $ids[0];
    }

    /**
     * Orders with a checkout due for the poll at $now: due, still watched, least recently checked
     * first (never checked before all), newest first among equals.
     *
     * @return list<int>
     */
    public static function dueOrders(int $now, int $limit): array
    {
        return self::ids(
            [
                'relation' => 'AND',
                'cryptocheckout_due' => ['key' => CheckoutStore::POLL_DUE, 'value' => $now, 'compare' => '<=', 'type' => 'NUMERIC'],
                'cryptocheckout_until' => ['key' => CheckoutStore::POLL_UNTIL, 'value' => $now, 'compare' => '>=', 'type' => 'NUMERIC'],
                'cryptocheckout_checked' => ['key' => CheckoutStore::POLL_CHECKED, 'compare' => 'EXISTS', 'type' => 'NUMERIC'],
            ],
            ['cryptocheckout_checked' => 'ASC', 'date' => 'DESC', 'ID' => 'DESC'],
            $limit
        );
    }

    /**
     * Orders of the previous version still inside their watch window, not yet in the poll index.
     *
     * @return list<int>
     */
    public static function legacyWatchedOrders(int $now, int $limit): array
    {
        return self::ids(
            [
                'relation' => 'AND',
                ['key' => CheckoutStore::CODE, 'compare' => 'EXISTS'],
                ['key' => CheckoutStore::CHECKOUTS, 'compare' => 'NOT EXISTS'],
                ['key' => CheckoutStore::POLL_DUE, 'compare' => 'NOT EXISTS'],
                ['key' => CheckoutStore::POLL_UNTIL, 'value' => $now, 'compare' => '>=', 'type' => 'NUMERIC'],
            ],
            ['ID' => 'ASC'],
            $limit
        );
    }

    /**
     * woocommerce_order_data_store_cpt_get_orders_query: the legacy storage's WP_Query takes the
     * meta query this class passes under LEGACY_VAR.
     *
     * @param array<string, mixed> $wpQueryArgs
     * @param array<string, mixed> $queryVars
     * @return array<string, mixed>
     */
    public static function legacyQueryArgs($wpQueryArgs, $queryVars): array
    {
        $wpQueryArgs = is_array($wpQueryArgs) ? $wpQueryArgs : [];
        if (is_array($queryVars) && isset($queryVars[self::LEGACY_VAR]) && is_array($queryVars[self::LEGACY_VAR])) {
            $existing = isset($wpQueryArgs['meta_query']) && is_array($wpQueryArgs['meta_query']) ? $wpQueryArgs['meta_query'] : [];
            // phpcs:ignore WordPress.DB.SlowDBQuery.slow_db_query_meta_query -- the searches need it; the keys are few per order
            $wpQueryArgs['meta_query'] = $existing === [] ? $queryVars[self::LEGACY_VAR] : ['relation' => 'AND', $existing, $queryVars[self::LEGACY_VAR]];
            unset($wpQueryArgs[self::LEGACY_VAR]);
        }
        return $wpQueryArgs;
    }

    /**
     * @param array<int|string, mixed> $metaQuery
     * @param array<string, string> $orderby
     * @return list<int>
     */
    private static function ids(array $metaQuery, array $orderby, int $limit): array
    {
        $args = [
            'limit' => max(1, $limit),
            'return' => 'ids',
            'orderby' => $orderby,
        ];
        $hpos = class_exists(OrderUtil::class) && OrderUtil::custom_orders_table_usage_is_enabled();
        // phpcs:ignore WordPress.DB.SlowDBQuery.slow_db_query_meta_query -- see above
        $args[$hpos ? 'meta_query' : self::LEGACY_VAR] = $metaQuery;
        return array_map('intval', (array) wc_get_orders($args));
    }
}
