<?php
/**
 * Harness helpers the tests call to play WooCommerce's own parts: the checkout placing an order,
 * the order-received page, the block checkout's data, and a product with stock.
 */

defined('ABSPATH') || exit;

/** A simple product managing its stock. */
function wc_harness_create_product(string $name, string $price, int $stock): int
{
    $id = wp_insert_post(['post_type' => 'product', 'post_status' => 'publish', 'post_title' => $name]);
    update_post_meta($id, '_price', $price);
    update_post_meta($id, '_manage_stock', 'yes');
    update_post_meta($id, '_stock', (string) $stock);
    return (int) $id;
}

/**
 * WC_Checkout::process_checkout() for a cart of [product_id => qty] and a total: checks the cart's
 * stock against the holds of other pending orders (validate_checkout → WC_Cart::check_cart_items),
 * creates the pending order via "checkout" with the chosen gateway, holds its stock
 * (woocommerce_checkout_order_created; a failed hold fires woocommerce_checkout_order_exception and
 * fails the checkout) and calls process_payment, as process_order_payment does.
 *
 * @return array{order_id: int, result: array, notices: array}
 */
function wc_harness_checkout(array $cart, string $total, string $currency, string $payment_method): array
{
    wc_clear_notices();
    $failure = static function (string $message): array {
        return ['order_id' => 0, 'result' => ['result' => 'failure'], 'notices' => ['error' => [['notice' => $message, 'data' => []]]]];
    };
    $gateways = WC()->payment_gateways()->get_available_payment_gateways();
    $order = new WC_Order();
    $order->set_currency($currency);
    $order->set_total($total);
    foreach ($cart as $product_id => $qty) {
        $order->add_harness_item((int) $product_id, (int) $qty);
    }
    if (!isset($gateways[$payment_method])) {
        return $failure('Invalid payment method.');
    }
    $stock = wc_harness_check_cart_item_stock($cart);
    if (is_wp_error($stock)) {
        return $failure($stock->get_error_message());
    }
    $order->set_created_via('checkout');
    $order->set_payment_method($gateways[$payment_method]);
    $order_id = $order->save();
    try {
        do_action('woocommerce_checkout_order_created', $order);
    } catch (Exception $e) {
        do_action('woocommerce_checkout_order_exception', $order);
        return $failure($e->getMessage());
    }
    do_action('woocommerce_checkout_order_processed', $order_id, [], $order);
    return ['order_id' => $order_id] + wc_harness_pay_order($order_id, $payment_method);
}

/** A retried "Place order" / the order-pay page: process_payment again for an existing order. */
function wc_harness_pay_order(int $order_id, string $payment_method): array
{
    wc_clear_notices();
    $gateways = WC()->payment_gateways()->payment_gateways();
    $result = $gateways[$payment_method]->process_payment($order_id);
    if (isset($result['result']) && 'success' === $result['result']) {
        $result['order_id'] = $order_id;
        $result = apply_filters('woocommerce_payment_successful_result', $result, $order_id);
    }
    return ['result' => $result, 'notices' => wc_get_notices()];
}

/** The order-received page's hooks (woocommerce/templates/checkout/thankyou.php); returns the printed HTML. */
function wc_harness_render_order_received(int $order_id): string
{
    $order = wc_get_order($order_id);
    ob_start();
    do_action('woocommerce_thankyou_' . $order->get_payment_method(), $order->get_id());
    do_action('woocommerce_thankyou', $order->get_id());
    return (string) ob_get_clean();
}

/**
 * The HPOS order edit screen's meta boxes (src/Internal/Admin/Orders/Edit.php: setup() fires
 * add_meta_boxes and add_meta_boxes_<screen id> with the order, the page prints the side, normal
 * and advanced boxes with the order as their object); returns the printed HTML.
 */
