<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Gateway;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Admin\ServiceStatus;
use CryptoCheckout\WooCommerce\Admin\SettingsValidator;
use CryptoCheckout\WooCommerce\Helper\Logger;
use CryptoCheckout\WooCommerce\Vendor\Client\Exception\ApiException;
use CryptoCheckout\WooCommerce\Vendor\Client\Exception\CryptoCheckoutException;
use CryptoCheckout\WooCommerce\Vendor\Client\Exception\NetworkException;
use CryptoCheckout\WooCommerce\Vendor\Client\Exception\NoRailAvailableException;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\CheckoutOpener;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\SettingsRules;
use CryptoCheckout\WooCommerce\Vendor\Client\Money;
use CryptoCheckout\WooCommerce\Vendor\Client\Wallet\Networks;

/**
 * The "Crypto Checkout" payment method of the classic checkout (the block checkout reaches it
 * through Blocks\PaymentMethod). The buyer pays on the hosted page, or in a window over the shop;
 * the order is completed from the service's own record of the transaction.
 */
class Gateway extends \WC_Payment_Gateway
{
    public const ID = 'cryptocheckout';
    public const PAY_QUERY_ARG = 'cryptocheckout-pay';

    public function __construct()
    {
        $this->id = self::ID;
        $this->has_fields = false;
        $this->method_title = __('Crypto Checkout', 'cryptocheckout-for-woocommerce');
        $this->method_description = __('Take crypto payments settled to your own wallet. Buyers pay on the Crypto Checkout page with the coin and network of their choice.', 'cryptocheckout-for-woocommerce');
        $this->order_button_text = __('Pay with crypto', 'cryptocheckout-for-woocommerce');
        $this->supports = ['products'];

        $this->init_form_fields();
        $this->init_settings();

        $this->enabled = (string) $this->get_option('enabled');
        $this->title = (string) $this->get_option('title');
        $this->description = (string) $this->get_option('description');

        add_action('woocommerce_update_options_payment_gateways_' . $this->id, [$this, 'process_admin_options']);
    }

    public function init_form_fields()
    {
        $networks = [];
        foreach (Networks::all() as $info) {
            $networks[(string) $info['id']] = (string) $info['name'];
        }
        $assets = [];
        foreach (SettingsValidator::assetsByNetwork() as $symbols) {
            foreach ($symbols as $symbol) {
                $assets[$symbol] = $symbol;
            }
        }
        ksort($assets);

        $this->form_fields = [
            'enabled' => [
                'title' => __('Enable/Disable', 'cryptocheckout-for-woocommerce'),
                'type' => 'checkbox',
                'label' => __('Enable Crypto Checkout', 'cryptocheckout-for-woocommerce'),
                'default' => 'no',
            ],
            'title' => [
                'title' => __('Title', 'cryptocheckout-for-woocommerce'),
                'type' => 'text',
                'description' => __('The name of the payment method at checkout.', 'cryptocheckout-for-woocommerce'),
                'default' => __('Pay with crypto', 'cryptocheckout-for-woocommerce'),
                'desc_tip' => true,
            ],
            'description' => [
                'title' => __('Description', 'cryptocheckout-for-woocommerce'),
                'type' => 'textarea',
                'description' => __('What the buyer reads under the payment method.', 'cryptocheckout-for-woocommerce'),
                'default' => __('Pay with USDC, USDT, bitcoin, ether and more on the next page.', 'cryptocheckout-for-woocommerce'),
                'desc_tip' => true,
            ],
            'service_url' => [
                'title' => __('Service URL', 'cryptocheckout-for-woocommerce'),
                'type' => 'text',
                'description' => __('Address of the Crypto Checkout service, for example https://pay.example.com.', 'cryptocheckout-for-woocommerce'),
                'default' => '',
                'placeholder' => 'https://pay.example.com',
            ],
            'wallet_network' => [
                'title' => __('Network', 'cryptocheckout-for-woocommerce'),
                'type' => 'select',
                'description' => __('The chain your wallet receives on.', 'cryptocheckout-for-woocommerce'),
                'default' => SettingsValidator::DEFAULT_NETWORK,
                'options' => $networks,
            ],
            'wallet_currency' => [
                'title' => __('Settlement asset', 'cryptocheckout-for-woocommerce'),
                'type' => 'select',
                'description' => __('What you receive, whatever the buyer pays with. USDC is recommended.', 'cryptocheckout-for-woocommerce'),
                'default' => SettingsValidator::DEFAULT_ASSET,
                'options' => $assets,
            ],
            'wallet_address' => [
                'title' => __('Wallet address', 'cryptocheckout-for-woocommerce'),
                'type' => 'text',
                'description' => __('Your receiving address on the network above. It is checked before it is saved.', 'cryptocheckout-for-woocommerce'),
                'default' => '',
                'custom_attributes' => ['autocomplete' => 'off', 'spellcheck' => 'false'],
            ],
            'checkout_display' => [
                'title' => __('Checkout display', 'cryptocheckout-for-woocommerce'),
                'type' => 'select',
                'default' => 'redirect',
                'options' => [
                    'redirect' => __('Redirect to the payment page', 'cryptocheckout-for-woocommerce'),
                    'modal' => __('Payment window over the shop', 'cryptocheckout-for-woocommerce'),
                ],
            ],
            'debug' => [
                'title' => __('Debug log', 'cryptocheckout-for-woocommerce'),
                'type' => 'checkbox',
                'label' => __('Log every call and decision (WooCommerce > Status > Logs, source "cryptocheckout")', 'cryptocheckout-for-woocommerce'),
                'default' => 'no',
            ],
        ];
    }

