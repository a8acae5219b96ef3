<?php
/**
 * Harness (WooCommerce 10.0.2): the order data stores, OrdersTableDataStore (HPOS) and
 * WC_Order_Data_Store_CPT (posts), with WooCommerce's compatibility mode between them.
 *
 * - Which storage is authoritative: the option woocommerce_custom_orders_table_enabled (HPOS unless
 *   "no"), as OrderUtil::custom_orders_table_usage_is_enabled() says. HPOS keeps an order in
 *   {prefix}wc_orders, {prefix}wc_orders_meta and {prefix}wc_order_operational_data; the posts
 *   storage in a shop_order post (its status, created and modified dates) and its post meta (the
 *   props under _order_currency, _order_total, _payment_method, _payment_method_title,
 *   _transaction_id, _order_key, _created_via, _date_paid, and every other meta row). An order's id
 *   is its post's id in both (HPOS reserves it with a shop_order_placehold post). Line items and the
 *   stock_reduced flag live in harness tables, whatever the storage.
 * - Compatibility mode (woocommerce_custom_orders_table_data_sync_enabled = "yes", HPOS
 *   authoritative): every save is backfilled into the posts copy from a fresh read of the order,
 *   whole, with the read's modified time (persist_updates → backfill_post_record); and the first
 *   read of an order in a request (not while it is being backfilled; filter
 *   woocommerce_hpos_enable_sync_on_read) compares the posts copy with it. When they differ and the
 *   post's modified time is the same second or later, the posts copy is migrated into the order
 *   (migrate_post_record): its meta and props set through the order's setters, so a status change
 *   is recorded as the object's transition, written to HPOS with no backfill, no transition and
 *   without applying the changes (the object keeps them), then woocommerce_hpos_post_record_migrated_on_read.
 *   A later save() of that object writes the migrated values again and runs the transition.
 */

defined('ABSPATH') || exit;

class WC_Order_Data_Store
{
    /** The props the posts storage keeps in post meta, by meta key. */
    private const POST_PROPS = [
        '_order_currency' => 'currency', '_order_total' => 'total', '_payment_method' => 'payment_method',
        '_payment_method_title' => 'payment_method_title', '_transaction_id' => 'transaction_id',
        '_order_key' => 'order_key', '_created_via' => 'created_via', '_date_paid' => 'date_paid',
    ];
    /** The props compared and migrated by the sync on read (OrdersTableDataStore get_base_data()). */
    private const BASE_PROPS = ['status', 'currency', 'total', 'payment_method', 'payment_method_title', 'transaction_id', 'date_paid'];

    /** @var list<int> orders read in this request (self::$reading_order_ids) */
    private static array $reading = [];
    /** @var list<int> orders being backfilled */
    private static array $backfilling = [];

    public static function table(string $name): string
    {
        global $wpdb;
        return $wpdb->prefix . $name;
    }

    /** A stored status without its "wc-" prefix. */
    private static function without_prefix(string $status): string
    {
        return substr($status, 0, 3) === 'wc-' ? substr($status, 3) : $status;
    }

    public static function hpos_enabled(): bool
    {
        return get_option('woocommerce_custom_orders_table_enabled', 'yes') !== 'no';
    }

    public static function sync_enabled(): bool
    {
        return get_option('woocommerce_custom_orders_table_data_sync_enabled', 'no') === 'yes';
    }

    /** Harness: forgets what this PHP request read, as a new request would. */
    public static function new_request(): void
    {
        self::$reading = [];
        $GLOBALS['wc_harness_order_cache'] = [];
    }

