<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Gateway;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Admin\MerchantKeyField;
use CryptoCheckout\WooCommerce\Admin\Settings;
use CryptoCheckout\WooCommerce\Helper\Kernel;
use CryptoCheckout\WooCommerce\Plugin;
use CryptoCheckout\WooCommerce\Vendor\Client\Exception\NoRailAvailableException;
use CryptoCheckout\WooCommerce\Vendor\Client\Exception\SettlementUnavailableException;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\CheckoutOpener;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\ServiceProbe;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\SettingsRules;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\StartProblem;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\StoredCheckout;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\WalletCheck;
use CryptoCheckout\WooCommerce\Vendor\Client\Money;
use CryptoCheckout\WooCommerce\Vendor\Client\Wallet\Networks;

/**
 * The "Crypto Checkout" payment method of the classic checkout (the block checkout reaches it
 * through Blocks\PaymentMethod): its settings form, "Place order" / "pay for order", which open
 * the order's checkout through the kernel, and WooCommerce's refund action (Refunds). Stock is
 * WooCommerce's, as for any off-site gateway.
 */
class Gateway extends \WC_Payment_Gateway
{
    public const ID = 'cryptocheckout';
    public const PAY_QUERY_ARG = 'cryptocheckout-pay';

    /** Set when a save left network, asset and wallet as they were because one of them was refused. */
    private bool $walletFieldsKept = false;

    /**
     * What the service said of the Bitcoin wallet being saved (the kernel's checkWallet()), shown once
     * the settings are saved; null when it was not asked.
     *
     * @var array<string, mixed>|null
     */
    private ?array $walletCheck = null;

    public function __construct()
    {
        $this->id = self::ID;
        $this->has_fields = false;
        $this->method_title = __('Crypto Checkout', 'cryptocheckout-for-woocommerce');
        $this->method_description = __('Take crypto payments settled to your own wallet. Buyers pay on the Crypto Checkout page with the coin and network of their choice.', 'cryptocheckout-for-woocommerce');
        $this->order_button_text = __('Pay with crypto', 'cryptocheckout-for-woocommerce');
        $this->supports = ['products', 'refunds'];
        $this->init_form_fields();
        $this->loadSettings();
        add_action('woocommerce_update_options_payment_gateways_' . $this->id, [$this, 'process_admin_options']);
    }