    /** @var string[] the fields the settings form refused in this save */
    private array $refusedFields = [];

    /** Set when a save left network, asset and wallet as they were because one of them was refused. */
    private bool $walletFieldsKept = false;

    /**
     * One field checked for the settings form; a refusal is remembered, so network, asset and
     * wallet are then all kept as they were (see process_admin_options).
     *
     * @throws \Exception
     */
    private function checkField(string $field, string $value, bool $againstNetwork = false): string
    {
        try {
            return SettingsValidator::check($field, $value, $againstNetwork ? $this->postedNetwork() : '');
        } catch (\Exception $exception) {
            $this->refusedFields[] = $field;
            throw $exception;
        }
    }

    /** The network posted with the form (checked), so the asset and the address are checked against it. */
    private function postedNetwork(): string
    {
        $posted = $this->get_post_data();
        $key = $this->get_field_key('wallet_network');
        $value = isset($posted[$key]) ? sanitize_text_field(wp_unslash((string) $posted[$key])) : (string) $this->get_option('wallet_network');
        return SettingsValidator::check(SettingsRules::NETWORK, $value);
    }

    /**
     * Not run through sanitize_text_field: the kernel's rules check the whole value (a URL with
     * blanks or control characters inside is refused, not silently changed).
     *
     * @param string $key
     * @param string|null $value
     * @throws \Exception
     */
    public function validate_service_url_field($key, $value): string
    {
        return $this->checkField(SettingsRules::SERVICE_URL, wp_unslash((string) $value));
    }

    /**
     * @param string $key
     * @param string|null $value
     * @throws \Exception
     */
    public function validate_wallet_network_field($key, $value): string
    {
        return $this->checkField(SettingsRules::NETWORK, sanitize_text_field(wp_unslash((string) $value)));
    }

    /**
     * @param string $key
     * @param string|null $value
     * @throws \Exception
     */
    public function validate_wallet_currency_field($key, $value): string
    {
        return $this->checkField(SettingsRules::ASSET, sanitize_text_field(wp_unslash((string) $value)), true);
    }

