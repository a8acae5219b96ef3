<?php
/**
 * Harness (WooCommerce 10.0): WC_Order through the CRUD API, class-wc-order.php and
 * abstract-wc-order.php. Changes are held on the object until save(); save() writes only what
 * changed (OrdersTableDataStore::persist_order_to_db with $only_changes, WC_Data::save_meta_data per
 * meta row), then runs the status transition (hooks woocommerce_order_status_<to>, _<from>_to_<to>,
 * _changed, and the "Order status changed from X to Y." note, prefixed by the caller's note), as
 * WooCommerce does. Meta is a list of rows (WC_Meta_Data): a key may hold several rows
 * (add_meta_data without $unique), update_meta_data() keeps the first row of its key and deletes
 * the others, get_meta($key) reads the first row, get_meta($key, false) all of them.
 */

defined('ABSPATH') || exit;

class WC_Order
{
    private int $id = 0;
    private string $status = 'pending';
    private string $currency = 'USD';
    private string $total = '0';
    private string $order_key = '';
    private string $payment_method = '';
    private string $payment_method_title = '';
    private string $transaction_id = '';
    /** How the order was made ("checkout", "admin", …); written with a new order (wc_order_operational_data). */
    private string $created_via = '';
    private int $date_created;
    private ?int $date_paid = null;
    /** @var list<WC_Meta_Data> rows as read or added; a row whose value is null is deleted on save */
    private array $meta_data = [];
    /** @var array<string, string> the props as last read or saved, so save() writes only changes */
    private array $saved_props = [];
    /** @var array<int, array{product_id: int, qty: int}> */
    private array $items = [];
    /** @var array{from: string, to: string, note: string, manual: bool}|null */
    private ?array $status_transition = null;

    /** @param int|WC_Order $order */
    public function __construct($order = 0)
    {
        $this->date_created = time();
        $id = $order instanceof WC_Order ? $order->get_id() : (int) $order;
        if ($id > 0) {
            $store = $this->get_data_store();
            $row = $store->read_row($id);
            if ($row === null) {
                throw new Exception('Invalid order.');
            }
            $this->id = $id;
            $this->status = substr((string) $row['status'], 0, 3) === 'wc-' ? substr((string) $row['status'], 3) : (string) $row['status'];
            $this->currency = (string) $row['currency'];
            $this->total = wc_format_decimal((string) $row['total_amount'], wc_get_price_decimals());
            $this->payment_method = (string) $row['payment_method'];
            $this->payment_method_title = (string) $row['payment_method_title'];
            $this->transaction_id = (string) $row['transaction_id'];
            $this->order_key = (string) $row['order_key'];
            $this->created_via = (string) ($row['created_via'] ?? '');
            $this->date_created = (int) strtotime($row['date_created_gmt'] . ' UTC');
            $this->date_paid = empty($row['date_paid_gmt']) ? null : (int) strtotime($row['date_paid_gmt'] . ' UTC');
            foreach ($store->read_meta($id) as $row) {
                $this->meta_data[] = new WC_Meta_Data($row);
            }
            $this->items = $store->read_items($id);
            $this->saved_props = $this->get_props();
        } else {
            $this->order_key = wc_generate_order_key();
        }
    }

    public function get_data_store()
    {
        return new WC_Order_Data_Store();
    }

    public function get_id()
    {
        return $this->id;
    }

    public function get_status($context = 'view')
    {
        return apply_filters('woocommerce_order_get_status', $this->status, $this);
    }

    public function get_currency($context = 'view')
    {
        return $this->currency;
    }

    public function get_total($context = 'view')
    {
        return $this->total;
    }

    public function get_order_key($context = 'view')
    {
        return $this->order_key;
    }

    public function get_payment_method($context = 'view')
    {
        return $this->payment_method;
    }

    public function get_payment_method_title($context = 'view')
    {
        return $this->payment_method_title;
    }

