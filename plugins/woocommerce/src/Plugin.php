<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce;

defined('ABSPATH') || exit;

use Automattic\WooCommerce\Utilities\FeaturesUtil;
use CryptoCheckout\WooCommerce\Admin\MerchantKeyField;
use CryptoCheckout\WooCommerce\Admin\OrderPanel;
use CryptoCheckout\WooCommerce\Admin\Settings;
use CryptoCheckout\WooCommerce\Blocks\PaymentMethod;
use CryptoCheckout\WooCommerce\Gateway\Endpoints;
use CryptoCheckout\WooCommerce\Gateway\Gateway;
use CryptoCheckout\WooCommerce\Helper\Assets;
use CryptoCheckout\WooCommerce\Helper\Kernel;
use CryptoCheckout\WooCommerce\Order\LegacyImport;
use CryptoCheckout\WooCommerce\Order\OrderGuard;
use CryptoCheckout\WooCommerce\Order\WooCommerceRefundPort;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\Ledger\LedgerSchema;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\PollPolicy;

/** Wires the plugin into WordPress and WooCommerce (which "Requires Plugins: woocommerce" guarantees). */
final class Plugin
{
    /** The kernel's poll of open orders and refunds, every PollPolicy::INTERVAL_SECONDS through Action Scheduler (on WP-Cron). */
    public const POLL_HOOK = 'cryptocheckout_poll_open_orders';
    /** The ledger schema version the site's tables were last brought to (LedgerSchema::VERSION). */
    public const SCHEMA_OPTION = 'cryptocheckout_wc_ledger_schema';
    public const GROUP = 'cryptocheckout';

    private function __construct()
    {
    }

    public static function register(): void
    {
        add_action('before_woocommerce_init', static function (): void {
            FeaturesUtil::declare_compatibility('custom_order_tables', CRYPTOCHECKOUT_WC_FILE, true);
            FeaturesUtil::declare_compatibility('cart_checkout_blocks', CRYPTOCHECKOUT_WC_FILE, true);
        });
        add_action('plugins_loaded', [self::class, 'boot']);
        add_action('init', [self::class, 'loadTextDomain']);
    }

    public static function loadTextDomain(): void
    {
        load_plugin_textdomain(Kernel::TEXT_DOMAIN, false, dirname(plugin_basename(CRYPTOCHECKOUT_WC_FILE)) . '/languages');
    }

    public static function boot(): void
    {
        if (!class_exists('WC_Payment_Gateway')) {
            return;
        }
        add_filter('woocommerce_payment_gateways', static fn ($gateways): array => array_merge(is_array($gateways) ? $gateways : [], [Gateway::class]));
        add_action('woocommerce_blocks_payment_method_type_registration', static fn ($registry) => $registry->register(new PaymentMethod()));
        // The upgrade from order meta to the kernel's ledger, once Action Scheduler is ready (init 1).
        add_action('init', [LegacyImport::class, 'upgrade'], 20);
        add_action('init', [self::class, 'upgradeLedger'], 21);
        add_action(LegacyImport::HOOK, [LegacyImport::class, 'importBatch']);
        add_action('admin_notices', [LegacyImport::class, 'notice']);
        // The webhook, the buyer's status endpoint and order-received page, and the poll.
        add_action('rest_api_init', [Endpoints::class, 'registerRoutes']);
        add_filter('rest_request_before_callbacks', [Endpoints::class, 'letWebhookRefuse'], 10, 3);
        add_filter('rest_post_dispatch', [Endpoints::class, 'allowHeader'], 20, 3);
        add_action('woocommerce_api_' . Gateway::ID, [Endpoints::class, 'legacyWebhook']);
        add_action('woocommerce_thankyou', [Endpoints::class, 'orderReceived'], 5);
        add_action(self::POLL_HOOK, [self::class, 'poll']);
        add_action('action_scheduler_init', [self::class, 'schedulePoll']);
        // WooCommerce's own writes that must not undo the kernel's.
        add_filter('woocommerce_cancel_unpaid_order', [OrderGuard::class, 'allowUnpaidCancel'], 10, 2);
        add_action('woocommerce_before_order_object_save', [OrderGuard::class, 'beforeSave'], 1);
        add_action('woocommerce_hpos_post_record_migrated_on_read', [OrderGuard::class, 'afterSyncOnRead'], 1);
        // The settings, by the kernel's rules whichever way they are written: the form (Gateway), the REST API, update_option.
        add_action('admin_enqueue_scripts', [Assets::class, 'enqueueSettingsScript']);
        add_filter('rest_request_before_callbacks', [Settings::class, 'refuseInvalidRestWrite'], 10, 3);
        add_filter('pre_update_option_' . Settings::OPTION, [Settings::class, 'keepValidSettings'], 10, 2);
        add_action('admin_notices', [Settings::class, 'configurationNotice']);
        add_filter('woocommerce_rest_prepare_payment_gateway', [MerchantKeyField::class, 'maskRestResponse'], 10, 3);
        // The order screen's box (HPOS and legacy screens) and its "Check payment now".
        add_action('add_meta_boxes', [OrderPanel::class, 'register'], 10, 2);
        add_action('admin_post_' . OrderPanel::CHECK_ACTION, [OrderPanel::class, 'handleCheck']);
        add_action('admin_notices', [OrderPanel::class, 'showOutcome']);
        add_filter('plugin_action_links_' . plugin_basename(CRYPTOCHECKOUT_WC_FILE), static function ($links): array {
            $url = admin_url('admin.php?page=wc-settings&tab=checkout&section=' . Gateway::ID);
            return array_merge(['<a href="' . esc_url($url) . '">' . esc_html__('Settings', 'cryptocheckout-for-woocommerce') . '</a>'], is_array($links) ? $links : []);
        });
    }