    /**
     * Not run through sanitize_text_field: it would silently strip the invisible characters the
     * kernel's rules report by name.
     *
     * @param string $key
     * @param string|null $value
     * @throws \Exception
     */
    public function validate_wallet_address_field($key, $value): string
    {
        return $this->checkField(SettingsRules::WALLET, wp_unslash((string) $value), true);
    }

    /**
     * @param string $key
     * @param string|null $value
     * @throws \Exception
     */
    public function validate_checkout_display_field($key, $value): string
    {
        return SettingsValidator::checkoutDisplay(sanitize_key((string) $value));
    }

    /**
     * WooCommerce's save keeps every field that passed its own check, which alone could store a new
     * network next to the old wallet of another chain. Network, asset and wallet are therefore
     * saved together: when one of them is refused, all three keep their stored values. Then the
     * saved service URL is probed, and a service that does not answer is reported next to the
     * other messages (the settings are still saved).
     */
    public function process_admin_options()
    {
        $stored = get_option($this->get_option_key(), []);
        $stored = is_array($stored) ? $stored : [];
        $this->refusedFields = [];
        $this->walletFieldsKept = false;
        $keepTogether = function ($settings) use ($stored) {
            return $this->keepWalletFieldsTogether($settings, $stored);
        };
        add_filter('woocommerce_settings_api_sanitized_fields_' . $this->id, $keepTogether, 1);
        try {
            $saved = parent::process_admin_options();
        } finally {
            remove_filter('woocommerce_settings_api_sanitized_fields_' . $this->id, $keepTogether, 1);
        }
        // What was stored, not what the form posted (the three may have been kept).
        $this->init_settings();
        $this->errors = array_values(array_unique($this->get_errors()));
        $messages = $this->get_errors();
        if ($this->walletFieldsKept) {
            $messages[] = __('Network, settlement asset and wallet address were left as they were: they are saved together, once all three fit each other.', 'cryptocheckout-for-woocommerce');
        }
        $serviceUrl = (string) $this->get_option('service_url');
        if ($serviceUrl !== '') {
            $probe = ServiceStatus::check($serviceUrl, true);
            if (!$probe['reachable']) {
                $messages[] = sprintf(
                    /* translators: %s: what the check of the service found, naming the URL */
                    __('Settings saved, but the service does not answer as it should. %s', 'cryptocheckout-for-woocommerce'),
                    $probe['message']
                );
                Logger::fromSettings()->log('warning', 'Service check after saving the settings: ' . $probe['message'], ['problem' => $probe['problem']]);
            }
        }
        if ($messages !== []) {
            if (class_exists('WC_Admin_Settings')) {
                foreach ($messages as $message) {
                    \WC_Admin_Settings::add_error($message);
                }
            } else {
                add_action('admin_notices', [$this, 'display_errors']);
            }
        }
        $this->enabled = (string) $this->get_option('enabled');
        $this->title = (string) $this->get_option('title');
        $this->description = (string) $this->get_option('description');
        return $saved;
    }

    /**
     * The settings as WooCommerce is about to store them, with network, asset and wallet put back
     * to their stored values when the form refused one of them or they do not fit together.
     *
     * @param mixed $settings
     * @param array<string, mixed> $stored
     * @return mixed
     */
    private function keepWalletFieldsTogether($settings, array $stored)
    {
        if (!is_array($settings)) {
            return $settings;
        }
        $refused = array_intersect($this->refusedFields, SettingsValidator::WALLET_FIELDS) !== []
            || array_intersect_key(SettingsValidator::refusedChanges($settings, $stored), array_flip(SettingsValidator::WALLET_FIELDS)) !== [];
        if (!$refused) {
            return $settings;
        }
        $before = $stored + SettingsValidator::defaults();
        foreach (SettingsValidator::WALLET_FIELDS as $field) {
            $settings[$field] = $before[$field];
        }
        $this->walletFieldsKept = true;
        return $settings;
    }