    public static function install(): void
    {
        global $wpdb;
        if (get_option('wc_harness_db_version') === '3') {
            return;
        }
        $orders = self::table('wc_orders');
        $meta = self::table('wc_orders_meta');
        $operational = self::table('wc_order_operational_data');
        $items = self::table('wc_harness_order_items');
        $refunds = self::table('wc_harness_order_refunds');
        $wpdb->query("CREATE TABLE IF NOT EXISTS {$orders} (id bigint(20) unsigned NOT NULL, status varchar(20) NOT NULL, currency varchar(10) NOT NULL, total_amount decimal(26,8) NOT NULL, payment_method varchar(100) NOT NULL DEFAULT '', payment_method_title text NOT NULL, transaction_id varchar(100) NOT NULL DEFAULT '', date_created_gmt datetime NOT NULL, date_updated_gmt datetime NOT NULL, PRIMARY KEY (id))");
        $wpdb->query("CREATE TABLE IF NOT EXISTS {$meta} (id bigint(20) unsigned NOT NULL AUTO_INCREMENT, order_id bigint(20) unsigned NOT NULL, meta_key varchar(255) NOT NULL, meta_value text NOT NULL, PRIMARY KEY (id))");
        $wpdb->query("CREATE TABLE IF NOT EXISTS {$operational} (id bigint(20) unsigned NOT NULL AUTO_INCREMENT, order_id bigint(20) unsigned NOT NULL, order_key varchar(100) NOT NULL, order_stock_reduced tinyint(1) NOT NULL DEFAULT 0, created_via varchar(100) NULL, date_paid_gmt datetime NULL, PRIMARY KEY (id), UNIQUE KEY order_id (order_id))");
        $wpdb->query("CREATE TABLE IF NOT EXISTS {$items} (id bigint(20) unsigned NOT NULL AUTO_INCREMENT, order_id bigint(20) unsigned NOT NULL, product_id bigint(20) unsigned NOT NULL, qty int NOT NULL, reduced_stock int NOT NULL DEFAULT 0, PRIMARY KEY (id))");
        // Version 3: refunds (WC_Order_Refund); their meta rows share wc_orders_meta, their ids are post ids.
        $wpdb->query("CREATE TABLE IF NOT EXISTS {$refunds} (id bigint(20) unsigned NOT NULL, parent_id bigint(20) unsigned NOT NULL, currency varchar(10) NOT NULL, amount decimal(26,8) NOT NULL, reason text NOT NULL, refunded_by bigint(20) unsigned NOT NULL DEFAULT 0, refunded_payment tinyint(1) NOT NULL DEFAULT 0, date_created_gmt datetime NOT NULL, PRIMARY KEY (id))");
        update_option('wc_harness_db_version', '3');
    }

    public function get_stock_reduced($order_id)
    {
        global $wpdb;
        return (bool) $wpdb->get_var($wpdb->prepare('SELECT order_stock_reduced FROM ' . self::table('wc_order_operational_data') . ' WHERE order_id = %d', $order_id));
    }

    public function set_stock_reduced($order_id, $set)
    {
        global $wpdb;
        $wpdb->update(self::table('wc_order_operational_data'), ['order_stock_reduced' => $set ? 1 : 0], ['order_id' => (int) $order_id]);
    }

    /** Reads the order from the authoritative storage, then syncs it on read in compatibility mode. */
    public function read(WC_Order $order): void
    {
        $id = $order->get_id();
        $hpos = self::hpos_enabled();
        $record = $hpos ? $this->read_hpos_record($id) : $this->read_post_record($id);
        if ($record === null) {
            throw new Exception('Invalid order.');
        }
        $order->harness_set_record($record['props'], $record['meta'], $this->read_items($id));
        if (!$hpos || !self::sync_enabled() || in_array($id, array_merge(self::$reading, self::$backfilling), true)
            || !apply_filters('woocommerce_hpos_enable_sync_on_read', true)) {
            return;
        }
        self::$reading[] = $id;
        $post = $this->read_post_record($id);
        if ($post === null) {
            return;
        }
        $diff = $this->meta_diff($record['meta'], $post['meta']);
        $differs = $diff !== [] || array_intersect_key($record['props'], array_flip(self::BASE_PROPS)) != array_intersect_key($post['props'], array_flip(self::BASE_PROPS));
        $order_modified = $record['props']['date_modified'] ?? $record['props']['date_created'];
        $post_modified = $post['props']['date_modified'] ?? $post['props']['date_created'];
        if ($differs && $post_modified >= $order_modified) {
            $this->migrate_post_record($order, $post['props'], $diff);
        }
    }