    public function get_transaction_id($context = 'view')
    {
        return $this->transaction_id;
    }

    public function get_created_via($context = 'view')
    {
        return $this->created_via;
    }

    public function set_created_via($value)
    {
        $this->created_via = (string) $value;
    }

    public function get_date_created_timestamp(): int
    {
        return $this->date_created;
    }

    public function get_date_paid_timestamp(): ?int
    {
        return $this->date_paid;
    }

    /** @return WC_DateTime|null */
    public function get_date_paid($context = 'view')
    {
        return $this->date_paid === null ? null : new WC_DateTime('@' . $this->date_paid);
    }

    /** @return WC_DateTime|null */
    public function get_date_created($context = 'view')
    {
        return new WC_DateTime('@' . $this->date_created);
    }

    /** @return array<string, string> the stored props, as the data store writes them */
    public function get_props(): array
    {
        return [
            'status' => $this->status,
            'currency' => $this->currency,
            'total' => $this->total,
            'payment_method' => $this->payment_method,
            'payment_method_title' => $this->payment_method_title,
            'transaction_id' => $this->transaction_id,
            'date_paid' => $this->date_paid === null ? '' : (string) $this->date_paid,
        ];
    }

    /** @return array<string, string> the props changed since they were read or saved (WC_Data::get_changes) */
    public function get_changes(): array
    {
        return array_diff_assoc($this->get_props(), $this->saved_props);
    }

    /** @return array<int, array{product_id: int, qty: int}> harness: the line items (product and quantity) */
    public function get_harness_items(): array
    {
        return $this->items;
    }

    public function set_currency($value)
    {
        $this->currency = strtoupper((string) $value);
    }

    public function set_total($value)
    {
        $this->total = wc_format_decimal((string) $value, wc_get_price_decimals());
    }

    public function set_payment_method($payment_method = '')
    {
        if (is_object($payment_method)) {
            $this->payment_method = (string) $payment_method->id;
            $this->payment_method_title = (string) $payment_method->get_title();
            return;
        }
        $this->payment_method = (string) $payment_method;
    }

    public function set_payment_method_title($value)
    {
        $this->payment_method_title = (string) $value;
    }

    public function set_transaction_id($value)
    {
        $this->transaction_id = (string) $value;
    }

    public function set_date_paid($date = null)
    {
        $this->date_paid = $date === null ? null : (is_numeric($date) ? (int) $date : (int) strtotime((string) $date));
    }

    /** harness: adds a line item (product id and quantity) to a new order */
    public function add_harness_item(int $product_id, int $qty): void
    {
        $this->items[] = ['product_id' => $product_id, 'qty' => $qty];
    }

    public function set_status($new_status, $note = '', $manual_update = false)
    {
        $old_status = $this->status;
        $new_status = strpos((string) $new_status, 'wc-') === 0 ? substr((string) $new_status, 3) : (string) $new_status;
        if (!array_key_exists('wc-' . $new_status, wc_get_order_statuses())) {
            $new_status = 'pending';
        }
        $this->status = $new_status;
        if ($this->id > 0 && $old_status !== $new_status) {
            $from = $this->status_transition['from'] ?? $old_status;
            $this->status_transition = ['from' => $from, 'to' => $new_status, 'note' => (string) $note, 'manual' => (bool) $manual_update];
        }
        return ['from' => $old_status, 'to' => $new_status];
    }

    public function update_status($new_status, $note = '', $manual = false)
    {
        if (!$this->get_id()) {
            return false;
        }
        try {
            $this->set_status($new_status, $note, $manual);
            $this->save();
        } catch (Exception $e) {
            wc_get_logger()->error(sprintf('Error updating status for order #%d', $this->get_id()), ['order' => $this, 'error' => $e]);
            $this->add_order_note(__('Update status event failed.', 'woocommerce') . ' ' . $e->getMessage());
            return false;
        }
        return true;
    }