    /** The settings page, with whether the service answers under the service URL field (checked at most once a minute). */
    public function admin_options()
    {
        $serviceUrl = (string) $this->get_option('service_url');
        if ($serviceUrl !== '' && isset($this->form_fields['service_url']) && current_user_can('manage_woocommerce')) {
            $this->form_fields['service_url']['description'] = trim(
                (string) ($this->form_fields['service_url']['description'] ?? '') . ' ' . ServiceStatus::describe(ServiceStatus::check($serviceUrl))
            );
        }
        parent::admin_options();
    }

    /**
     * The saved settings the service needs, in canonical form, or null when any of them is missing
     * or they cannot take payments together (the kernel's SettingsRules: e.g. a wallet of another
     * chain than the network, stored by an older version or by hand).
     *
     * @return array{service_url: string, wallet_address: string, wallet_currency: string, wallet_network: string}|null
     */
    public function serviceConfig(): ?array
    {
        $checked = SettingsValidator::validateTogether([
            'service_url' => (string) $this->get_option('service_url'),
            'wallet_address' => (string) $this->get_option('wallet_address'),
            'wallet_currency' => (string) $this->get_option('wallet_currency', SettingsValidator::DEFAULT_ASSET),
            'wallet_network' => (string) $this->get_option('wallet_network', SettingsValidator::DEFAULT_NETWORK),
        ]);
        if ($checked['errors'] !== []) {
            return null;
        }
        $values = $checked['values'];
        return [
            'service_url' => $values[SettingsRules::SERVICE_URL],
            'wallet_address' => $values[SettingsRules::WALLET],
            'wallet_currency' => $values[SettingsRules::ASSET],
            'wallet_network' => $values[SettingsRules::NETWORK],
        ];
    }

    public function is_available()
    {
        if (!parent::is_available() || $this->serviceConfig() === null) {
            return false;
        }
        return Money::isSupportedCurrency((string) get_woocommerce_currency());
    }

    public function usesModal(): bool
    {
        return $this->get_option('checkout_display') === 'modal';
    }

    /**
     * @param int $order_id
     * @return array{result: string, redirect?: string}
     */
    public function process_payment($order_id)
    {
        $logger = Logger::fromSettings();
        $order = wc_get_order($order_id);
        if (!$order instanceof \WC_Order) {
            wc_add_notice(__('The order could not be found. Please try again.', 'cryptocheckout-for-woocommerce'), 'error');
            return ['result' => 'failure'];
        }
        $config = $this->serviceConfig();
        if ($config === null) {
            $logger->error(sprintf('Order %d: Crypto Checkout is not configured (service URL, wallet address, asset and network are all needed).', $order->get_id()));
            wc_add_notice(self::unavailableNotice(), 'error');
            return ['result' => 'failure'];
        }

        $returnUrl = $this->get_return_url($order);
        try {
            $opened = CheckoutStarter::start($order, $config, $returnUrl, $order->get_cancel_order_url_raw());
        } catch (NoRailAvailableException $exception) {
            return self::refuseAmount($order, $exception, $logger);
        } catch (CryptoCheckoutException $exception) {
            $logger->error(sprintf('Order %d: the checkout could not be created: %s', $order->get_id(), self::describe($exception)));
            $order->add_order_note(sprintf(
                /* translators: %s: error from the payment service */
                __('Crypto Checkout: the payment could not be started (%s). The order is still pending.', 'cryptocheckout-for-woocommerce'),
                self::describe($exception)
            ));
            wc_add_notice(self::buyerNotice($exception), 'error');
            return ['result' => 'failure'];
        } catch (\Throwable $exception) {
            $logger->error(sprintf('Order %d: the checkout could not be created: %s', $order->get_id(), $exception->getMessage()));
            wc_add_notice(self::unavailableNotice(), 'error');
            return ['result' => 'failure'];
        }

        $checkout = $opened['checkout'];
        if ($opened['result'] === CheckoutOpener::RESULT_BUSY) {
            wc_add_notice(__('The payment for this order is being prepared in another window. Please try again in a moment.', 'cryptocheckout-for-woocommerce'), 'error');
            return ['result' => 'failure'];
        }
        if (function_exists('WC') && WC()->cart) {
            WC()->cart->empty_cart();
        }
        $payable = in_array($opened['result'], [CheckoutOpener::RESULT_CREATED, CheckoutOpener::RESULT_REUSED], true) && $checkout !== null;
        if (!$payable) {
            // Paid already, or money arrived that a new checkout must not ask for again: the
            // order-received page shows where the payment stands.
            return ['result' => 'success', 'redirect' => $returnUrl];
        }
        if ($this->usesModal()) {
            // The order-received page opens the payment window and follows the payment.
            return ['result' => 'success', 'redirect' => add_query_arg(self::PAY_QUERY_ARG, '1', $returnUrl)];
        }
        return ['result' => 'success', 'redirect' => $checkout->checkoutUrl];
    }