    /**
     * Writes a new order whole, an existing one by its changed props only, and each meta row that
     * changed (WC_Data::save_meta_data: a null value deletes the row, a row without id is added),
     * into the authoritative storage; returns the order id.
     *
     * @param array<string, string> $props the props to write (all for a new order)
     * @param list<WC_Meta_Data> $meta_data
     */
    public function write(WC_Order $order, array $props, array $meta_data): int
    {
        global $wpdb;
        $id = $order->get_id();
        $now = time();
        $hpos = self::hpos_enabled();
        if ($id === 0) {
            $wpdb->insert($wpdb->posts, ['post_type' => $hpos && !self::sync_enabled() ? 'shop_order_placehold' : 'shop_order', 'post_status' => 'draft', 'post_title' => 'Order', 'post_date_gmt' => gmdate('Y-m-d H:i:s', $order->get_date_created_timestamp()), 'post_modified_gmt' => gmdate('Y-m-d H:i:s', $now)]);
            $id = (int) $wpdb->insert_id;
            $wpdb->insert(self::table('wc_order_operational_data'), ['order_id' => $id, 'order_key' => $order->get_order_key(), 'order_stock_reduced' => 0, 'created_via' => $order->get_created_via()]);
            foreach ($order->get_harness_items() as $item) {
                $wpdb->insert(self::table('wc_harness_order_items'), ['order_id' => $id, 'product_id' => $item['product_id'], 'qty' => $item['qty']]);
            }
            $props += ['order_key' => $order->get_order_key(), 'created_via' => $order->get_created_via()];
            if ($hpos) {
                $wpdb->insert(self::table('wc_orders'), ['id' => $id, 'status' => '', 'currency' => '', 'total_amount' => 0, 'payment_method_title' => '', 'date_created_gmt' => gmdate('Y-m-d H:i:s', $order->get_date_created_timestamp()), 'date_updated_gmt' => gmdate('Y-m-d H:i:s', $now)]);
            }
        }
        if ($hpos) {
            $this->write_hpos($id, $props, $meta_data, $now);
        } else {
            $this->write_post($id, $props, $meta_data, $now);
        }
        $order->harness_set_date_modified($now);
        return $id;
    }

    /** Compatibility mode: the posts copy of the order, from a fresh read of it (maybe_backfill_post_record). */
    public function backfill(int $id): void
    {
        if (!self::hpos_enabled() || !self::sync_enabled()) {
            return;
        }
        self::$backfilling[] = $id;
        try {
            $fresh = new WC_Order($id);
        } finally {
            self::$backfilling = array_values(array_diff(self::$backfilling, [$id]));
        }
        $this->write_post_copy($id, $this->read_hpos_record($id)['props'], $fresh->get_meta_data(), (int) $fresh->get_date_modified()->getTimestamp());
    }

    /** Harness: the order as the authoritative storage holds it now (props and meta), to write a stale copy of later. */
    public function record(int $id): ?array
    {
        $record = self::hpos_enabled() ? $this->read_hpos_record($id) : $this->read_post_record($id);
        if ($record === null) {
            return null;
        }
        $record['meta'] = array_map(static function (array $row): array {
            return ['key' => $row['key'], 'value' => $row['value']];
        }, $record['meta']);
        return $record;
    }

    /**
     * Harness: a backfill that read the order as $record and was written after the order's last
     * write: the posts copy gets $record with the HPOS row's modified time, less $seconds_before.
     *
     * @param array{props: array<string, mixed>, meta: list<array{key: string, value: mixed}>} $record
     */
    public function write_stale_post_copy(int $id, array $record, int $seconds_before = 0): void
    {
        $current = $this->read_hpos_record($id);
        $meta = array_map(static function (array $row): WC_Meta_Data {
            return new WC_Meta_Data($row);
        }, $record['meta']);
        $this->write_post_copy($id, $record['props'], $meta, (int) $current['props']['date_modified'] - $seconds_before);
    }