    /** The scheduled poll: the watched orders, then the refunds due a look (a lost refund.paid webhook is caught here). */
    public static function poll(): void
    {
        $kernel = Kernel::get();
        $kernel->poll();
        $kernel->checkRefunds(new WooCommerceRefundPort());
    }

    /**
     * init: a ledger installed by an earlier version gets the tables added since (the refunds of
     * schema 2), once; the option keeps every later request from asking the database.
     */
    public static function upgradeLedger(): void
    {
        if ((int) get_option(self::SCHEMA_OPTION, 0) >= LedgerSchema::VERSION || get_option(LegacyImport::OPTION) === false || get_option(LegacyImport::OPTION) === 'failed') {
            return;
        }
        try {
            $ledger = Kernel::get()->ledger();
            if (!$ledger->isCurrent()) {
                $ledger->install();
            }
            update_option(self::SCHEMA_OPTION, (string) LedgerSchema::VERSION, true);
        } catch (\RuntimeException $failure) {
            Kernel::log('error', 'The Crypto Checkout refunds table could not be created; refunds wait until it can (the next request tries again): ' . $failure->getMessage());
        }
    }

    /** Where the service sends transaction.settled; the cryptocheckout_wc_webhook_url filter can move it (e.g. behind a proxy). */
    public static function webhookUrl(): string
    {
        return (string) apply_filters('cryptocheckout_wc_webhook_url', rest_url(Endpoints::REST_NAMESPACE . Endpoints::WEBHOOK_ROUTE));
    }

    /** action_scheduler_init and activation: the recurring poll, once. */
    public static function schedulePoll(): void
    {
        if (function_exists('as_next_scheduled_action') && as_next_scheduled_action(self::POLL_HOOK, [], self::GROUP) === false) {
            as_schedule_recurring_action(time() + 60, PollPolicy::INTERVAL_SECONDS, self::POLL_HOOK, [], self::GROUP, true);
        }
    }

    /** Activation; an upgrade that could not import every order runs again. */
    public static function activate(): void
    {
        if (get_option(LegacyImport::OPTION) === 'failed') {
            delete_option(LegacyImport::OPTION);
        }
        self::schedulePoll();
    }

    public static function deactivate(): void
    {
        if (function_exists('as_unschedule_all_actions')) {
            as_unschedule_all_actions(self::POLL_HOOK, [], self::GROUP);
        }
    }
}