    private static function describe(CryptoCheckoutException $exception): string
    {
        if ($exception instanceof ApiException) {
            return sprintf(
                '%s %s%s',
                $exception->getErrorCode(),
                $exception->getMessage(),
                $exception->getField() !== null ? ' [field ' . $exception->getField() . ']' : ''
            );
        }
        return get_class($exception) . ': ' . $exception->getMessage();
    }

    private static function buyerNotice(CryptoCheckoutException $exception): string
    {
        if ($exception instanceof NetworkException || ($exception instanceof ApiException && $exception->getHttpStatus() >= 500)) {
            return __('The crypto payment service is not reachable right now. Your order is saved: please try again in a few minutes, or choose another payment method.', 'cryptocheckout-for-woocommerce');
        }
        if ($exception instanceof ApiException && $exception->getErrorCode() === 'unprocessable') {
            return self::outsideBoundsNotice();
        }
        return self::unavailableNotice();
    }

    /**
     * No rail of the service takes the order's total (the kernel asked GET /payment_options before
     * creating anything): the buyer is asked to choose another method here rather than sent to a
     * payment page that offers nothing; the order stays pending, and the owner reads why in the
     * note and the log.
     *
     * @return array{result: string}
     */
    private static function refuseAmount(\WC_Order $order, NoRailAvailableException $refusal, Logger $logger): array
    {
        $total = $refusal->getFiatAmount() . ' ' . $refusal->getFiatCurrency();
        $logger->log('warning', sprintf('Order %d: %s The buyer was asked to choose another payment method.', $order->get_id(), $refusal->getMessage()));
        $order->add_order_note(sprintf(
            /* translators: 1: order total and currency, 2: smallest amount any payment option takes, in USD */
            __('Crypto Checkout: no payment option takes %1$s (the smallest accepted amount is %2$s USD). The buyer was asked to choose another payment method; the order is still pending.', 'cryptocheckout-for-woocommerce'),
            $total,
            $refusal->getSmallestMinimumUsd() ?? '?'
        ));
        $notice = self::outsideBoundsNotice();
        if ($refusal->isBelowMinimum()) {
            /* translators: %s: order total and currency, e.g. 0.10 EUR */
            $notice = sprintf(__('This order\'s total is below what crypto payment accepts (%s is too small). Please choose another payment method.', 'cryptocheckout-for-woocommerce'), $total);
        }
        wc_add_notice($notice, 'error');
        return ['result' => 'failure'];
    }

    private static function outsideBoundsNotice(): string
    {
        return __('This order cannot be paid with crypto (the amount is outside what the payment service accepts). Please choose another payment method.', 'cryptocheckout-for-woocommerce');
    }

    private static function unavailableNotice(): string
    {
        return __('Crypto payment is not available for this order right now. Please choose another payment method or contact the shop.', 'cryptocheckout-for-woocommerce');
    }
}