    /** @return array{props: array<string, mixed>, meta: list<array{id: int, key: string, value: mixed}>}|null */
    private function read_hpos_record(int $id): ?array
    {
        global $wpdb;
        $row = $wpdb->get_row($wpdb->prepare(
            'SELECT o.*, op.order_key, op.created_via, op.date_paid_gmt FROM ' . self::table('wc_orders') . ' o LEFT JOIN ' . self::table('wc_order_operational_data') . ' op ON op.order_id = o.id WHERE o.id = %d',
            $id
        ), ARRAY_A);
        if (!is_array($row)) {
            return null;
        }
        $meta = [];
        foreach ((array) $wpdb->get_results($wpdb->prepare('SELECT id, meta_key, meta_value FROM ' . self::table('wc_orders_meta') . ' WHERE order_id = %d ORDER BY id', $id), ARRAY_A) as $meta_row) {
            $meta[] = ['id' => (int) $meta_row['id'], 'key' => (string) $meta_row['meta_key'], 'value' => maybe_unserialize($meta_row['meta_value'])];
        }
        $props = [
            'status' => self::without_prefix((string) $row['status']),
            'currency' => (string) $row['currency'],
            'total' => wc_format_decimal((string) $row['total_amount'], wc_get_price_decimals()),
            'payment_method' => (string) $row['payment_method'],
            'payment_method_title' => (string) $row['payment_method_title'],
            'transaction_id' => (string) $row['transaction_id'],
            'order_key' => (string) $row['order_key'],
            'created_via' => (string) ($row['created_via'] ?? ''),
            'date_created' => (int) strtotime($row['date_created_gmt'] . ' UTC'),
            'date_paid' => empty($row['date_paid_gmt']) ? null : (int) strtotime($row['date_paid_gmt'] . ' UTC'),
            'date_modified' => (int) strtotime($row['date_updated_gmt'] . ' UTC'),
        ];
        return ['props' => $props, 'meta' => $meta];
    }

    /** @return array{props: array<string, mixed>, meta: list<array{id: int, key: string, value: mixed}>}|null */
    private function read_post_record(int $id): ?array
    {
        global $wpdb;
        $post = $wpdb->get_row($wpdb->prepare("SELECT post_status, post_date_gmt, post_modified_gmt FROM {$wpdb->posts} WHERE ID = %d AND post_type = 'shop_order'", $id), ARRAY_A);
        if (!is_array($post)) {
            return null;
        }
        $props = array_fill_keys(array_values(self::POST_PROPS), '') + [
            'status' => self::without_prefix((string) $post['post_status']),
            'date_created' => (int) strtotime($post['post_date_gmt'] . ' UTC'),
            'date_modified' => (int) strtotime($post['post_modified_gmt'] . ' UTC'),
        ];
        $meta = [];
        foreach ((array) $wpdb->get_results($wpdb->prepare("SELECT meta_id, meta_key, meta_value FROM {$wpdb->postmeta} WHERE post_id = %d ORDER BY meta_id", $id), ARRAY_A) as $row) {
            if (isset(self::POST_PROPS[$row['meta_key']])) {
                $props[self::POST_PROPS[$row['meta_key']]] = (string) $row['meta_value'];
            } else {
                $meta[] = ['id' => (int) $row['meta_id'], 'key' => (string) $row['meta_key'], 'value' => maybe_unserialize($row['meta_value'])];
            }
        }
        $props['total'] = wc_format_decimal($props['total'], wc_get_price_decimals());
        $props['date_paid'] = $props['date_paid'] === '' ? null : (int) $props['date_paid'];
        return ['props' => $props, 'meta' => $meta];
    }