    public function init_form_fields()
    {
        $assets = array_unique(array_merge(...array_values(Settings::assetsByNetwork())));
        sort($assets);
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
            SettingsRules::SERVICE_URL => [
                'title' => __('Service URL', 'cryptocheckout-for-woocommerce'),
                'type' => 'text',
                'description' => __('Address of the Crypto Checkout service, for example https://pay.example.com.', 'cryptocheckout-for-woocommerce'),
                'default' => SettingsRules::DEFAULTS[SettingsRules::SERVICE_URL],
                'placeholder' => 'https://pay.example.com',
            ],
            SettingsRules::NETWORK => [
                'title' => __('Network', 'cryptocheckout-for-woocommerce'),
                'type' => 'select',
                'description' => __('The chain your wallet receives on.', 'cryptocheckout-for-woocommerce'),
                'default' => SettingsRules::DEFAULTS[SettingsRules::NETWORK],
                'options' => array_column(Networks::all(), 'name', 'id'),
            ],
            SettingsRules::ASSET => [
                'title' => __('Settlement asset', 'cryptocheckout-for-woocommerce'),
                'type' => 'select',
                'description' => __('What you receive, whatever the buyer pays with. USDC is recommended.', 'cryptocheckout-for-woocommerce'),
                'default' => SettingsRules::DEFAULTS[SettingsRules::ASSET],
                'options' => array_combine($assets, $assets),
            ],
            SettingsRules::WALLET => [
                'title' => __('Wallet address', 'cryptocheckout-for-woocommerce'),
                'type' => 'text',
                'description' => __('Your receiving address on the network above. It is checked before it is saved.', 'cryptocheckout-for-woocommerce')
                    . ' ' . __('On Solana, enter your wallet address, not a token account. Tokens go to your wallet\'s associated token account; the buyer\'s wallet creates it when missing, as Solana Pay wallets do.', 'cryptocheckout-for-woocommerce')
                    . ' ' . __('On Bitcoin, enter an address or, better, your wallet\'s extended public key: a zpub (recommended), an xpub or ypub, or a descriptor such as wpkh(…), sh(wpkh(…)) or tr(…). Public keys only: the service can never spend from them. With a key, each order gets its own receive address; saving shows the first ones to compare with your wallet.', 'cryptocheckout-for-woocommerce'),
                'default' => SettingsRules::DEFAULTS[SettingsRules::WALLET],
                'custom_attributes' => ['autocomplete' => 'off', 'spellcheck' => 'false'],
            ],
            MerchantKeyField::KEY => MerchantKeyField::formField(),
            'checkout_display' => [
                'title' => __('Checkout display', 'cryptocheckout-for-woocommerce'),
                'type' => 'select',
                'default' => SettingsRules::DEFAULTS[SettingsRules::DISPLAY_MODE],
                'options' => [
                    SettingsRules::DISPLAY_REDIRECT => __('Redirect to the payment page', 'cryptocheckout-for-woocommerce'),
                    SettingsRules::DISPLAY_MODAL => __('Payment window over the shop', 'cryptocheckout-for-woocommerce'),
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

    /**
     * WooCommerce's save checks each field by its type only; the kernel's rules check the settings
     * together before they are stored: a refused value keeps its stored one, and network, asset and
     * wallet are kept together. A Bitcoin wallet is also put to the service (the kernel's
     * checkWallet()): one it refuses is refused like any other, otherwise the notice says what the
     * service makes of it (an extended key's first receive addresses). Then the saved service URL is
     * probed; one that does not answer is reported with the other messages (the settings are saved
     * all the same).
     */
    public function process_admin_options()
    {
        $stored = get_option($this->get_option_key(), []);
        $stored = (is_array($stored) ? $stored : []) + SettingsRules::DEFAULTS + ['checkout_display' => SettingsRules::DISPLAY_REDIRECT];
        $this->walletFieldsKept = false;
        $this->walletCheck = null;
        $check = fn ($settings) => is_array($settings) ? $this->checkSettings($settings, $stored) : $settings;
        add_filter('woocommerce_settings_api_sanitized_fields_' . $this->id, $check, 1);
        try {
            $saved = parent::process_admin_options();
        } finally {
            remove_filter('woocommerce_settings_api_sanitized_fields_' . $this->id, $check, 1);
        }
        $this->loadSettings();
        $messages = $this->get_errors();
        if ($this->walletFieldsKept) {
            $messages[] = __('Network, settlement asset and wallet address were left as they were: they are saved together, once all three fit each other.', 'cryptocheckout-for-woocommerce');
        } elseif ($this->walletCheck !== null && $this->walletCheck['result'] === WalletCheck::RESULT_UNAVAILABLE) {
            // Saved, but the addresses could not be shown: a warning with the others, and in the log.
            $messages[] = (string) $this->walletCheck['message'];
            Kernel::log('warning', 'Wallet check after saving the settings: ' . $this->walletCheck['message'], ['problem' => (string) $this->walletCheck['problem']]);
        } elseif ($this->walletCheck !== null && in_array($this->walletCheck['result'], [WalletCheck::RESULT_EXTENDED_KEY, WalletCheck::RESULT_ADDRESS], true)) {
            // WooCommerce prints its settings messages escaped (WC_Admin_Settings::show_messages()).
            \WC_Admin_Settings::add_message((string) $this->walletCheck['message']);
        }
        $serviceUrl = (string) $this->get_option(SettingsRules::SERVICE_URL);
        $probe = $serviceUrl === '' ? null : Kernel::get()->probe($serviceUrl, true, ServiceProbe::TIMEOUT_SECONDS, $this->serviceConfig() ?? []);
        if ($probe !== null && !$probe['reachable']) {
            /* translators: %s: what the check of the service found, naming the URL */
            $messages[] = sprintf(__('Settings saved, but the service does not answer as it should. %s', 'cryptocheckout-for-woocommerce'), $probe['message']);
            Kernel::log('warning', 'Service check after saving the settings: ' . $probe['message'], ['problem' => $probe['problem']]);
        } elseif ($probe !== null && $probe['offered'] === false) {
            /* translators: %s: the service's answer, naming the URL, the settlement and why it is not offered */
            $messages[] = sprintf(__('Settings saved, but buyers cannot pay with crypto yet. %s', 'cryptocheckout-for-woocommerce'), $probe['message']);
            Kernel::log('warning', 'Service check after saving the settings: ' . $probe['message'], ['problem' => $probe['problem']]);
        }
        array_map(['WC_Admin_Settings', 'add_error'], $messages);
        return $saved;
    }

    /** The stored settings, what was saved rather than what the form posted. */
    private function loadSettings(): void
    {
        $this->init_settings();
        $this->enabled = (string) $this->get_option('enabled');
        $this->title = (string) $this->get_option('title');
        $this->description = (string) $this->get_option('description');
    }

    /**
     * @param array<string, mixed> $settings as WooCommerce is about to store them
     * @param array<string, mixed> $stored
     * @return array<string, mixed> each error shown, refused values put back, accepted ones in canonical form
     */
    private function checkSettings(array $settings, array $stored): array
    {
        $checked = Settings::validate($settings);
        $refused = array_keys($checked['errors']);
        // A Bitcoin wallet the rules take goes to the service being saved; its refusal refuses it too.
        if (array_intersect($refused, array_merge([SettingsRules::SERVICE_URL], Settings::WALLET_FIELDS)) === []) {
            $check = self::checkWallet($checked['values']);
            if ($check !== null && $check['result'] === WalletCheck::RESULT_REFUSED) {
                $checked['errors'][(string) $check['field']] = (string) $check['message'];
                $refused[] = (string) $check['field'];
            }
            $this->walletCheck = $check;
        }
        array_map([$this, 'add_error'], array_values($checked['errors']));
        $this->walletFieldsKept = array_intersect($refused, Settings::WALLET_FIELDS) !== [];
        foreach (SettingsRules::FIELDS as $field) {
            $keep = in_array($field, $refused, true) || ($this->walletFieldsKept && in_array($field, Settings::WALLET_FIELDS, true));
            $settings[$field] = $keep ? $stored[$field] : $checked['values'][$field];
        }
        try {
            $settings['checkout_display'] = SettingsRules::displayMode($settings['checkout_display'] ?? '', [Kernel::class, 'translate']);
        } catch (\Exception $refusedDisplay) {
            $this->add_error($refusedDisplay->getMessage());
            $settings['checkout_display'] = $stored['checkout_display'];
        }
        return $settings;
    }

    /**
     * The service's word on a Bitcoin wallet about to be saved (the kernel's checkWallet(), at most
     * WalletCheck::TIMEOUT_SECONDS), or null for a wallet on another network.
     *
     * @param array<string, string> $values the settings as SettingsRules cleaned them
     * @return array<string, mixed>|null
     */
    private static function checkWallet(array $values): ?array
    {
        if (!WalletCheck::applies($values[SettingsRules::NETWORK])) {
            return null;
        }
        return Kernel::get()->checkWallet($values[SettingsRules::SERVICE_URL], $values[SettingsRules::NETWORK], $values[SettingsRules::WALLET]);
    }

    /**
     * The merchant key's row: never the key itself (MerchantKeyField). WooCommerce renders a field
     * of type "password" with this method.
     *
     * @param string $key
     * @param array<string, mixed> $data
     */
    public function generate_password_html($key, $data)
    {
        return MerchantKeyField::render($this->get_field_key($key), (array) $data, (string) $this->get_option($key, ''));
    }

    /**
     * The merchant key from the form: empty keeps the saved key, the remove box clears it, a key
     * that cannot be one is refused with a message (WooCommerce keeps the saved key).
     *
     * @param string $key
     * @param mixed $value
     */
    public function validate_merchant_key_field($key, $value)
    {
        $posted = $this->get_post_data();
        $remove = !empty($posted[$this->get_field_key($key) . MerchantKeyField::REMOVE_SUFFIX]);
        return MerchantKeyField::fromForm($value, (string) $this->get_option($key, ''), $remove);
    }

    /**
     * WooCommerce's refund action, after it saved its refund of $amount (the order's currency):
     * starts the Crypto Checkout refund (Refunds::start()). True once the service holds the refund
     * and the buyer was sent the claim link; a WP_Error saying why otherwise, and WooCommerce then
     * deletes its refund.
     *
     * @param int $order_id
     * @param float|string|null $amount
     * @param string $reason
     * @return bool|\WP_Error
     */
    public function process_refund($order_id, $amount = null, $reason = '')
    {
        $order = wc_get_order($order_id);
        if (!$order instanceof \WC_Order) {
            return new \WP_Error(Refunds::ERROR_CODE, __('The order could not be found. Nothing was refunded.', 'cryptocheckout-for-woocommerce'));
        }
        return Refunds::start($order, $amount, (string) $reason, (string) $this->get_option(MerchantKeyField::KEY, ''));
    }

    /** The order screen offers "Refund via Crypto Checkout" for an order the service settled. */
    public function can_refund_order($order)
    {
        return $order instanceof \WC_Order && $this->supports('refunds') && Refunds::canRefund($order);
    }

    /**
     * The settings page, with whether the service answers under the service URL field, and whether
     * it offers the saved settlement (checked at most once a minute).
     */
    public function admin_options()
    {
        $serviceUrl = (string) $this->get_option(SettingsRules::SERVICE_URL);
        if ($serviceUrl !== '' && isset($this->form_fields[SettingsRules::SERVICE_URL]) && current_user_can('manage_woocommerce')) {
            $probe = Kernel::get()->probe($serviceUrl, false, ServiceProbe::TIMEOUT_SECONDS, $this->serviceConfig() ?? []);
            $notOffered = $probe['reachable'] && $probe['offered'] === false;
            $this->form_fields[SettingsRules::SERVICE_URL]['description'] = trim(sprintf(
                '%s <span class="cryptocheckout-service-state" data-state="%s"><strong>%s</strong> %s %s</span>',
                (string) ($this->form_fields[SettingsRules::SERVICE_URL]['description'] ?? ''),
                esc_attr($notOffered ? 'not_offered' : ($probe['reachable'] ? 'reachable' : 'unreachable')),
                esc_html($notOffered
                    ? __('Service reachable, but your settlement is not offered.', 'cryptocheckout-for-woocommerce')
                    : ($probe['reachable'] ? __('Service reachable.', 'cryptocheckout-for-woocommerce') : __('Service unreachable.', 'cryptocheckout-for-woocommerce'))),
                esc_html($probe['message']),
                /* translators: %s: time of the check */
                esc_html(sprintf(__('Checked at %s.', 'cryptocheckout-for-woocommerce'), wp_date((string) get_option('time_format', 'H:i'), (int) $probe['checked_at'])))
            ));
        }
        parent::admin_options();
    }

    /**
     * The saved settings the service needs, in canonical form, or null when they cannot take
     * payments together (e.g. a wallet of another chain, stored by an older version or by hand).
     *
     * @return array{service_url: string, wallet_address: string, wallet_currency: string, wallet_network: string}|null
     */
    public function serviceConfig(): ?array
    {
        $settings = [];
        foreach (SettingsRules::FIELDS as $field) {
            $settings[$field] = (string) $this->get_option($field, SettingsRules::DEFAULTS[$field]);
        }
        $checked = Settings::validate($settings);
        return $checked['errors'] === [] ? array_intersect_key($checked['values'], array_flip(SettingsRules::FIELDS)) : null;
    }

    public function is_available()
    {
        return parent::is_available() && $this->serviceConfig() !== null && Money::isSupportedCurrency((string) get_woocommerce_currency());
    }

    /**
     * Opens the order's checkout (the kernel reuses the open one) and sends the buyer to it; when it
     * cannot, the buyer is told why, the order stays pending, and the owner reads why in the notes and the log.
     *
     * @param int $order_id
     * @return array{result: string, redirect?: string}
     */
    public function process_payment($order_id)
    {
        $order = wc_get_order($order_id);
        $config = $this->serviceConfig();
        if (!$order instanceof \WC_Order || $config === null) {
            Kernel::log('error', sprintf('Order %d: Crypto Checkout is not configured (service URL, wallet address, asset and network are all needed), or the order is missing.', (int) $order_id));
            wc_add_notice(StartProblem::forBuyer('unavailable', [Kernel::class, 'translate']), 'error');
            return ['result' => 'failure'];
        }
        $orderId = (string) $order->get_id();
        $kernel = Kernel::get($orderId);
        $earlier = $kernel->checkouts($orderId)[0] ?? null;
        $returnUrl = $this->get_return_url($order);
        try {
            $opened = $kernel->open($orderId, $config + [
                'fiat_amount' => (string) $order->get_total(),
                'fiat_currency' => (string) $order->get_currency(),
                'external_reference' => $orderId,
                'webhook_url' => Plugin::webhookUrl(),
                'success_url' => $returnUrl,
                'cancel_url' => $order->get_cancel_order_url_raw(),
            ]);
        } catch (\Throwable $problem) {
            self::noteStartProblem($order, $problem);
            wc_add_notice(StartProblem::forBuyer($problem, [Kernel::class, 'translate']), 'error');
            return ['result' => 'failure'];
        }
        if ($opened['result'] === CheckoutOpener::RESULT_BUSY) {
            wc_add_notice(StartProblem::forBuyer(CheckoutOpener::RESULT_BUSY, [Kernel::class, 'translate']), 'error');
            return ['result' => 'failure'];
        }
        $checkout = $opened['checkout'];
        if ($opened['result'] === CheckoutOpener::RESULT_CREATED && $checkout !== null) {
            self::noteCreated($order, $checkout, $earlier);
        }
        if (WC()->cart) {
            WC()->cart->empty_cart();
        }
        if (!in_array($opened['result'], [CheckoutOpener::RESULT_CREATED, CheckoutOpener::RESULT_REUSED], true) || $checkout === null) {
            // Paid already, or money arrived that another checkout must not ask for again.
            return ['result' => 'success', 'redirect' => $returnUrl];
        }
        // In the "payment window" display, the order-received page opens the payment over the shop.
        $modal = $this->get_option('checkout_display') === SettingsRules::DISPLAY_MODAL;
        return ['result' => 'success', 'redirect' => $modal ? add_query_arg(self::PAY_QUERY_ARG, '1', $returnUrl) : $checkout->checkoutUrl];
    }

    private static function noteCreated(\WC_Order $order, StoredCheckout $created, ?StoredCheckout $earlier): void
    {
        /* translators: 1: transaction code, 2: amount, 3: currency */
        $note = sprintf(__('Crypto Checkout: transaction %1$s created for %2$s %3$s; awaiting payment.', 'cryptocheckout-for-woocommerce'), $created->transactionCode, $created->fiatAmount, $created->fiatCurrency);
        if ($earlier !== null) {
            /* translators: 1: earlier transaction code, 2: its amount, 3: its currency */
            $note .= ' ' . sprintf(__('Transaction %1$s (%2$s %3$s) stays payable until it expires; a payment on it is put before you for review.', 'cryptocheckout-for-woocommerce'), $earlier->transactionCode, $earlier->fiatAmount, $earlier->fiatCurrency);
        }
        $order->add_order_note($note);
    }

    /**
     * Why no checkout was opened, for the owner: a total no payment option takes is a warning, a
     * settlement the service does not offer (with its reason) and anything else an error.
     */
    private static function noteStartProblem(\WC_Order $order, \Throwable $problem): void
    {
        $reason = StartProblem::forOwner($problem);
        if ($problem instanceof SettlementUnavailableException) {
            Kernel::log('error', sprintf('Order %d: %s The buyer was asked to try again later or choose another payment method.', $order->get_id(), $reason));
            $order->add_order_note(sprintf(
                /* translators: 1: settlement asset, 2: its network, 3: the service's reason (its own words) */
                __('Crypto Checkout: the service does not offer payment in %1$s on %2$s right now: %3$s The buyer was asked to try again later or choose another payment method; the order is still pending.', 'cryptocheckout-for-woocommerce'),
                $problem->getAsset(),
                $problem->getNetworkName(),
                $problem->getReason()
            ));
            return;
        }
        if ($problem instanceof NoRailAvailableException) {
            Kernel::log('warning', sprintf('Order %d: %s The buyer was asked to choose another payment method.', $order->get_id(), $reason));
            $order->add_order_note(sprintf(
                /* translators: 1: order total and currency, 2: smallest amount any payment option takes, in USD */
                __('Crypto Checkout: no payment option takes %1$s (the smallest accepted amount is %2$s USD). The buyer was asked to choose another payment method; the order is still pending.', 'cryptocheckout-for-woocommerce'),
                $problem->getFiatAmount() . ' ' . $problem->getFiatCurrency(),
                $problem->getSmallestMinimumUsd() ?? '?'
            ));
            return;
        }
        Kernel::log('error', sprintf('Order %d: the checkout could not be created: %s', $order->get_id(), $reason));
        /* translators: %s: error from the payment service */
        $order->add_order_note(sprintf(__('Crypto Checkout: the payment could not be started (%s). The order is still pending.', 'cryptocheckout-for-woocommerce'), $reason));
    }
}
