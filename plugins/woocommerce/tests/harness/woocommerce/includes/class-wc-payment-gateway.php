<?php
/** Harness (WooCommerce 10.0): WC_Payment_Gateway, abstract-wc-payment-gateway.php (the parts gateways rely on). */

defined('ABSPATH') || exit;

abstract class WC_Payment_Gateway extends WC_Settings_API
{
    public $order_button_text;
    public $enabled = 'yes';
    public $title;
    public $description;
    public $chosen;
    public $method_title = '';
    public $method_description = '';
    public $has_fields;
    public $countries;
    public $availability;
    public $icon;
    public $supports = ['products'];
    public $max_amount = 0;
    public $view_transaction_url = '';
    public $new_method_label = '';

    public function get_title()
    {
        return apply_filters('woocommerce_gateway_title', $this->title, $this->id);
    }

    public function get_description()
    {
        return apply_filters('woocommerce_gateway_description', $this->description, $this->id);
    }

    public function get_method_title()
    {
        return apply_filters('woocommerce_gateway_method_title', $this->method_title, $this);
    }

    public function get_return_url($order = null)
    {
        if ($order) {
            $return_url = $order->get_checkout_order_received_url();
        } else {
            $return_url = wc_get_endpoint_url('order-received', '', wc_get_checkout_url());
        }
        return apply_filters('woocommerce_get_return_url', $return_url, $order);
    }

    public function is_available()
    {
        $is_available = ('yes' === $this->enabled);
        if (WC()->cart && 0 < $this->get_order_total() && 0 < $this->max_amount && $this->max_amount < $this->get_order_total()) {
            $is_available = false;
        }
        return $is_available;
    }

    protected function get_order_total()
    {
        return 0.0;
    }

    public function process_payment($order_id)
    {
        return [];
    }

    public function process_refund($order_id, $amount = null, $reason = '')
    {
        return false;
    }

    /** Whether the order screen offers "Refund via <gateway>" for the order. */
    public function can_refund_order($order)
    {
        return $order && $this->supports('refunds');
    }

    public function supports($feature)
    {
        return apply_filters('woocommerce_payment_gateway_supports', in_array($feature, $this->supports, true), $feature, $this);
    }

    public function init_settings()
    {
        parent::init_settings();
        $this->enabled = !empty($this->settings['enabled']) && 'yes' === $this->settings['enabled'] ? 'yes' : 'no';
    }
}
