<?php
/** Harness (WooCommerce 10.0): the main WooCommerce object behind WC(). */

defined('ABSPATH') || exit;

final class WooCommerce
{
    /** @var string */
    public $version = WC_VERSION;
    /** @var WC_Cart|null Only a checkout request has a cart; the harness never does. */
    public $cart = null;
    /** @var object|null */
    public $session = null;

    private static ?WooCommerce $instance = null;

    public static function instance(): self
    {
        if (self::$instance === null) {
            self::$instance = new self();
            self::$instance->init_hooks();
        }
        return self::$instance;
    }

    private function init_hooks(): void
    {
        add_action('plugins_loaded', [$this, 'on_plugins_loaded'], -1);
        add_action('init', [$this, 'init'], 0);
        add_action('parse_request', [$this, 'handle_api_requests'], 0);
        add_filter('query_vars', static function ($vars) {
            $vars[] = 'wc-api';
            return $vars;
        });
        WC_Order_Data_Store::install();
    }

    public function on_plugins_loaded(): void
    {
        do_action('woocommerce_loaded');
    }

    /** WooCommerce::init(): runs on init, priority 0. */
    public function init(): void
    {
        do_action('before_woocommerce_init');
        do_action('woocommerce_init');
    }

    /** @return WC_Payment_Gateways */
    public function payment_gateways()
    {
        return WC_Payment_Gateways::instance();
    }

    /** @param string $key */
    public function __get($key)
    {
        if ($key === 'payment_gateways') {
            return $this->payment_gateways();
        }
        return null;
    }

    /** WC()->api_request_url() */
    public function api_request_url($request, $ssl = null)
    {
        return add_query_arg('wc-api', $request, trailingslashit(home_url('', $ssl ? 'https' : null)));
    }

    /** WC_API::handle_api_requests(): the wc-api query variable routes to woocommerce_api_{name}. */
    public function handle_api_requests()
    {
        global $wp;
        if (!empty($_GET['wc-api'])) { // phpcs:ignore
            $wp->query_vars['wc-api'] = sanitize_key(wp_unslash($_GET['wc-api'])); // phpcs:ignore
        }
        if (empty($wp->query_vars['wc-api'])) {
            return;
        }
        ob_start();
        nocache_headers();
        $api_request = strtolower(wc_clean($wp->query_vars['wc-api']));
        do_action('woocommerce_api_request', $api_request);
        status_header(has_action('woocommerce_api_' . $api_request) ? 200 : 400);
        do_action('woocommerce_api_' . $api_request);
        ob_end_clean();
        die('-1');
    }
}
