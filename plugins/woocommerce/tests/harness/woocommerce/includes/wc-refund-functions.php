<?php
/**
 * Harness (WooCommerce 10.0.2): refunds as includes/wc-order-functions.php makes them
 * (wc_create_refund, wc_refund_payment, wc_order_fully_refunded) and the customer-note e-mail
 * (WC_Email_Customer_Note::trigger on woocommerce_new_customer_note).
 *
 * wc_create_refund() follows WooCommerce's steps in order: the amount checked against the order's
 * remaining refund amount ("Invalid refund amount."), the WC_Order_Refund saved (currency, amount,
 * parent, refunded by, reason; woocommerce_create_refund before), then with refund_payment the
 * gateway's process_refund() through wc_refund_payment(): on a WP_Error (or false) the refund is
 * deleted and the error returned, else refunded_payment is set and saved; then
 * woocommerce_order_partially_refunded, or woocommerce_order_fully_refunded and the status
 * "refunded" (filter woocommerce_order_fully_refunded_status), the order saved with its modified
 * time, woocommerce_refund_created and woocommerce_order_refunded. The harness has no line items
 * on refunds, taxes or downloads: line_items and restock_items are ignored, and a refund is
 * partial when the amount left after it is above zero. This is what the order screen's "Refund"
 * button (WC_AJAX::refund_line_items, refund_payment = "via the gateway") and the REST API's
 * POST /wc/v3/orders/<id>/refunds (api_refund) call.
 */

defined('ABSPATH') || exit;

/** @return WC_Order_Refund|WP_Error */
function wc_create_refund($args = [])
{
    $default_args = [
        'amount' => 0,
        'reason' => null,
        'order_id' => 0,
        'refund_id' => 0,
        'line_items' => [],
        'refund_payment' => false,
        'restock_items' => false,
    ];

    try {
        $args = wp_parse_args($args, $default_args);
        $order = wc_get_order($args['order_id']);

        if (!$order instanceof WC_Order) {
            throw new Exception(__('Invalid order ID.', 'woocommerce'));
        }

        $remaining_refund_amount = $order->get_remaining_refund_amount();
        $refund = new WC_Order_Refund($args['refund_id']);

        if (0 > $args['amount'] || $args['amount'] > $remaining_refund_amount) {
            throw new Exception(__('Invalid refund amount.', 'woocommerce'));
        }

        $refund->set_currency($order->get_currency());
        $refund->set_amount($args['amount']);
        $refund->set_parent_id(absint($args['order_id']));
        $refund->set_refunded_by(get_current_user_id() ? get_current_user_id() : 1);

        if (!is_null($args['reason'])) {
            $refund->set_reason($args['reason']);
        }

        $refund->set_total($args['amount'] * -1);

        if (isset($args['date_created'])) {
            $refund->set_date_created($args['date_created']);
        }

        do_action('woocommerce_create_refund', $refund, $args);

        if ($refund->save()) {
            if ($args['refund_payment']) {
                $result = wc_refund_payment($order, $refund->get_amount(), $refund->get_reason());

                if (is_wp_error($result)) {
                    $refund->delete();
                    return $result;
                }

                $refund->set_refunded_payment(true);
                $refund->save();
            }

            if ((bool) apply_filters('woocommerce_order_is_partially_refunded', ($remaining_refund_amount - $args['amount']) > 0, $order->get_id(), $refund->get_id())) {
                do_action('woocommerce_order_partially_refunded', $order->get_id(), $refund->get_id());
            } else {
                do_action('woocommerce_order_fully_refunded', $order->get_id(), $refund->get_id());
                $parent_status = apply_filters('woocommerce_order_fully_refunded_status', 'refunded', $order->get_id(), $refund->get_id());
                if ($parent_status) {
                    $order->update_status($parent_status);
                }
            }
        }

        $order->set_date_modified(time());
        $order->save();

        do_action('woocommerce_refund_created', $refund->get_id(), $args);
        do_action('woocommerce_order_refunded', $order->get_id(), $refund->get_id());
    } catch (Exception $e) {
        if (isset($refund) && $refund instanceof WC_Order_Refund) {
            $refund->delete(true);
        }
        return new WP_Error('error', $e->getMessage());
    }

    return $refund;
}

/** @return bool|WP_Error */
function wc_refund_payment($order, $amount, $reason = '')
{
    try {
        if (!$order instanceof WC_Order) {
            throw new Exception(__('Invalid order.', 'woocommerce'));
        }

        $all_gateways = WC_Payment_Gateways::instance()->payment_gateways();
        $payment_method = $order->get_payment_method();
        $gateway = isset($all_gateways[$payment_method]) ? $all_gateways[$payment_method] : false;

        if (!$gateway) {
            throw new Exception(__('The payment gateway for this order does not exist.', 'woocommerce'));
        }

        if (!$gateway->supports('refunds')) {
            throw new Exception(__('The payment gateway for this order does not support automatic refunds.', 'woocommerce'));
        }

        $result = $gateway->process_refund($order->get_id(), $amount, $reason);

        if (!$result) {
            throw new Exception(__('An error occurred while attempting to create the refund using the payment gateway API.', 'woocommerce'));
        }

        if (is_wp_error($result)) {
            throw new Exception($result->get_error_message());
        }

        return true;
    } catch (Exception $e) {
        return new WP_Error('error', $e->getMessage());
    }
}

/** An order set to "refunded" by hand gets a refund (no gateway) for what is left, and a note. */
function wc_order_fully_refunded($order_id)
{
    $order = wc_get_order($order_id);
    $max_refund = wc_format_decimal($order->get_total() - $order->get_total_refunded());

    if (!(float) $max_refund) {
        return;
    }

    wc_create_refund([
        'amount' => $max_refund,
        'reason' => __('Order fully refunded.', 'woocommerce'),
        'order_id' => $order_id,
        'line_items' => [],
    ]);

    $order->add_order_note(__('Order status set to refunded. To return funds to the customer you will need to issue a refund through your payment gateway.', 'woocommerce'));
}
add_action('woocommerce_order_status_refunded', 'wc_order_fully_refunded');

/** WC_Email_Customer_Note::trigger(): the note, by e-mail, to the order's billing address when it has one. */
function wc_harness_email_customer_note($args)
{
    $order = wc_get_order($args['order_id'] ?? 0);
    if (!$order instanceof WC_Order || $order->get_billing_email() === '') {
        return;
    }
    $subject = sprintf(__('Note added to your %s order from %s', 'woocommerce'), get_bloginfo('name'), gmdate('F j, Y', $order->get_date_created()->getTimestamp()));
    wp_mail($order->get_billing_email(), $subject, wpautop(wptexturize(make_clickable((string) ($args['customer_note'] ?? '')))), ['Content-Type: text/html']);
}
add_action('woocommerce_new_customer_note', 'wc_harness_email_customer_note');