    /** @param list<WC_Meta_Data> $meta_data */
    private function write_hpos(int $id, array $props, array $meta_data, int $now): void
    {
        global $wpdb;
        $columns = ['status' => 'status', 'currency' => 'currency', 'total' => 'total_amount', 'payment_method' => 'payment_method', 'payment_method_title' => 'payment_method_title', 'transaction_id' => 'transaction_id'];
        $row = ['date_updated_gmt' => gmdate('Y-m-d H:i:s', $now)];
        foreach ($columns as $prop => $column) {
            if (array_key_exists($prop, $props)) {
                $row[$column] = $prop === 'status' ? 'wc-' . $props[$prop] : $props[$prop];
            }
        }
        $wpdb->update(self::table('wc_orders'), $row, ['id' => $id]);
        if (array_key_exists('date_paid', $props)) {
            $wpdb->update(self::table('wc_order_operational_data'), ['date_paid_gmt' => $props['date_paid'] === '' || $props['date_paid'] === null ? null : gmdate('Y-m-d H:i:s', (int) $props['date_paid'])], ['order_id' => $id]);
        }
        $this->write_meta_rows(self::table('wc_orders_meta'), 'order_id', 'id', $id, $meta_data);
    }

    /** @param list<WC_Meta_Data> $meta_data */
    private function write_post(int $id, array $props, array $meta_data, int $now): void
    {
        global $wpdb;
        $row = ['post_modified_gmt' => gmdate('Y-m-d H:i:s', $now), 'post_modified' => gmdate('Y-m-d H:i:s', $now)];
        if (array_key_exists('status', $props)) {
            $row['post_status'] = 'wc-' . $props['status'];
        }
        $wpdb->update($wpdb->posts, $row, ['ID' => $id]);
        foreach (self::POST_PROPS as $key => $prop) {
            if (array_key_exists($prop, $props)) {
                $wpdb->delete($wpdb->postmeta, ['post_id' => $id, 'meta_key' => $key]);
                $wpdb->insert($wpdb->postmeta, ['post_id' => $id, 'meta_key' => $key, 'meta_value' => (string) $props[$prop]]);
            }
        }
        $this->write_meta_rows($wpdb->postmeta, 'post_id', 'meta_id', $id, $meta_data);
        clean_post_cache($id);
    }

    /**
     * The whole posts copy of an order (backfill_post_record): the post's status and modified time,
     * the props and every meta row.
     *
     * @param array<string, mixed> $props
     * @param list<WC_Meta_Data> $meta_data
     */
    private function write_post_copy(int $id, array $props, array $meta_data, int $modified): void
    {
        global $wpdb;
        $wpdb->update($wpdb->posts, ['post_type' => 'shop_order', 'post_status' => 'wc-' . $props['status'], 'post_modified_gmt' => gmdate('Y-m-d H:i:s', $modified), 'post_modified' => gmdate('Y-m-d H:i:s', $modified)], ['ID' => $id]);
        $wpdb->delete($wpdb->postmeta, ['post_id' => $id]);
        foreach (self::POST_PROPS as $key => $prop) {
            $wpdb->insert($wpdb->postmeta, ['post_id' => $id, 'meta_key' => $key, 'meta_value' => (string) ($props[$prop] ?? '')]);
        }
        foreach ($meta_data as $meta) {
            $wpdb->insert($wpdb->postmeta, ['post_id' => $id, 'meta_key' => $meta->key, 'meta_value' => maybe_serialize($meta->value)]);
        }
        clean_post_cache($id);
    }

    /** @param list<WC_Meta_Data> $meta_data */
    private function write_meta_rows(string $table, string $owner_column, string $id_column, int $id, array $meta_data): void
    {
        global $wpdb;
        foreach ($meta_data as $meta) {
            $meta_id = (int) ($meta->id ?? 0);
            if ($meta->value === null) {
                if ($meta_id > 0) {
                    $wpdb->delete($table, [$id_column => $meta_id]);
                }
            } elseif ($meta_id === 0) {
                $wpdb->insert($table, [$owner_column => $id, 'meta_key' => $meta->key, 'meta_value' => maybe_serialize($meta->value)]);
                $meta->id = (int) $wpdb->insert_id;
            } elseif ($meta->get_changes() !== []) {
                $wpdb->update($table, ['meta_key' => $meta->key, 'meta_value' => maybe_serialize($meta->value)], [$id_column => $meta_id]);
            }
            $meta->apply_changes();
        }
    }

