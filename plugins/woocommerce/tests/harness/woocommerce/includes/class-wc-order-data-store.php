<?php
/**
 * Harness (WooCommerce 10.0): HPOS order storage (OrdersTableDataStore). Orders, their meta and
 * their operational data live in custom tables, never in posts; notes are comments of type
 * order_note, as in WooCommerce.
 */

defined('ABSPATH') || exit;

class WC_Order_Data_Store
{
    public static function table(string $name): string
    {
        global $wpdb;
        return $wpdb->prefix . $name;
    }

    public static function install(): void
    {
        global $wpdb;
        if (get_option('wc_harness_db_version') === '1') {
            return;
        }
        $orders = self::table('wc_orders');
        $meta = self::table('wc_orders_meta');
        $operational = self::table('wc_order_operational_data');
        $items = self::table('wc_harness_order_items');
        $wpdb->query("CREATE TABLE IF NOT EXISTS {$orders} (id bigint(20) unsigned NOT NULL AUTO_INCREMENT, status varchar(20) NOT NULL, currency varchar(10) NOT NULL, total_amount decimal(26,8) NOT NULL, payment_method varchar(100) NOT NULL DEFAULT '', payment_method_title text NOT NULL, transaction_id varchar(100) NOT NULL DEFAULT '', date_created_gmt datetime NOT NULL, date_updated_gmt datetime NOT NULL, PRIMARY KEY (id))");
        $wpdb->query("CREATE TABLE IF NOT EXISTS {$meta} (id bigint(20) unsigned NOT NULL AUTO_INCREMENT, order_id bigint(20) unsigned NOT NULL, meta_key varchar(255) NOT NULL, meta_value text NOT NULL, PRIMARY KEY (id))");
        $wpdb->query("CREATE TABLE IF NOT EXISTS {$operational} (id bigint(20) unsigned NOT NULL AUTO_INCREMENT, order_id bigint(20) unsigned NOT NULL, order_key varchar(100) NOT NULL, order_stock_reduced tinyint(1) NOT NULL DEFAULT 0, created_via varchar(100) NULL, date_paid_gmt datetime NULL, PRIMARY KEY (id), UNIQUE KEY order_id (order_id))");
        $wpdb->query("CREATE TABLE IF NOT EXISTS {$items} (id bigint(20) unsigned NOT NULL AUTO_INCREMENT, order_id bigint(20) unsigned NOT NULL, product_id bigint(20) unsigned NOT NULL, qty int NOT NULL, reduced_stock int NOT NULL DEFAULT 0, PRIMARY KEY (id))");
        update_option('wc_harness_db_version', '1');
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

    /** @return array<string, mixed>|null */
    public function read_row(int $id): ?array
    {
        global $wpdb;
        $row = $wpdb->get_row($wpdb->prepare(
            'SELECT o.*, op.order_key, op.created_via, op.date_paid_gmt FROM ' . self::table('wc_orders') . ' o LEFT JOIN ' . self::table('wc_order_operational_data') . ' op ON op.order_id = o.id WHERE o.id = %d',
            $id
        ), ARRAY_A);
        return is_array($row) ? $row : null;
    }

    /** @return list<array{id: int, key: string, value: mixed}> the order's meta rows, oldest first */
    public function read_meta(int $id): array
    {
        global $wpdb;
        $rows = $wpdb->get_results($wpdb->prepare('SELECT id, meta_key, meta_value FROM ' . self::table('wc_orders_meta') . ' WHERE order_id = %d ORDER BY id', $id), ARRAY_A);
        $meta = [];
        foreach ((array) $rows as $row) {
            $meta[] = ['id' => (int) $row['id'], 'key' => (string) $row['meta_key'], 'value' => maybe_unserialize($row['meta_value'])];
        }
        return $meta;
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
     * OrdersTableDataStore::get_unpaid_orders(): pending orders last updated before $date, a
     * timestamp in the site's timezone (WooCommerce's legacy convention).
     *
     * @return list<string> order ids
     */
    public function get_unpaid_orders($date)
    {
        global $wpdb;
        $gmt_timestamp = absint($date - wc_timezone_offset());
        return $wpdb->get_col($wpdb->prepare('SELECT id FROM ' . self::table('wc_orders') . ' WHERE status = %s AND date_updated_gmt < %s', 'wc-pending', gmdate('Y-m-d H:i:s', $gmt_timestamp)));
    }

    /**
     * Writes a new order whole, an existing one by its changed props only, and each meta row that
     * changed (WC_Data::save_meta_data: a null value deletes the row, a row without id is added).
     *
     * @param array<string, string> $props the props to write (all for a new order)
     * @param list<WC_Meta_Data> $meta_data
     */
    public function write(WC_Order $order, array $props, array $meta_data): int
    {
        global $wpdb;
        $columns = ['status' => 'status', 'currency' => 'currency', 'total' => 'total_amount', 'payment_method' => 'payment_method', 'payment_method_title' => 'payment_method_title', 'transaction_id' => 'transaction_id'];
        $row = ['date_updated_gmt' => gmdate('Y-m-d H:i:s')];
        foreach ($columns as $prop => $column) {
            if (array_key_exists($prop, $props)) {
                $row[$column] = $prop === 'status' ? 'wc-' . $props[$prop] : $props[$prop];
            }
        }
        $id = $order->get_id();
        if ($id === 0) {
            $row['date_created_gmt'] = gmdate('Y-m-d H:i:s', $order->get_date_created_timestamp());
            $wpdb->insert(self::table('wc_orders'), $row);
            $id = (int) $wpdb->insert_id;
            $wpdb->insert(self::table('wc_order_operational_data'), ['order_id' => $id, 'order_key' => $order->get_order_key(), 'order_stock_reduced' => 0, 'created_via' => $order->get_created_via()]);
            foreach ($order->get_harness_items() as $item) {
                $wpdb->insert(self::table('wc_harness_order_items'), ['order_id' => $id, 'product_id' => $item['product_id'], 'qty' => $item['qty']]);
            }
        } else {
            $wpdb->update(self::table('wc_orders'), $row, ['id' => $id]);
        }
        if (($props['date_paid'] ?? '') !== '') {
            $wpdb->update(self::table('wc_order_operational_data'), ['date_paid_gmt' => gmdate('Y-m-d H:i:s', (int) $props['date_paid'])], ['order_id' => $id]);
        }
        $meta_table = self::table('wc_orders_meta');
        foreach ($meta_data as $meta) {
            $meta_id = (int) ($meta->id ?? 0);
            if ($meta->value === null) {
                if ($meta_id > 0) {
                    $wpdb->delete($meta_table, ['id' => $meta_id]);
                }
            } elseif ($meta_id === 0) {
                $wpdb->insert($meta_table, ['order_id' => $id, 'meta_key' => $meta->key, 'meta_value' => maybe_serialize($meta->value)]);
                $meta->id = (int) $wpdb->insert_id;
            } elseif ($meta->get_changes() !== []) {
                $wpdb->update($meta_table, ['meta_key' => $meta->key, 'meta_value' => maybe_serialize($meta->value)], ['id' => $meta_id]);
            }
            $meta->apply_changes();
        }
        return $id;
    }

    /**
     * wc_get_orders() for the query variables the harness supports: status, payment_method,
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
