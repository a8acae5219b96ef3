<?php
/**
 * Harness (WooCommerce 10.0.2): WC_Order_Refund, class-wc-order-refund.php with the parts of
 * WC_Abstract_Order and WC_Data a refund uses: amount (wc_format_decimal), reason, refunded by,
 * refunded payment, currency, parent order, creation date, and its meta rows (get_meta,
 * update_meta_data, add_meta_data, delete_meta_data, save_meta_data: only rows that changed are
 * written). A refund is an order of type shop_order_refund: its id is a post's id (post_type
 * shop_order_refund), so it never collides with an order's; its props live in the harness table
 * {prefix}wc_harness_order_refunds and its meta in {prefix}wc_orders_meta, whatever the order
 * storage (the harness keeps no line items, taxes or totals on a refund). get_status() is always
 * "completed", as WooCommerce's. delete() removes the refund, its meta and its post.
 */

defined('ABSPATH') || exit;

class WC_Order_Refund
{
    private int $id = 0;
    private int $parent_id = 0;
    private string $currency = 'USD';
    private string $amount = '0';
    private string $reason = '';
    private int $refunded_by = 0;
    private bool $refunded_payment = false;
    private int $date_created;
    /** @var list<WC_Meta_Data> rows as read or added; a row whose value is null is deleted on save */
    private array $meta_data = [];

    /** @param int|WC_Order_Refund $refund */
    public function __construct($refund = 0)
    {
        $this->date_created = time();
        $id = $refund instanceof WC_Order_Refund ? $refund->get_id() : (int) $refund;
        if ($id > 0) {
            $this->read($id);
        }
    }

    public static function table(): string
    {
        global $wpdb;
        return $wpdb->prefix . 'wc_harness_order_refunds';
    }

    /** Whether $id is a stored refund. */
    public static function exists(int $id): bool
    {
        global $wpdb;
        return $id > 0 && $wpdb->get_var($wpdb->prepare('SELECT id FROM ' . self::table() . ' WHERE id = %d', $id)) !== null;
    }

    /**
     * The ids of the refunds of an order, newest first (wc_get_orders type shop_order_refund, parent).
     *
     * @return list<int>
     */
    public static function ids_of(int $parent_id): array
    {
        global $wpdb;
        return array_map('intval', (array) $wpdb->get_col($wpdb->prepare('SELECT id FROM ' . self::table() . ' WHERE parent_id = %d ORDER BY date_created_gmt DESC, id DESC', $parent_id)));
    }

    private function read(int $id): void
    {
        global $wpdb;
        $row = $wpdb->get_row($wpdb->prepare('SELECT * FROM ' . self::table() . ' WHERE id = %d', $id), ARRAY_A);
        if (!is_array($row)) {
            throw new Exception('Invalid refund.');
        }
        $this->id = $id;
        $this->parent_id = (int) $row['parent_id'];
        $this->currency = (string) $row['currency'];
        $this->amount = wc_format_decimal((string) $row['amount'], wc_get_price_decimals());
        $this->reason = (string) $row['reason'];
        $this->refunded_by = (int) $row['refunded_by'];
        $this->refunded_payment = (bool) $row['refunded_payment'];
        $this->date_created = (int) strtotime($row['date_created_gmt'] . ' UTC');
        $this->meta_data = [];
        foreach ((array) $wpdb->get_results($wpdb->prepare('SELECT id, meta_key, meta_value FROM ' . WC_Order_Data_Store::table('wc_orders_meta') . ' WHERE order_id = %d ORDER BY id', $id), ARRAY_A) as $meta_row) {
            $this->meta_data[] = new WC_Meta_Data(['id' => (int) $meta_row['id'], 'key' => (string) $meta_row['meta_key'], 'value' => maybe_unserialize($meta_row['meta_value'])]);
        }
    }

    public function get_id()
    {
        return $this->id;
    }

    public function get_type()
    {
        return 'shop_order_refund';
    }

    public function get_status($context = 'view')
    {
        return 'completed';
    }

    public function get_parent_id($context = 'view')
    {
        return $this->parent_id;
    }

    public function set_parent_id($value)
    {
        $this->parent_id = absint($value);
    }

    public function get_currency($context = 'view')
    {
        return $this->currency;
    }

    public function set_currency($value)
    {
        $this->currency = strtoupper((string) $value);
    }

    public function get_amount($context = 'view')
    {
        return $this->amount;
    }

    public function set_amount($value)
    {
        $this->amount = wc_format_decimal($value);
    }

    public function get_reason($context = 'view')
    {
        return $this->reason;
    }

    public function set_reason($value)
    {
        $this->reason = (string) $value;
    }

    public function get_refunded_by($context = 'view')
    {
        return $this->refunded_by;
    }

    public function set_refunded_by($value)
    {
        $this->refunded_by = absint($value);
    }

    public function get_refunded_payment($context = 'view')
    {
        return $this->refunded_payment;
    }

    public function set_refunded_payment($value)
    {
        $this->refunded_payment = (bool) $value;
    }