    /**
     * The meta keys whose values differ between the order and its posts copy, with the copy's values.
     *
     * @param list<array{key: string, value: mixed}> $order_meta
     * @param list<array{key: string, value: mixed}> $post_meta
     * @return array<string, list<mixed>>
     */
    private function meta_diff(array $order_meta, array $post_meta): array
    {
        $values = static function (array $rows): array {
            $by_key = [];
            foreach ($rows as $row) {
                $by_key[$row['key']][] = $row['value'];
            }
            return $by_key;
        };
        $order = $values($order_meta);
        $post = $values($post_meta);
        $diff = [];
        foreach (array_unique(array_merge(array_keys($order), array_keys($post))) as $key) {
            if (($order[$key] ?? []) != ($post[$key] ?? [])) {
                $diff[$key] = $post[$key] ?? [];
            }
        }
        return $diff;
    }

    /**
     * migrate_post_record(): the posts copy's meta and props set on the order, written to HPOS
     * without a backfill, a transition or applying the changes, then the action.
     *
     * @param array<string, mixed> $props
     * @param array<string, list<mixed>> $diff
     */
    private function migrate_post_record(WC_Order $order, array $props, array $diff): void
    {
        foreach ($diff as $key => $values) {
            $order->delete_meta_data($key);
            foreach ($values as $value) {
                $order->add_meta_data($key, $value);
            }
        }
        $order->set_status($props['status']);
        $order->set_currency($props['currency']);
        $order->set_total($props['total']);
        $order->set_payment_method((string) $props['payment_method']);
        $order->set_payment_method_title($props['payment_method_title']);
        $order->set_transaction_id($props['transaction_id']);
        $order->set_date_paid($props['date_paid']);
        $this->write_hpos($order->get_id(), $order->get_changes(), $order->get_meta_data_rows(), time());
        do_action('woocommerce_hpos_post_record_migrated_on_read', $order, $diff);
    }

    /** @return array<int, array{id: int, product_id: int, qty: int, reduced_stock: int}> reduced_stock: the item's _reduced_stock meta (0: none) */
    public function read_items(int $id): array
    {
        global $wpdb;
        $rows = $wpdb->get_results($wpdb->prepare('SELECT id, product_id, qty, reduced_stock FROM ' . self::table('wc_harness_order_items') . ' WHERE order_id = %d ORDER BY id', $id), ARRAY_A);
        return array_map(static function ($row) {
            return ['id' => (int) $row['id'], 'product_id' => (int) $row['product_id'], 'qty' => (int) $row['qty'], 'reduced_stock' => (int) $row['reduced_stock']];
        }, (array) $rows);
    }

    /** A line item's _reduced_stock meta: the quantity taken from stock for it (0 deletes it). */
    public function set_item_reduced_stock(int $item_id, int $quantity): void
    {
        global $wpdb;
        $wpdb->update(self::table('wc_harness_order_items'), ['reduced_stock' => $quantity], ['id' => $item_id]);
    }

    /**
     * get_unpaid_orders() of both stores: pending orders last updated before $date, a timestamp in
     * the site's timezone (WooCommerce's legacy convention).
     *
     * @return list<string> order ids
     */
    public function get_unpaid_orders($date)
    {
        global $wpdb;
        $before = gmdate('Y-m-d H:i:s', absint($date - wc_timezone_offset()));
        if (!self::hpos_enabled()) {
            return $wpdb->get_col($wpdb->prepare("SELECT ID FROM {$wpdb->posts} WHERE post_type = 'shop_order' AND post_status = 'wc-pending' AND post_modified_gmt < %s", $before));
        }
        return $wpdb->get_col($wpdb->prepare('SELECT id FROM ' . self::table('wc_orders') . ' WHERE status = %s AND date_updated_gmt < %s', 'wc-pending', $before));
    }