function wc_harness_render_order_edit(int $order_id): string
{
    // The admin's includes, as on any wp-admin page (meta boxes, screens, postbox classes).
    require_once ABSPATH . 'wp-admin/includes/admin.php';
    $order = wc_get_order($order_id);
    $screen_id = wc_get_page_screen_id('shop-order');
    do_action('add_meta_boxes', $screen_id, $order);
    do_action('add_meta_boxes_' . $screen_id, $order);
    ob_start();
    foreach (['side', 'normal', 'advanced'] as $context) {
        do_meta_boxes($screen_id, $context, $order);
    }
    return (string) ob_get_clean();
}

/** What the block checkout page hands to its scripts: wcSettings payment data and script dependencies. */
function wc_harness_blocks_checkout_data(): array
{
    $registry = $GLOBALS['wc_harness_payment_method_registry'];
    $handles = $registry->get_all_active_payment_method_script_dependencies();
    $scripts = [];
    foreach ($handles as $handle) {
        $registered = wp_scripts()->registered[$handle] ?? null;
        $scripts[$handle] = $registered ? ['src' => $registered->src, 'deps' => $registered->deps] : null;
    }
    return [
        'registered' => array_keys($registry->get_all_registered()),
        'active' => array_keys($registry->get_all_active_registered()),
        'settings' => $registry->get_all_registered_script_data(),
        'scripts' => $scripts,
    ];
}

/** Order notes, oldest first (wc_get_order_notes). */
function wc_harness_order_notes(int $order_id): array
{
    $comments = get_comments(['post_id' => $order_id, 'type' => 'order_note', 'orderby' => 'comment_ID', 'order' => 'ASC', 'status' => 'approve']);
    return array_map(static function ($comment) {
        return $comment->comment_content;
    }, $comments);
}

/**
 * The Store API syncing the checkout's draft order with the cart after a cart change
 * (AbstractCartRoute::cart_updated → OrderController::update_order_from_cart, WooCommerce 10.0
 * src/StoreApi/Utilities/OrderController.php). The block checkout sends such requests around its
 * "Place order" click, and a pending order that still needs payment counts as the session's draft
 * order (DraftOrderTrait::is_valid_draft_order). update_order_from_cart sets the payment method to
 * PaymentUtils::get_default_payment_method() — the session's chosen_payment_method, else the first
 * enabled gateway — by id only (the title stays), and calculate_totals() saves the order.
 *
 * @return array{updated: bool, payment_method?: string, payment_method_title?: string}
 */
function wc_harness_store_api_cart_updated(int $order_id, string $session_chosen_payment_method = ''): array
{
    $order = wc_get_order($order_id);
    if (!$order || !($order->has_status('checkout-draft') || $order->needs_payment())) {
        return ['updated' => false];
    }
    $default = $session_chosen_payment_method;
    if ($default === '') {
        foreach (WC()->payment_gateways()->payment_gateways() as $gateway) {
            if ('yes' === $gateway->enabled) {
                $default = $gateway->id;
                break;
            }
        }
    }
    $order->set_payment_method($default);
    $order->save();
    return ['updated' => true, 'payment_method' => $order->get_payment_method(), 'payment_method_title' => $order->get_payment_method_title()];
}

/** The order as the authoritative storage holds it now (props and meta), JSON-ready: what a request that reads it now sees. */
function wc_harness_order_record(int $order_id): ?array
{
    return (new WC_Order_Data_Store())->record($order_id);
}

/**
 * Compatibility mode's race, as it happens between two requests: a backfill that read the order as
 * $record (from wc_harness_order_record() earlier) and was written after the order's last write, in
 * the same second ($seconds_before 0) or earlier, leaves that older copy in the posts table.
 */
function wc_harness_write_stale_post_copy(int $order_id, array $record, int $seconds_before = 0): void
{
    (new WC_Order_Data_Store())->write_stale_post_copy($order_id, $record, $seconds_before);
}

/** Forgets what this PHP request read (the orders cache, the orders synced on read), as a new request would. */
function wc_harness_new_request(): void
{
    WC_Order_Data_Store::new_request();
}
