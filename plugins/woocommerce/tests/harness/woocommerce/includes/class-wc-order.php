<?php
/**
 * Harness (WooCommerce 10.0): WC_Order through the CRUD API, class-wc-order.php and
 * abstract-wc-order.php. The props as read or last saved are the order's data (get_data()); what
 * was set since are its changes (get_changes()), held on the object until save(). save() fires
 * woocommerce_before_order_object_save, writes only what changed (OrdersTableDataStore::
 * persist_order_to_db with $only_changes, WC_Data::save_meta_data per meta row), fires
 * woocommerce_after_order_object_save, then runs the status transition set_status() recorded
 * (hooks woocommerce_order_status_<to>, the "Order status changed from X to Y." note prefixed by
 * the caller's note, _<from>_to_<to>, _changed), as WooCommerce does. The transition's "from" is the
 * status the object had when it was read, so an object read before another request changed the
 * order still writes its own view. Meta is a list of rows (WC_Meta_Data): a key may hold several
 * rows (add_meta_data without $unique), update_meta_data() keeps the first row of its key and
 * deletes the others, get_meta($key) reads the first row, get_meta($key, false) all of them.
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
    /** When the order was last written (HPOS date_updated_gmt, or the post's post_modified_gmt). */
    private ?int $date_modified = null;
    /** @var list<WC_Meta_Data> rows as read or added; a row whose value is null is deleted on save */
    private array $meta_data = [];
    /** @var array<string, string> the props as last read or saved, so save() writes only changes */
    private array $saved_props = [];
    /** @var array<string, string> props set since (WC_Data::$changes): one set back to its saved value stays a change */
    private array $changes = [];
    /** @var array<int, array{product_id: int, qty: int}> */
    private array $items = [];
    /** @var array{from: string, to: string, note: string, manual: bool}|false the status change save() announces */
    protected $status_transition = false;

    /** @param int|WC_Order $order */
    public function __construct($order = 0)
    {
        $this->date_created = time();
        $id = $order instanceof WC_Order ? $order->get_id() : (int) $order;
        if ($id > 0) {
            $this->id = $id;
            $this->get_data_store()->read($this);
        } else {
            $this->order_key = wc_generate_order_key();
        }
    }

    /**
     * Harness: the order as the data store read it (no changes, no transition).
     *
     * @param array<string, mixed> $record status, currency, total, payment_method, payment_method_title,
     *     transaction_id, order_key, created_via, date_created, date_paid, date_modified (timestamps)
     * @param list<array{id: int, key: string, value: mixed}> $meta
     * @param array<int, array{id: int, product_id: int, qty: int, reduced_stock: int}> $items
     */
    public function harness_set_record(array $record, array $meta, array $items): void
    {
        $this->status = substr((string) $record['status'], 0, 3) === 'wc-' ? substr((string) $record['status'], 3) : (string) $record['status'];
        $this->currency = (string) $record['currency'];
        $this->total = wc_format_decimal((string) $record['total'], wc_get_price_decimals());
        $this->payment_method = (string) $record['payment_method'];
        $this->payment_method_title = (string) $record['payment_method_title'];
        $this->transaction_id = (string) $record['transaction_id'];
        $this->order_key = (string) $record['order_key'];
        $this->created_via = (string) $record['created_via'];
        $this->date_created = (int) $record['date_created'];
        $this->date_paid = $record['date_paid'] === null ? null : (int) $record['date_paid'];
        $this->date_modified = $record['date_modified'] === null ? null : (int) $record['date_modified'];
        $this->meta_data = array_map(static function (array $row) {
            return new WC_Meta_Data($row);
        }, $meta);
        $this->items = $items;
        $this->saved_props = $this->get_props();
        $this->changes = [];
        $this->status_transition = false;
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

    /** @return WC_DateTime|null */
    public function get_date_modified($context = 'view')
    {
        return $this->date_modified === null ? null : new WC_DateTime('@' . $this->date_modified);
    }

    /**
     * The order's data as it was read or last saved (WC_Data::get_data()), whatever was set since.
     *
     * @return array<string, mixed> the props, date_paid a WC_DateTime or null
     */
    public function get_data()
    {
        $data = $this->saved_props;
        $data['date_paid'] = $data['date_paid'] === '' ? null : new WC_DateTime('@' . $data['date_paid']);
        return $data;
    }

    /** @return array<string, string> the props changed since they were read or saved (WC_Data::get_changes) */
    public function get_changes(): array
    {
        return $this->changes;
    }

    /** WC_Data::set_prop(): a prop set on a stored order is a change when it differs, or was changed already. */
    private function note_change(string $prop): void
    {
        $value = $this->get_props()[$prop];
        if ($this->id > 0 && ($value !== ($this->saved_props[$prop] ?? null) || array_key_exists($prop, $this->changes))) {
            $this->changes[$prop] = $value;
        }
    }

    /** @return array<int, array{product_id: int, qty: int}> harness: the line items (product and quantity) */
    public function get_harness_items(): array
    {
        return $this->items;
    }

    public function set_currency($value)
    {
        $this->currency = strtoupper((string) $value);
        $this->note_change('currency');
    }

    public function set_total($value)
    {
        $this->total = wc_format_decimal((string) $value, wc_get_price_decimals());
        $this->note_change('total');
    }

    public function set_payment_method($payment_method = '')
    {
        if (is_object($payment_method)) {
            $this->payment_method = (string) $payment_method->id;
            $this->set_payment_method_title((string) $payment_method->get_title());
        } else {
            $this->payment_method = (string) $payment_method;
        }
        $this->note_change('payment_method');
    }

    public function set_payment_method_title($value)
    {
        $this->payment_method_title = (string) $value;
        $this->note_change('payment_method_title');
    }

    public function set_transaction_id($value)
    {
        $this->transaction_id = (string) $value;
        $this->note_change('transaction_id');
    }

    public function set_date_paid($date = null)
    {
        if ($date instanceof DateTimeInterface) {
            $date = $date->getTimestamp();
        }
        $this->date_paid = $date === null || $date === '' ? null : (is_numeric($date) ? (int) $date : (int) strtotime((string) $date));
        $this->note_change('date_paid');
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
        $this->note_change('status');
        if ($this->id > 0 && $old_status !== $new_status) {
            $this->status_transition = [
                'from' => !empty($this->status_transition['from']) ? $this->status_transition['from'] : $old_status,
                'to' => $new_status,
                'note' => (string) $note,
                'manual' => (bool) $manual_update,
            ];
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

    /** @return list<WC_Meta_Data> harness: every meta row, deleted ones included, as save() writes them */
    public function get_meta_data_rows(): array
    {
        return $this->meta_data;
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
        $store = $this->get_data_store();
        do_action('woocommerce_before_order_object_save', $this, $store);
        $is_new = $this->id === 0;
        $this->id = $store->write($this, $is_new ? $this->get_props() : $this->get_changes(), $this->meta_data);
        $this->apply_changes();
        do_action($is_new ? 'woocommerce_new_order' : 'woocommerce_update_order', $this->id, $this);
        $store->backfill($this->id);
        unset($GLOBALS['wc_harness_order_cache'][$this->id]);
        do_action('woocommerce_after_order_object_save', $this, $store);
        $this->status_transition();
        return $this->id;
    }

    /** WC_Data::apply_changes(): what was set becomes the order's data. */
    public function apply_changes()
    {
        $this->meta_data = $this->get_meta_data();
        foreach ($this->meta_data as $meta) {
            $meta->apply_changes();
        }
        $this->saved_props = $this->get_props();
        $this->changes = [];
    }

    /** Harness: when the data store wrote the order. */
    public function harness_set_date_modified(int $timestamp): void
    {
        $this->date_modified = $timestamp;
    }

    protected function status_transition()
    {
        $transition = $this->status_transition;
        $this->status_transition = false;
        if (!$transition) {
            return;
        }
        do_action('woocommerce_order_status_' . $transition['to'], $this->get_id(), $this, $transition);
        if ($transition['from'] !== '') {
            /* translators: 1: old order status 2: new order status */
            $transition_note = sprintf(__('Order status changed from %1$s to %2$s.', 'woocommerce'), wc_get_order_status_name($transition['from']), wc_get_order_status_name($transition['to']));
            $this->add_order_note(trim($transition['note'] . ' ' . $transition_note), 0, $transition['manual']);
            do_action('woocommerce_order_status_' . $transition['from'] . '_to_' . $transition['to'], $this->get_id(), $this);
            do_action('woocommerce_order_status_changed', $this->get_id(), $transition['from'], $transition['to'], $this);
        }
    }

    /**
     * A note on the order; a customer note also fires woocommerce_new_customer_note, which sends
     * the customer the "note added to your order" e-mail (WC_Email_Customer_Note).
     */
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
            do_action('woocommerce_new_customer_note', ['order_id' => $this->get_id(), 'customer_note' => $note]);
        }
        do_action('woocommerce_order_note_added', $comment_id, $this);
        return $comment_id;
    }

    /** The billing e-mail; the harness keeps it in the _billing_email meta row (the posts storage's key). */
    public function get_billing_email($context = 'view')
    {
        return (string) $this->get_meta('_billing_email');
    }

    public function set_billing_email($value)
    {
        $this->update_meta_data('_billing_email', sanitize_email((string) $value));
    }

    /**
     * The order's refunds, newest first (WC_Order::get_refunds(): wc_get_orders type
     * shop_order_refund with the order as parent).
     *
     * @return list<WC_Order_Refund>
     */
    public function get_refunds()
    {
        return wc_get_orders(['type' => 'shop_order_refund', 'parent' => $this->get_id(), 'limit' => -1]);
    }

    /** The sum of the refunds' amounts (the data store's get_total_refunded). */
    public function get_total_refunded()
    {
        global $wpdb;
        return (string) ($wpdb->get_var($wpdb->prepare('SELECT SUM(amount) FROM ' . WC_Order_Refund::table() . ' WHERE parent_id = %d', $this->get_id())) ?? '0');
    }

    public function get_remaining_refund_amount()
    {
        return wc_format_decimal($this->get_total() - $this->get_total_refunded(), wc_get_price_decimals());
    }

    /** The harness writes the modified time with every save (date_updated_gmt), so this sets nothing. */
    public function set_date_modified($date = null)
    {
    }

    public function get_prices_include_tax($context = 'view')
    {
        return false;
    }

    /**
     * WC_Data::save_meta_data(): writes the meta rows that changed and the modified time, without the
     * props, the save hooks or a status transition (HPOS: add_meta / update_meta, then the backfill).
     */
    public function save_meta_data()
    {
        if (!$this->get_id()) {
            return;
        }
        $store = $this->get_data_store();
        $store->write($this, [], $this->meta_data);
        $this->meta_data = $this->get_meta_data();
        foreach ($this->meta_data as $meta) {
            $meta->apply_changes();
        }
        $store->backfill($this->id);
        unset($GLOBALS['wc_harness_order_cache'][$this->id]);
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