    /**
     * wc_get_orders() for the query variables the harness supports: type shop_order_refund with parent
     * (an order's refunds, either storage), status, payment_method,
     * date_created (">timestamp" / "<timestamp"), meta_key / meta_value / meta_compare / meta_type
     * (the shortcut clause), meta_query (OrdersTableMetaQuery: nested clauses with relation AND/OR,
     * compare =, !=, >, >=, <, <=, IN, NOT IN, EXISTS, NOT EXISTS, type CHAR or NUMERIC, named
     * clauses usable in orderby), orderby (a string or an array of field => order: ID, id, date,
     * modified, meta_value, meta_value_num, a named clause), order, limit, return (ids, objects).
     * A clause matches an order when any of its rows of that key matches, as the JOIN of
     * OrdersTableMetaQuery does.
     */
    public function query(array $args): array
    {
        global $wpdb;
        if (in_array('shop_order_refund', (array) ($args['type'] ?? []), true)) {
            // Refunds (type shop_order_refund) of the order given as parent, newest first; either storage.
            $ids = isset($args['parent']) ? WC_Order_Refund::ids_of((int) $args['parent']) : [];
            $limit = (int) ($args['limit'] ?? get_option('posts_per_page', 10));
            $ids = $limit > 0 ? array_slice($ids, 0, $limit) : $ids;
            return ($args['return'] ?? 'objects') === 'ids' ? $ids : array_values(array_filter(array_map('wc_get_order', $ids)));
        }
        if (!self::hpos_enabled()) {
            throw new LogicException('The harness models wc_get_orders() on HPOS only.');
        }
        $where = ['1=1'];
        $params = [];
        if (!empty($args['status'])) {
            $statuses = array_map(static function ($status) {
                return strpos($status, 'wc-') === 0 ? $status : 'wc-' . $status;
            }, (array) $args['status']);
            $where[] = 'o.status IN (' . implode(',', array_fill(0, count($statuses), '%s')) . ')';
            $params = array_merge($params, $statuses);
        }
        if (!empty($args['payment_method'])) {
            $where[] = 'o.payment_method = %s';
            $params[] = (string) $args['payment_method'];
        }
        if (!empty($args['date_created']) && preg_match('/\A([<>])(\d+)\z/', (string) $args['date_created'], $m) === 1) {
            $where[] = 'o.date_created_gmt ' . $m[1] . ' %s';
            $params[] = gmdate('Y-m-d H:i:s', (int) $m[2]);
        }

        // OrdersTableQuery::maybe_remap_args(): the meta_* shortcut becomes a clause ANDed to meta_query.
        $meta_query = isset($args['meta_query']) && is_array($args['meta_query']) ? $args['meta_query'] : [];
        $shortcut = [];
        foreach (['key', 'value', 'compare', 'type'] as $part) {
            if (isset($args['meta_' . $part]) && $args['meta_' . $part] !== '') {
                $shortcut[$part] = $args['meta_' . $part];
            }
        }
        if ($shortcut !== []) {
            $meta_query = $meta_query !== [] ? ['relation' => 'AND', $shortcut, $meta_query] : [$shortcut];
        }
        $named = [];
        if ($meta_query !== []) {
            [$sql, $meta_params] = $this->meta_query_sql($meta_query, $named);
            $where[] = $sql;
            $params = array_merge($params, $meta_params);
        }

        $order = strtoupper((string) ($args['order'] ?? 'DESC')) === 'ASC' ? 'ASC' : 'DESC';
        $orderby = $args['orderby'] ?? 'date';
        if (is_string($orderby)) {
            $fields = [];
            foreach (array_filter(explode(' ', $orderby)) as $field) {
                $fields[$field] = $order;
            }
            $orderby = $fields;
        }
        $columns = ['ID' => 'o.id', 'id' => 'o.id', 'date' => 'o.date_created_gmt', 'date_created' => 'o.date_created_gmt', 'modified' => 'o.date_updated_gmt'];
        $first = $named === [] ? null : reset($named);
        $sort = [];
        $sort_params = [];
        foreach ((array) $orderby as $field => $direction) {
            $direction = strtoupper((string) $direction) === 'ASC' ? 'ASC' : 'DESC';
            if (isset($columns[$field])) {
                $sort[] = $columns[$field] . ' ' . $direction;
                continue;
            }
            $clause = $named[$field] ?? (in_array($field, ['meta_value', 'meta_value_num'], true) ? $first : null);
            if ($clause === null) {
                continue;
            }
            $type = $field === 'meta_value_num' ? 'NUMERIC' : (string) ($clause['type'] ?? 'CHAR');
            $sort[] = '(SELECT ' . self::cast('m.meta_value', $type) . ' FROM ' . self::table('wc_orders_meta') . ' m WHERE m.order_id = o.id AND m.meta_key = %s ORDER BY m.id LIMIT 1) ' . $direction;
            $sort_params[] = (string) $clause['key'];
        }
        $sort[] = 'o.id ' . $order;
        $limit = (int) ($args['limit'] ?? get_option('posts_per_page', 10));
        $sql = 'SELECT o.id FROM ' . self::table('wc_orders') . ' o WHERE ' . implode(' AND ', $where) . ' ORDER BY ' . implode(', ', $sort);
        if ($limit > 0) {
            $sql .= ' LIMIT ' . $limit;
        }
        $params = array_merge($params, $sort_params);
        $ids = array_map('intval', (array) $wpdb->get_col($params === [] ? $sql : $wpdb->prepare($sql, $params)));
        if (($args['return'] ?? 'objects') === 'ids') {
            return $ids;
        }
        return array_values(array_filter(array_map('wc_get_order', $ids)));
    }

