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
        $wpdb->query("CREATE TABLE IF NOT EXISTS {$operational} (id bigint(20) unsigned NOT NULL AUTO_INCREMENT, order_id bigint(20) unsigned NOT NULL, order_key varchar(100) NOT NULL, order_stock_reduced tinyint(1) NOT NULL DEFAULT 0, date_paid_gmt datetime NULL, PRIMARY KEY (id), UNIQUE KEY order_id (order_id))");
        $wpdb->query("CREATE TABLE IF NOT EXISTS {$items} (id bigint(20) unsigned NOT NULL AUTO_INCREMENT, order_id bigint(20) unsigned NOT NULL, product_id bigint(20) unsigned NOT NULL, qty int NOT NULL, PRIMARY KEY (id))");
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
            'SELECT o.*, op.order_key, op.date_paid_gmt FROM ' . self::table('wc_orders') . ' o LEFT JOIN ' . self::table('wc_order_operational_data') . ' op ON op.order_id = o.id WHERE o.id = %d',
            $id
        ), ARRAY_A);
        return is_array($row) ? $row : null;
    }

    /** @return array<string, string> */
    public function read_meta(int $id): array
    {
        global $wpdb;
        $rows = $wpdb->get_results($wpdb->prepare('SELECT meta_key, meta_value FROM ' . self::table('wc_orders_meta') . ' WHERE order_id = %d ORDER BY id', $id), ARRAY_A);
        $meta = [];
        foreach ((array) $rows as $row) {
            $meta[$row['meta_key']] = maybe_unserialize($row['meta_value']);
        }
        return $meta;
    }

    /** @return array<int, array{product_id: int, qty: int}> */
    public function read_items(int $id): array
    {
        global $wpdb;
        $rows = $wpdb->get_results($wpdb->prepare('SELECT product_id, qty FROM ' . self::table('wc_harness_order_items') . ' WHERE order_id = %d ORDER BY id', $id), ARRAY_A);
        return array_map(static function ($row) {
            return ['product_id' => (int) $row['product_id'], 'qty' => (int) $row['qty']];
        }, (array) $rows);
    }

    public function write(WC_Order $order, array $meta_updates, array $meta_deletes): int
    {
        global $wpdb;
        $now = gmdate('Y-m-d H:i:s');
        $row = [
            'status' => 'wc-' . $order->get_status(),
            'currency' => $order->get_currency(),
            'total_amount' => (string) $order->get_total(),
            'payment_method' => $order->get_payment_method(),
            'payment_method_title' => $order->get_payment_method_title(),
            'transaction_id' => $order->get_transaction_id(),
            'date_updated_gmt' => $now,
        ];
        $id = $order->get_id();
        if ($id === 0) {
            $row['date_created_gmt'] = gmdate('Y-m-d H:i:s', $order->get_date_created_timestamp());
            $wpdb->insert(self::table('wc_orders'), $row);
            $id = (int) $wpdb->insert_id;
            $wpdb->insert(self::table('wc_order_operational_data'), ['order_id' => $id, 'order_key' => $order->get_order_key(), 'order_stock_reduced' => 0]);
            foreach ($order->get_harness_items() as $item) {
                $wpdb->insert(self::table('wc_harness_order_items'), ['order_id' => $id, 'product_id' => $item['product_id'], 'qty' => $item['qty']]);
            }
        } else {
            $wpdb->update(self::table('wc_orders'), $row, ['id' => $id]);
        }
        if ($order->get_date_paid_timestamp() !== null) {
            $wpdb->update(self::table('wc_order_operational_data'), ['date_paid_gmt' => gmdate('Y-m-d H:i:s', $order->get_date_paid_timestamp())], ['order_id' => $id]);
        }
        $meta_table = self::table('wc_orders_meta');
        foreach ($meta_deletes as $key) {
            $wpdb->delete($meta_table, ['order_id' => $id, 'meta_key' => $key]);
        }
        foreach ($meta_updates as $key => $value) {
            $wpdb->delete($meta_table, ['order_id' => $id, 'meta_key' => $key]);
            $wpdb->insert($meta_table, ['order_id' => $id, 'meta_key' => $key, 'meta_value' => maybe_serialize($value)]);
        }
        return $id;
    }

    /**
     * wc_get_orders() for the query variables the harness supports: status, payment_method,
     * date_created (">timestamp" / "<timestamp"), meta_key + meta_value, orderby (date, id), order,
     * limit, return (ids, objects).
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
        if (!empty($args['meta_key'])) {
            $where[] = 'EXISTS (SELECT 1 FROM ' . self::table('wc_orders_meta') . ' m WHERE m.order_id = o.id AND m.meta_key = %s' . (isset($args['meta_value']) ? ' AND m.meta_value = %s' : '') . ')';
            $params[] = (string) $args['meta_key'];
            if (isset($args['meta_value'])) {
                $params[] = (string) $args['meta_value'];
            }
        }
        $orderby = ($args['orderby'] ?? 'date') === 'id' ? 'o.id' : 'o.date_created_gmt';
        $order = strtoupper((string) ($args['order'] ?? 'DESC')) === 'ASC' ? 'ASC' : 'DESC';
        $limit = (int) ($args['limit'] ?? get_option('posts_per_page', 10));
        $sql = 'SELECT o.id FROM ' . self::table('wc_orders') . ' o WHERE ' . implode(' AND ', $where) . " ORDER BY {$orderby} {$order}, o.id {$order}";
        if ($limit > 0) {
            $sql .= ' LIMIT ' . $limit;
        }
        $ids = array_map('intval', (array) $wpdb->get_col($params === [] ? $sql : $wpdb->prepare($sql, $params)));
        if (($args['return'] ?? 'objects') === 'ids') {
            return $ids;
        }
        return array_values(array_filter(array_map('wc_get_order', $ids)));
    }
}
