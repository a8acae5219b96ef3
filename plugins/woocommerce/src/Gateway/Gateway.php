<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Gateway;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Admin\SettingsValidator;
use CryptoCheckout\WooCommerce\Helper\Logger;
use CryptoCheckout\WooCommerce\Vendor\Client\Exception\ApiException;
use CryptoCheckout\WooCommerce\Vendor\Client\Exception\CryptoCheckoutException;
use CryptoCheckout\WooCommerce\Vendor\Client\Exception\NetworkException;
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
        return SettingsValidator::check(SettingsRules::SERVICE_URL, wp_unslash((string) $value));
    }

    /**
     * @param string $key
     * @param string|null $value
     * @throws \Exception
     */
    public function validate_wallet_network_field($key, $value): string
    {
        return SettingsValidator::check(SettingsRules::NETWORK, sanitize_text_field(wp_unslash((string) $value)));
    }

    /**
     * @param string $key
     * @param string|null $value
     * @throws \Exception
     */
    public function validate_wallet_currency_field($key, $value): string
    {
        return SettingsValidator::check(SettingsRules::ASSET, sanitize_text_field(wp_unslash((string) $value)), $this->postedNetwork());
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
        return SettingsValidator::check(SettingsRules::WALLET, wp_unslash((string) $value), $this->postedNetwork());
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

    public function process_admin_options()
    {
        $saved = parent::process_admin_options();
        if ($this->get_errors() !== []) {
            if (class_exists('WC_Admin_Settings')) {
                foreach ($this->get_errors() as $error) {
                    \WC_Admin_Settings::add_error($error);
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
     * The saved settings the service needs, or null when any of them is missing.
     *
     * @return array{service_url: string, wallet_address: string, wallet_currency: string, wallet_network: string}|null
     */
    public function serviceConfig(): ?array
    {
        $config = [
            'service_url' => (string) $this->get_option('service_url'),
            'wallet_address' => (string) $this->get_option('wallet_address'),
            'wallet_currency' => (string) $this->get_option('wallet_currency', SettingsValidator::DEFAULT_ASSET),
            'wallet_network' => (string) $this->get_option('wallet_network', SettingsValidator::DEFAULT_NETWORK),
        ];
        foreach ($config as $value) {
            if ($value === '') {
                return null;
            }
        }
        return $config;
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
            return __('This order cannot be paid with crypto (the amount is outside what the payment service accepts). Please choose another payment method.', 'cryptocheckout-for-woocommerce');
        }
        return self::unavailableNotice();
    }

    private static function unavailableNotice(): string
    {
        return __('Crypto payment is not available for this order right now. Please choose another payment method or contact the shop.', 'cryptocheckout-for-woocommerce');
    }
}