    /** @return WC_DateTime */
    public function get_date_created($context = 'view')
    {
        return new WC_DateTime('@' . $this->date_created);
    }

    public function set_date_created($date = null)
    {
        if ($date instanceof DateTimeInterface) {
            $date = $date->getTimestamp();
        }
        $this->date_created = is_numeric($date) ? (int) $date : (int) strtotime((string) $date);
    }

    /** The refund's total is minus its amount (WC_Order_Refund keeps it as an order total). */
    public function get_total($context = 'view')
    {
        return wc_format_decimal(-1 * (float) $this->amount, wc_get_price_decimals());
    }

    public function set_total($value)
    {
    }

    public function get_meta($key = '', $single = true, $context = 'view')
    {
        $value = $single ? '' : [];
        foreach ($this->get_meta_data() as $meta) {
            if ($meta->key !== $key) {
                continue;
            }
            if ($single) {
                return $meta->value;
            }
            $value[] = $meta;
        }
        return $value;
    }

    /** @return list<WC_Meta_Data> */
    public function get_meta_data()
    {
        return array_values(array_filter($this->meta_data, static function ($meta) {
            return $meta->value !== null;
        }));
    }

    public function update_meta_data($key, $value, $meta_id = 0)
    {
        foreach ($this->meta_data as $meta) {
            if ($meta->key === $key && $meta->value !== null) {
                $meta->value = $value;
                return;
            }
        }
        $this->meta_data[] = new WC_Meta_Data(['key' => $key, 'value' => $value]);
    }

    public function add_meta_data($key, $value, $unique = false)
    {
        if ($unique) {
            $this->delete_meta_data($key);
        }
        $this->meta_data[] = new WC_Meta_Data(['key' => $key, 'value' => $value]);
    }

    public function delete_meta_data($key)
    {
        foreach ($this->meta_data as $meta) {
            if ($meta->key === $key) {
                $meta->value = null;
            }
        }
    }

    /** WC_Data::save_meta_data(): writes the meta rows that changed, nothing else. */
    public function save_meta_data()
    {
        global $wpdb;
        if ($this->id === 0) {
            return;
        }
        $table = WC_Order_Data_Store::table('wc_orders_meta');
        foreach ($this->meta_data as $meta) {
            $meta_id = (int) ($meta->id ?? 0);
            if ($meta->value === null) {
                if ($meta_id > 0) {
                    $wpdb->delete($table, ['id' => $meta_id]);
                }
            } elseif ($meta_id === 0) {
                $wpdb->insert($table, ['order_id' => $this->id, 'meta_key' => $meta->key, 'meta_value' => maybe_serialize($meta->value)]);
                $meta->id = (int) $wpdb->insert_id;
            } elseif ($meta->get_changes() !== []) {
                $wpdb->update($table, ['meta_key' => $meta->key, 'meta_value' => maybe_serialize($meta->value)], ['id' => $meta_id]);
            }
            $meta->apply_changes();
        }
        $this->meta_data = $this->get_meta_data();
    }

    /** Writes the refund (a new one gets a post id, as WooCommerce reserves one), then its meta. */
    public function save()
    {
        global $wpdb;
        do_action('woocommerce_before_order_refund_object_save', $this);
        $row = [
            'parent_id' => $this->parent_id,
            'currency' => $this->currency,
            'amount' => $this->amount,
            'reason' => $this->reason,
            'refunded_by' => $this->refunded_by,
            'refunded_payment' => $this->refunded_payment ? 1 : 0,
            'date_created_gmt' => gmdate('Y-m-d H:i:s', $this->date_created),
        ];
        if ($this->id === 0) {
            $wpdb->insert($wpdb->posts, ['post_type' => 'shop_order_refund', 'post_status' => 'wc-completed', 'post_parent' => $this->parent_id, 'post_title' => 'Refund', 'post_date_gmt' => $row['date_created_gmt'], 'post_modified_gmt' => $row['date_created_gmt']]);
            $this->id = (int) $wpdb->insert_id;
            $wpdb->insert(self::table(), ['id' => $this->id] + $row);
        } else {
            $wpdb->update(self::table(), $row, ['id' => $this->id]);
        }
        $this->save_meta_data();
        unset($GLOBALS['wc_harness_order_cache'][$this->id]);
        do_action('woocommerce_after_order_refund_object_save', $this);
        return $this->id;
    }

    /** Removes the refund, its meta and its post (OrdersTableRefundDataStore::delete). */
    public function delete($force_delete = false)
    {
        global $wpdb;
        if ($this->id === 0) {
            return false;
        }
        $wpdb->delete(self::table(), ['id' => $this->id]);
        $wpdb->delete(WC_Order_Data_Store::table('wc_orders_meta'), ['order_id' => $this->id]);
        $wpdb->delete($wpdb->posts, ['ID' => $this->id]);
        unset($GLOBALS['wc_harness_order_cache'][$this->id]);
        $this->id = 0;
        return true;
    }
}
