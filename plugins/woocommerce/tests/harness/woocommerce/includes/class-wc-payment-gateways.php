<?php
/** Harness (WooCommerce 10.0): WC_Payment_Gateways, loading gateways from the woocommerce_payment_gateways filter. */

defined('ABSPATH') || exit;

class WC_Payment_Gateways
{
    /** @var array<string, WC_Payment_Gateway> */
    public $payment_gateways = [];

    private static ?WC_Payment_Gateways $instance = null;

    public static function instance(): self
    {
        if (self::$instance === null) {
            self::$instance = new self();
            self::$instance->init();
        }
        return self::$instance;
    }

    public function init()
    {
        $load_gateways = apply_filters('woocommerce_payment_gateways', []);
        foreach ($load_gateways as $gateway) {
            $load_gateway = is_string($gateway) ? new $gateway() : $gateway;
            $this->payment_gateways[$load_gateway->id] = $load_gateway;
        }
    }

    public function payment_gateways()
    {
        return $this->payment_gateways;
    }

    public function get_available_payment_gateways()
    {
        $available = [];
        foreach ($this->payment_gateways as $gateway) {
            if ($gateway->is_available()) {
                $available[$gateway->id] = $gateway;
            }
        }
        return apply_filters('woocommerce_available_payment_gateways', $available);
    }
}