    /**
     * The WHERE fragment of a meta_query (nested), with its parameters; named clauses are collected
     * for orderby.
     *
     * @param array<int|string, mixed> $query
     * @param array<string, array<string, mixed>> $named
     * @return array{0: string, 1: list<mixed>}
     */
    private function meta_query_sql(array $query, array &$named): array
    {
        $relation = strtoupper((string) ($query['relation'] ?? 'AND')) === 'OR' ? 'OR' : 'AND';
        $parts = [];
        $params = [];
        foreach ($query as $name => $clause) {
            if ($name === 'relation' || !is_array($clause)) {
                continue;
            }
            if (!isset($clause['key']) && !array_key_exists('value', $clause)) {
                [$sql, $nested] = $this->meta_query_sql($clause, $named);
                $parts[] = $sql;
                $params = array_merge($params, $nested);
                continue;
            }
            // Unnamed clauses count for meta_value / meta_value_num (the first clause) only.
            $named[is_string($name) ? $name : '#' . count($named)] = $clause;
            $compare = strtoupper((string) ($clause['compare'] ?? (is_array($clause['value'] ?? null) ? 'IN' : '=')));
            $exists = 'EXISTS (SELECT 1 FROM ' . self::table('wc_orders_meta') . ' m WHERE m.order_id = o.id AND m.meta_key = %s';
            $params[] = (string) $clause['key'];
            if ($compare === 'EXISTS' || ($compare === '=' && !array_key_exists('value', $clause))) {
                $parts[] = $exists . ')';
                continue;
            }
            if ($compare === 'NOT EXISTS') {
                $parts[] = 'NOT ' . $exists . ')';
                continue;
            }
            $value = self::cast('m.meta_value', (string) ($clause['type'] ?? 'CHAR'));
            $placeholder = strtoupper((string) ($clause['type'] ?? 'CHAR')) === 'NUMERIC' ? '%d' : '%s';
            if ($compare === 'IN' || $compare === 'NOT IN') {
                $values = array_values((array) $clause['value']);
                $parts[] = $exists . ' AND ' . $value . ' ' . $compare . ' (' . implode(',', array_fill(0, count($values), $placeholder)) . '))';
                $params = array_merge($params, $values);
                continue;
            }
            if (!in_array($compare, ['=', '!=', '>', '>=', '<', '<='], true)) {
                throw new InvalidArgumentException('The harness does not support meta_query compare ' . $compare);
            }
            $parts[] = $exists . ' AND ' . $value . ' ' . $compare . ' ' . $placeholder . ')';
            $params[] = $clause['value'];
        }
        return [$parts === [] ? '1=1' : '(' . implode(' ' . $relation . ' ', $parts) . ')', $params];
    }

    private static function cast(string $column, string $type): string
    {
        return strtoupper($type) === 'NUMERIC' ? 'CAST(' . $column . ' AS SIGNED)' : $column;
    }
}