    public function has_status($status)
    {
        return apply_filters('woocommerce_order_has_status', (is_array($status) && in_array($this->get_status(), $status, true)) || $this->get_status() === $status, $this, $status);
    }

    public function needs_payment()
    {
        $valid_order_statuses = apply_filters('woocommerce_valid_order_statuses_for_payment', ['pending', 'failed'], $this);
        return apply_filters('woocommerce_order_needs_payment', ($this->has_status($valid_order_statuses) && (float) $this->get_total() > 0), $this, $valid_order_statuses);
    }

    public function needs_processing()
    {
        return true;
    }

    public function is_paid()
    {
        return apply_filters('woocommerce_order_is_paid', $this->has_status(wc_get_is_paid_statuses()), $this);
    }

    public function payment_complete($transaction_id = '')
    {
        if (!$this->get_id()) {
            return false;
        }
        try {
            do_action('woocommerce_pre_payment_complete', $this->get_id(), $transaction_id);
            $valid_completed_statuses = apply_filters('woocommerce_valid_order_statuses_for_payment_complete', ['on-hold', 'pending', 'failed', 'cancelled'], $this);
            if ($this->has_status($valid_completed_statuses)) {
                if (!empty($transaction_id)) {
                    $this->set_transaction_id($transaction_id);
                }
                if (!$this->date_paid) {
                    $this->set_date_paid(time());
                }
                $this->set_status(apply_filters('woocommerce_payment_complete_order_status', $this->needs_processing() ? 'processing' : 'completed', $this->get_id(), $this));
                $this->save();
                do_action('woocommerce_payment_complete', $this->get_id(), $transaction_id);
            } else {
                do_action('woocommerce_payment_complete_order_status_' . $this->get_status(), $this->get_id(), $transaction_id);
            }
        } catch (Exception $e) {
            wc_get_logger()->error(sprintf('Error completing payment for order #%d', $this->get_id()), ['order' => $this, 'error' => $e]);
            $this->add_order_note(__('Payment complete event failed.', 'woocommerce') . ' ' . $e->getMessage());
            return false;
        }
        return true;
    }

    public function get_meta($key = '', $single = true, $context = 'view')
    {
        $value = $single ? '' : [];
        foreach ($this->get_meta_data() as $meta) {
            if ($meta->key !== $key) {
                continue;
            }
            if ($single) {
                $value = $meta->value;
                break;
            }
            $value[] = $meta;
        }
        return $value;
    }

    /** @return list<WC_Meta_Data> every meta row that is not deleted */
    public function get_meta_data()
    {
        return array_values(array_filter($this->meta_data, static function ($meta) {
            return $meta->value !== null;
        }));
    }

    public function meta_exists($key = '')
    {
        foreach ($this->get_meta_data() as $meta) {
            if ($meta->key === $key) {
                return true;
            }
        }
        return false;
    }

