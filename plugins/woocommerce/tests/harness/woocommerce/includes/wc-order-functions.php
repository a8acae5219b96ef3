<?php
/**
 * Harness (WooCommerce 10.0.2): the cancelling of unpaid orders, as includes/wc-order-functions.php
 * (wc_cancel_unpaid_orders), includes/class-wc-install.php (create_cron_jobs) and
 * includes/wc-formatting-functions.php (wc_format_option_hold_stock_minutes) do it.
 *
 * A WP-Cron single event, woocommerce_cancel_unpaid_orders, runs every woocommerce_hold_stock_minutes
 * (filter woocommerce_cancel_unpaid_orders_interval_minutes); it reschedules itself first, then —
 * when the hold time is at least a minute and the store manages stock — cancels each pending order
 * last updated more than the hold time ago (OrdersTableDataStore::get_unpaid_orders) for which the
 * filter woocommerce_cancel_unpaid_order, given "was the order created via the checkout", says so,
 * with the note "Unpaid order cancelled - time limit reached.".
 */

defined('ABSPATH') || exit;

function wc_timezone_offset()
{
    $timezone = get_option('timezone_string');
    if ($timezone) {
        return (new DateTimeZone($timezone))->getOffset(new DateTime('now'));
    }
    return floatval(get_option('gmt_offset', 0)) * HOUR_IN_SECONDS;
}

function wc_cancel_unpaid_orders()
{
    $held_duration = get_option('woocommerce_hold_stock_minutes');

    // Rescheduled before cancelling, so a crash half-way still leaves the next run scheduled.
    wp_clear_scheduled_hook('woocommerce_cancel_unpaid_orders');
    $cancel_unpaid_interval = apply_filters('woocommerce_cancel_unpaid_orders_interval_minutes', absint($held_duration));
    wp_schedule_single_event(time() + (absint($cancel_unpaid_interval) * 60), 'woocommerce_cancel_unpaid_orders');

    if ($held_duration < 1 || 'yes' !== get_option('woocommerce_manage_stock')) {
        return;
    }

    $data_store = new WC_Order_Data_Store();
    $unpaid_orders = $data_store->get_unpaid_orders(strtotime('-' . absint($held_duration) . ' MINUTES', current_time('timestamp')));
    foreach ($unpaid_orders as $unpaid_order) {
        $order = wc_get_order($unpaid_order);
        if ($order && apply_filters('woocommerce_cancel_unpaid_order', 'checkout' === $order->get_created_via(), $order)) {
            $order->update_status('cancelled', __('Unpaid order cancelled - time limit reached.', 'woocommerce'));
        }
    }
}
add_action('woocommerce_cancel_unpaid_orders', 'wc_cancel_unpaid_orders');

/** WC_Install::create_cron_jobs() for this event, and the reschedule when the hold time setting is saved. */
function wc_harness_schedule_cancel_unpaid_orders()
{
    wp_clear_scheduled_hook('woocommerce_cancel_unpaid_orders');
    $held_duration = get_option('woocommerce_hold_stock_minutes', '60');
    if ('' !== $held_duration) {
        $cancel_unpaid_interval = apply_filters('woocommerce_cancel_unpaid_orders_interval_minutes', absint($held_duration));
        wp_schedule_single_event(time() + (absint($cancel_unpaid_interval) * 60), 'woocommerce_cancel_unpaid_orders');
    }
}
register_activation_hook(WC_PLUGIN_FILE, 'wc_harness_schedule_cancel_unpaid_orders');
add_action('update_option_woocommerce_hold_stock_minutes', 'wc_harness_schedule_cancel_unpaid_orders');

/**
 * Harness: plays WP-Cron (wp-cron.php) for one hook: its scheduled event is taken off the schedule
 * and run, whatever its time. Returns whether an event was scheduled.
 */
function wc_harness_run_cron_event(string $hook): bool
{
    $timestamp = wp_next_scheduled($hook);
    if ($timestamp === false) {
        return false;
    }
    wp_unschedule_event($timestamp, $hook);
    do_action_ref_array($hook, []);
    return true;
}

/** Harness: moves an order's last update $minutes into the past, as if nothing had touched it since. */
function wc_harness_age_order(int $order_id, int $minutes): void
{
    global $wpdb;
    $updated = gmdate('Y-m-d H:i:s', time() - $minutes * MINUTE_IN_SECONDS);
    if (WC_Order_Data_Store::hpos_enabled()) {
        $wpdb->update($wpdb->prefix . 'wc_orders', ['date_updated_gmt' => $updated], ['id' => $order_id]);
    } else {
        $wpdb->update($wpdb->posts, ['post_modified_gmt' => $updated, 'post_modified' => $updated], ['ID' => $order_id]);
    }
}
