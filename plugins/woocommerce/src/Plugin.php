<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce;

defined('ABSPATH') || exit;

use Automattic\WooCommerce\Utilities\FeaturesUtil;
use CryptoCheckout\WooCommerce\Admin\OrderPanel;
use CryptoCheckout\WooCommerce\Admin\ConfigurationNotice;
use CryptoCheckout\WooCommerce\Admin\RestSettings;
use CryptoCheckout\WooCommerce\Admin\SettingsScript;
use CryptoCheckout\WooCommerce\Admin\SettingsGuard;
use CryptoCheckout\WooCommerce\Blocks\PaymentMethod;
use CryptoCheckout\WooCommerce\Gateway\Gateway;
use CryptoCheckout\WooCommerce\Gateway\Poller;
use CryptoCheckout\WooCommerce\Gateway\StatusController;
use CryptoCheckout\WooCommerce\Gateway\ThankYou;
use CryptoCheckout\WooCommerce\Gateway\WebhookController;
use CryptoCheckout\WooCommerce\Order\OrderQuery;
use CryptoCheckout\WooCommerce\Order\UnpaidOrderGuard;

/** Wires the plugin into WordPress and WooCommerce. */
final class Plugin
{
    private static ?Plugin $instance = null;

    public static function instance(): self
    {
        if (self::$instance === null) {
            self::$instance = new self();
        }
        return self::$instance;
    }

    public function register(): void
    {
        add_action('before_woocommerce_init', [self::class, 'declareCompatibility']);
        add_action('plugins_loaded', [$this, 'boot']);
        add_action('init', [self::class, 'loadTextDomain']);
    }

    public function boot(): void
    {
        if (!class_exists('WooCommerce') || !class_exists('WC_Payment_Gateway')) {
            add_action('admin_notices', [self::class, 'missingWooCommerceNotice']);
            return;
        }
        add_filter('woocommerce_payment_gateways', [self::class, 'addGateway']);
        add_action('woocommerce_blocks_payment_method_type_registration', [self::class, 'registerBlocksMethod']);
        add_action('rest_api_init', [WebhookController::class, 'registerRoutes']);
        add_filter('rest_request_before_callbacks', [WebhookController::class, 'letHandlerRefuse'], 10, 3);
        add_filter('rest_post_dispatch', [WebhookController::class, 'allowHeader'], 20, 3);
        add_action('rest_api_init', [StatusController::class, 'registerRoutes']);
        add_action('woocommerce_api_' . Gateway::ID, [WebhookController::class, 'handleLegacy']);
        // Every payment method's order-received page: the Store API may have changed the method since.
        add_action('woocommerce_thankyou', [ThankYou::class, 'render'], 5);
        add_filter('woocommerce_order_data_store_cpt_get_orders_query', [OrderQuery::class, 'legacyQueryArgs'], 10, 2);
        add_filter('woocommerce_cancel_unpaid_order', [UnpaidOrderGuard::class, 'allowCancel'], 10, 2);
        add_action(Poller::HOOK, [Poller::class, 'run']);
        add_filter('cron_schedules', [Poller::class, 'cronSchedules']);
        add_action('action_scheduler_init', [Poller::class, 'ensureScheduled']);
        add_action('admin_enqueue_scripts', [SettingsScript::class, 'enqueue']);
        // Every way the settings are written is checked by the kernel's rules: the form (Gateway), the REST API, update_option.
        add_filter('rest_request_before_callbacks', [RestSettings::class, 'refuseInvalid'], 10, 3);
        add_filter('woocommerce_gateway_' . Gateway::ID . '_settings_values', [RestSettings::class, 'canonicalValues']);
        add_filter('pre_update_option_' . SettingsGuard::OPTION, [SettingsGuard::class, 'keepValidSettings'], 10, 2);
        add_action('admin_notices', [ConfigurationNotice::class, 'render']);
        // The order screen's box (HPOS and legacy screens) and its "Check payment now".
        add_action('add_meta_boxes', [OrderPanel::class, 'register'], 10, 2);
        add_action('admin_post_' . OrderPanel::CHECK_ACTION, [OrderPanel::class, 'handleCheck']);
        add_action('admin_notices', [OrderPanel::class, 'showOutcome']);
        add_filter('plugin_action_links_' . plugin_basename(CRYPTOCHECKOUT_WC_FILE), [self::class, 'actionLinks']);
    }

    public static function declareCompatibility(): void
    {
        if (class_exists(FeaturesUtil::class)) {
            FeaturesUtil::declare_compatibility('custom_order_tables', CRYPTOCHECKOUT_WC_FILE, true);
            FeaturesUtil::declare_compatibility('cart_checkout_blocks', CRYPTOCHECKOUT_WC_FILE, true);
        }
    }

    public static function loadTextDomain(): void
    {
        load_plugin_textdomain('cryptocheckout-for-woocommerce', false, dirname(plugin_basename(CRYPTOCHECKOUT_WC_FILE)) . '/languages');
    }

    /**
     * @param array<int, string|object> $gateways
     * @return array<int, string|object>
     */
    public static function addGateway($gateways): array
    {
        $gateways = is_array($gateways) ? $gateways : [];
        $gateways[] = Gateway::class;
        return $gateways;
    }

    /** @param object $registry Automattic\WooCommerce\Blocks\Payments\PaymentMethodRegistry */
    public static function registerBlocksMethod($registry): void
    {
        $registry->register(new PaymentMethod());
    }

    /**
     * @param array<string, string> $links
     * @return array<string, string>
     */
    public static function actionLinks($links): array
    {
        $links = is_array($links) ? $links : [];
        $url = admin_url('admin.php?page=wc-settings&tab=checkout&section=' . Gateway::ID);
        array_unshift($links, '<a href="' . esc_url($url) . '">' . esc_html__('Settings', 'cryptocheckout-for-woocommerce') . '</a>');
        return $links;
    }

    public static function missingWooCommerceNotice(): void
    {
        echo '<div class="notice notice-error"><p>' . esc_html__('Crypto Checkout for WooCommerce needs WooCommerce to be installed and active.', 'cryptocheckout-for-woocommerce') . '</p></div>';
    }

    /** Where the service sends transaction.settled; the cryptocheckout_wc_webhook_url filter can move it (e.g. behind a proxy). */
    public static function webhookUrl(): string
    {
        return (string) apply_filters('cryptocheckout_wc_webhook_url', rest_url(WebhookController::REST_NAMESPACE . WebhookController::REST_ROUTE));
    }

    public static function activate(): void
    {
        if (function_exists('as_next_scheduled_action') || function_exists('wp_next_scheduled')) {
            Poller::ensureScheduled();
        }
    }

    public static function deactivate(): void
    {
        Poller::unschedule();
    }
}