    public function update_meta_data($key, $value, $meta_id = 0)
    {
        $first = null;
        foreach ($this->meta_data as $meta) {
            if ($meta_id ? (int) ($meta->id ?? 0) === (int) $meta_id : $meta->key === $key) {
                if ($first === null) {
                    $first = $meta;
                } elseif (!$meta_id) {
                    // Update first match and delete the rest.
                    $meta->value = null;
                }
            }
        }
        if ($first !== null) {
            $first->key = $key;
            $first->value = $value;
            return;
        }
        $this->add_meta_data($key, $value, true);
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

    public function delete_meta_data_value($key, $value)
    {
        foreach ($this->meta_data as $meta) {
            if ($meta->key === $key && $value === $meta->value) {
                $meta->value = null;
            }
        }
    }

    public function save()
    {
        $is_new = $this->id === 0;
        $this->id = $this->get_data_store()->write($this, $is_new ? $this->get_props() : $this->get_changes(), $this->meta_data);
        $this->meta_data = $this->get_meta_data();
        $this->saved_props = $this->get_props();
        do_action($is_new ? 'woocommerce_new_order' : 'woocommerce_update_order', $this->id, $this);
        $this->status_transition();
        return $this->id;
    }

    protected function status_transition()
    {
        $transition = $this->status_transition;
        $this->status_transition = null;
        if ($transition === null) {
            return;
        }
        do_action('woocommerce_order_status_' . $transition['to'], $this->get_id(), $this);
        if ($transition['from'] !== '') {
            /* translators: 1: old order status 2: new order status */
            $transition_note = sprintf(__('Order status changed from %1$s to %2$s.', 'woocommerce'), wc_get_order_status_name($transition['from']), wc_get_order_status_name($transition['to']));
            do_action('woocommerce_order_status_' . $transition['from'] . '_to_' . $transition['to'], $this->get_id(), $this);
            do_action('woocommerce_order_status_changed', $this->get_id(), $transition['from'], $transition['to'], $this);
            $this->add_order_note(trim($transition['note'] . ' ' . $transition_note), 0, $transition['manual']);
        }
    }

    public function add_order_note($note, $is_customer_note = 0, $added_by_user = false)
    {
        if (!$this->get_id()) {
            return 0;
        }
        $comment_id = wp_insert_comment([
            'comment_post_ID' => $this->get_id(),
            'comment_author' => __('WooCommerce', 'woocommerce'),
            'comment_author_email' => '',
            'comment_author_url' => '',
            'comment_content' => $note,
            'comment_agent' => 'WooCommerce',
            'comment_type' => 'order_note',
            'comment_parent' => 0,
            'comment_approved' => 1,
        ]);
        if ($is_customer_note) {
            add_comment_meta($comment_id, 'is_customer_note', 1);
        }
        return $comment_id;
    }

    public function get_checkout_order_received_url()
    {
        $order_received_url = wc_get_endpoint_url('order-received', (string) $this->get_id(), wc_get_checkout_url());
        $order_received_url = add_query_arg('key', $this->get_order_key(), $order_received_url);
        return apply_filters('woocommerce_get_checkout_order_received_url', $order_received_url, $this);
    }

    /** The "pay for order" page (WC_Order::get_checkout_payment_url, WooCommerce 10.0). */
    public function get_checkout_payment_url($on_checkout = false)
    {
        $pay_url = wc_get_endpoint_url('order-pay', (string) $this->get_id(), wc_get_checkout_url());
        if ($on_checkout) {
            $pay_url = add_query_arg('key', $this->get_order_key(), $pay_url);
        } else {
            $pay_url = add_query_arg(['pay_for_order' => 'true', 'key' => $this->get_order_key()], $pay_url);
        }
        return apply_filters('woocommerce_get_checkout_payment_url', $pay_url, $this);
    }

    /** The order's edit screen (OrderUtil::get_order_admin_edit_url). */
    public function get_edit_order_url()
    {
        return apply_filters('woocommerce_get_edit_order_url', \Automattic\WooCommerce\Utilities\OrderUtil::get_order_admin_edit_url($this->get_id()), $this);
    }

    public function get_cancel_endpoint()
    {
        $cancel_endpoint = wc_get_cart_url();
        if (!$cancel_endpoint) {
            $cancel_endpoint = home_url();
        }
        if (false === strpos($cancel_endpoint, '?')) {
            $cancel_endpoint = trailingslashit($cancel_endpoint);
        }
        return $cancel_endpoint;
    }

    public function get_cancel_order_url_raw($redirect = '')
    {
        return apply_filters(
            'woocommerce_get_cancel_order_url_raw',
            add_query_arg(
                [
                    'cancel_order' => 'true',
                    'order' => $this->get_order_key(),
                    'order_id' => $this->get_id(),
                    'redirect' => $redirect,
                    '_wpnonce' => wp_create_nonce('woocommerce-cancel_order'),
                ],
                $this->get_cancel_endpoint()
            )
        );
    }
}
