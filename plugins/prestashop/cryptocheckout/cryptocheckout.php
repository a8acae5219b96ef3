<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * Accept crypto payments through a Crypto Checkout service, settled to the merchant's own wallet.
 *
 * As PrestaShop requires, the module class lives in the global namespace in a file named after the
 * module, and like PrestaShop's own modules this file does not declare strict_types; the classes
 * under src/ (CryptoCheckout\PrestaShop\…) do.
 *
 * @license MIT
 */

use CryptoCheckout\PrestaShop\CheckoutRepository;
use CryptoCheckout\PrestaShop\ClientFactory;
use CryptoCheckout\PrestaShop\OrderNotes;
use CryptoCheckout\PrestaShop\OrderStates;
use CryptoCheckout\PrestaShop\PrestaShopOrderPort;
use CryptoCheckout\PrestaShop\ServiceReachability;
use CryptoCheckout\PrestaShop\Settings;
use CryptoCheckout\PrestaShop\Vendor\Client\Exception\CryptoCheckoutException;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\BuyerStatus;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\CheckoutLabels;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\CheckoutOpener;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\OrderState;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\Runner;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\StatusWidgetMarkup;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\WebhookHandler;
use CryptoCheckout\PrestaShop\Vendor\Client\Money;
use CryptoCheckout\PrestaShop\Vendor\Client\Wallet\Networks;
use PrestaShop\PrestaShop\Core\Payment\PaymentOption;

if (!defined('_PS_VERSION_')) {
    exit;
}

require_once __DIR__ . '/vendor/cryptocheckout-client/autoload.php';
require_once __DIR__ . '/src/autoload.php';

class Cryptocheckout extends PaymentModule
{
    /** Hooks the module works through; install() registers them all. */
    const HOOKS = [
        'paymentOptions',
        'displayPaymentReturn',
        'displayOrderDetail',
        'displayAdminOrderMainBottom',
        'actionFrontControllerSetMedia',
    ];

    /** The oldest PHP the module's classes run on (PHP_VERSION_ID). */
    const MIN_PHP_VERSION_ID = 70400;

    /** Front pages that show the payment status widget. */
    const STATUS_PAGES = ['order-confirmation', 'order-detail', 'guest-tracking'];

    public function __construct()
    {
        $this->name = 'cryptocheckout';
        $this->tab = 'payments_gateways';
        $this->version = '1.2.0';
        $this->author = 'Crypto Checkout';
        $this->need_instance = 0;
        // PrestaShop 8.0 and 8.1 only: the module has not been run on PrestaShop 9.
        $this->ps_versions_compliancy = ['min' => '8.0.0', 'max' => '8.99.99'];
        $this->controllers = ['validation', 'webhook', 'status', 'poll'];
        $this->currencies = true;
        $this->currencies_mode = 'checkbox';
        $this->bootstrap = true;

        parent::__construct();

        $this->displayName = $this->trans('Crypto Checkout', [], 'Modules.Cryptocheckout.Admin');
        $this->description = $this->trans('Accept crypto payments, settled to your own wallet.', [], 'Modules.Cryptocheckout.Admin');
        $this->confirmUninstall = $this->trans('Uninstall Crypto Checkout? Its checkouts and settings are kept for a reinstall unless you switched on "Delete data on uninstall".', [], 'Modules.Cryptocheckout.Admin');
        if ($this->id && $this->active && !Settings::isComplete()) {
            $this->warning = $this->trans('Enter the service URL and your wallet before taking crypto payments.', [], 'Modules.Cryptocheckout.Admin');
        }
    }

    public function isUsingNewTranslationSystem()
    {
        return true;
    }

    public function install()
    {
        // PrestaShop 8.1 runs on PHP 7.2 and 7.3 too; the module's classes need 7.4.
        if (PHP_VERSION_ID < self::MIN_PHP_VERSION_ID) {
            $this->_errors[] = $this->trans('Crypto Checkout needs PHP 7.4 or later; this server runs PHP %version%.', ['%version%' => PHP_VERSION], 'Modules.Cryptocheckout.Admin');

            return false;
        }
        if (!parent::install() || !$this->registerHook(self::HOOKS)) {
            return false;
        }
        if (!(new CheckoutRepository())->install()) {
            return false;
        }
        foreach (Settings::defaults() as $key => $value) {
            if (!Configuration::hasKey($key)) {
                Configuration::updateValue($key, $value);
            }
        }
        if (!Configuration::get(Settings::POLL_TOKEN)) {
            Configuration::updateValue(Settings::POLL_TOKEN, bin2hex(random_bytes(24)));
        }

        return $this->installOrderStates();
    }

    /** Creates the module's order states unless they exist (install and upgrades). */
    public function installOrderStates()
    {
        return OrderStates::install($this->name, function ($text) {
            return $this->plainText($text, [], 'Modules.Cryptocheckout.Admin');
        });
    }

    /**
     * Keeps the checkouts, claims and settings unless the merchant switched on "Delete data on
     * uninstall": orders still open when the module is uninstalled or reset get paid and are
     * found again after a reinstall. The order states are retired (hidden) either way.
     */
    public function uninstall()
    {
        OrderStates::uninstall();
        if (Settings::get(Settings::DELETE_DATA_ON_UNINSTALL) === '1') {
            (new CheckoutRepository())->uninstall();
            foreach (Settings::ALL_KEYS as $key) {
                Configuration::deleteByName($key);
            }
        }

        return parent::uninstall();
    }

    /* ------------------------------------------------------------------ back office */

    public function getContent()
    {
        $output = '';
        $values = null;
        if (Tools::isSubmit('submitCryptocheckout')) {
            if (!$this->isAdminTokenValid()) {
                return $this->displayError($this->trans('Invalid security token: reload the page and try again.', [], 'Modules.Cryptocheckout.Admin'));
            }
            $input = [];
            foreach (Settings::FORM_KEYS as $key) {
                $input[$key] = Tools::getValue($key, '');
            }
            $result = Settings::validate($input, $this->translator('Modules.Cryptocheckout.Admin'));
            if ($result['errors']) {
                foreach ($result['errors'] as $message) {
                    $output .= $this->displayError(htmlspecialchars($message, ENT_QUOTES, 'UTF-8'));
                }
                $values = $result['values'];
            } else {
                foreach ($result['values'] as $key => $value) {
                    Configuration::updateValue($key, $value);
                }
                $output .= $this->savedMessage($result['values'][Settings::SERVICE_URL]);
            }
        }
        if (isset($this->context->controller) && method_exists($this->context->controller, 'addJS')) {
            $this->context->controller->addJS($this->getPathUri() . 'views/js/admin.js');
        }

        return $output . $this->renderForm($values) . $this->renderStatusPanel();
    }

    /**
     * What the merchant reads after a save: the service is asked at once, and when it does not
     * answer the settings are kept but the page says so, with the reason, and that buyers do not
     * see the payment option until it answers.
     */
    private function savedMessage($serviceUrl)
    {
        $domain = 'Modules.Cryptocheckout.Admin';
        $check = ServiceReachability::check($serviceUrl, $this->translator($domain));
        if ($check['reachable']) {
            return $this->displayConfirmation($this->trans('Settings updated. The service at %url% answers.', ['%url%' => $serviceUrl], $domain));
        }

        return $this->displayWarning($this->trans(
            'Settings saved, but the service at %url% cannot be reached: %problem% Buyers are not offered crypto payment until it answers.',
            ['%url%' => $serviceUrl, '%problem%' => $check['message']],
            $domain
        ));
    }

    private function isAdminTokenValid()
    {
        $token = (string) Tools::getValue('token', '');

        return $token !== '' && hash_equals((string) Tools::getAdminTokenLite('AdminModules'), $token);
    }

    /** @param array<string, string>|null $submitted values to show again after a refused save */
    private function renderForm($submitted)
    {
        $networks = [];
        $assets = [];
        foreach (Networks::all() as $network) {
            $networks[] = ['id' => $network['id'], 'name' => $network['name'] . ' (' . $network['id'] . ')'];
            foreach ($network['assets'] as $asset) {
                $assets[$asset['symbol']] = ['id' => $asset['symbol'], 'name' => $asset['symbol'] . ' - ' . $asset['name']];
            }
        }
        $domain = 'Modules.Cryptocheckout.Admin';
        $form = [
            'form' => [
                'legend' => ['title' => $this->trans('Settings', [], $domain), 'icon' => 'icon-cogs'],
                'input' => [
                    [
                        'type' => 'text',
                        'label' => $this->trans('Service URL', [], $domain),
                        'name' => Settings::SERVICE_URL,
                        'required' => true,
                        'desc' => $this->trans('Address of your Crypto Checkout service, for example https://pay.example.com.', [], $domain),
                    ],
                    [
                        'type' => 'select',
                        'label' => $this->trans('Network', [], $domain),
                        'name' => Settings::NETWORK,
                        'options' => ['query' => $networks, 'id' => 'id', 'name' => 'name'],
                    ],
                    [
                        'type' => 'select',
                        'label' => $this->trans('Asset', [], $domain),
                        'name' => Settings::ASSET,
                        'options' => ['query' => array_values($assets), 'id' => 'id', 'name' => 'name'],
                        'desc' => $this->trans('What you receive. USDC is recommended.', [], $domain),
                    ],
                    [
                        'type' => 'text',
                        'label' => $this->trans('Wallet address', [], $domain),
                        'name' => Settings::WALLET_ADDRESS,
                        'required' => true,
                        'desc' => $this->trans('Your own wallet on the chosen network; payments settle there.', [], $domain),
                    ],
                    [
                        'type' => 'radio',
                        'label' => $this->trans('Display', [], $domain),
                        'name' => Settings::DISPLAY_MODE,
                        'values' => [
                            ['id' => 'cryptocheckout_mode_redirect', 'value' => Settings::MODE_REDIRECT, 'label' => $this->trans('Redirect to the payment page', [], $domain)],
                            ['id' => 'cryptocheckout_mode_embedded', 'value' => Settings::MODE_EMBEDDED, 'label' => $this->trans('Payment page in a window over the shop', [], $domain)],
                        ],
                    ],
                    [
                        'type' => 'switch',
                        'label' => $this->trans('Delete data on uninstall', [], $domain),
                        'name' => Settings::DELETE_DATA_ON_UNINSTALL,
                        'is_bool' => true,
                        'desc' => $this->trans('Off (recommended): uninstalling or resetting the module keeps every checkout, so orders paid meanwhile are still found after a reinstall. On: uninstalling deletes the checkouts and settings.', [], $domain),
                        'values' => [
                            ['id' => 'cryptocheckout_delete_data_on', 'value' => '1', 'label' => $this->trans('Yes', [], 'Admin.Global')],
                            ['id' => 'cryptocheckout_delete_data_off', 'value' => '0', 'label' => $this->trans('No', [], 'Admin.Global')],
                        ],
                    ],
                    [
                        'type' => 'switch',
                        'label' => $this->trans('Debug logging', [], $domain),
                        'name' => Settings::DEBUG,
                        'is_bool' => true,
                        'desc' => $this->trans('Writes each step to Advanced Parameters > Logs.', [], $domain),
                        'values' => [
                            ['id' => 'cryptocheckout_debug_on', 'value' => '1', 'label' => $this->trans('Yes', [], 'Admin.Global')],
                            ['id' => 'cryptocheckout_debug_off', 'value' => '0', 'label' => $this->trans('No', [], 'Admin.Global')],
                        ],
                    ],
                ],
                'submit' => ['title' => $this->trans('Save', [], 'Admin.Actions')],
            ],
        ];

        $helper = new HelperForm();
        $helper->show_toolbar = false;
        $helper->table = $this->table;
        $helper->module = $this;
        $helper->default_form_language = (int) Configuration::get('PS_LANG_DEFAULT');
        $helper->allow_employee_form_lang = (int) Configuration::get('PS_BO_ALLOW_EMPLOYEE_FORM_LANG');
        $helper->identifier = $this->identifier;
        $helper->submit_action = 'submitCryptocheckout';
        $helper->currentIndex = $this->context->link->getAdminLink('AdminModules', false)
            . '&configure=' . $this->name . '&tab_module=' . $this->tab . '&module_name=' . $this->name;
        $helper->token = Tools::getAdminTokenLite('AdminModules');
        $values = [];
        foreach (Settings::FORM_KEYS as $key) {
            $values[$key] = $submitted[$key] ?? Settings::get($key);
        }
        $helper->tpl_vars = [
            'fields_value' => $values,
            'languages' => $this->context->controller->getLanguages(),
            'id_language' => $this->context->language->id,
        ];

        return $helper->generateForm([$form]);
    }

    private function renderStatusPanel()
    {
        $reachable = false;
        $serviceUrl = Settings::get(Settings::SERVICE_URL);
        if ($serviceUrl !== '') {
            $check = ServiceReachability::last($serviceUrl);
            if ($check === null || time() - (int) $check['checked_at'] >= ServiceReachability::FRESH_SECONDS) {
                $check = ServiceReachability::check($serviceUrl, $this->translator('Modules.Cryptocheckout.Admin'));
            }
            $reachable = (bool) $check['reachable'];
            $problem = $check['message'];
        } else {
            $problem = $this->trans('No service URL saved yet.', [], 'Modules.Cryptocheckout.Admin');
        }
        $pollUrl = $this->context->link->getModuleLink($this->name, 'poll', ['token' => Settings::get(Settings::POLL_TOKEN)], true);
        $this->context->smarty->assign([
            'cryptocheckout_reachable' => $reachable,
            'cryptocheckout_problem' => $problem,
            'cryptocheckout_last_webhook' => Settings::get(Settings::LAST_WEBHOOK),
            'cryptocheckout_last_poll' => Settings::get(Settings::LAST_POLL),
            'cryptocheckout_cron_line' => '*/5 * * * * curl -fsS "' . $pollUrl . '" > /dev/null',
            'cryptocheckout_webhook_url' => $this->context->link->getModuleLink($this->name, 'webhook', [], true),
        ]);

        return $this->fetch('module:cryptocheckout/views/templates/admin/status.tpl');
    }

    /* ------------------------------------------------------------------ checkout */

    public function hookPaymentOptions($params)
    {
        if (!$this->active || !isset($params['cart']) || !$this->isCartPayable($params['cart'])) {
            return [];
        }
        $option = new PaymentOption();
        $option->setModuleName($this->name)
            ->setCallToActionText($this->trans('Pay with crypto', [], 'Modules.Cryptocheckout.Shop'))
            ->setAction($this->context->link->getModuleLink($this->name, 'validation', [], true))
            ->setAdditionalInformation($this->fetch('module:cryptocheckout/views/templates/hook/payment_option.tpl'));

        return [$option];
    }

    /**
     * The option is offered only when the module is set up, the shop allows the cart's currency
     * for this module (Payment > Preferences), the service accepts that currency and the service
     * answers (ServiceReachability: asked at most once a minute). The validation controller
     * passes $askService = false: it asks the service itself right after, and when that fails
     * the order is kept with a retry link rather than lost.
     */
    public function isCartPayable($cart, $askService = true)
    {
        if (!Settings::isComplete() || !Validate::isLoadedObject($cart)) {
            return false;
        }
        $currency = new Currency((int) $cart->id_currency);
        if (!Validate::isLoadedObject($currency) || !Money::isSupportedCurrency((string) $currency->iso_code)) {
            return false;
        }
        foreach ((array) $this->getCurrency((int) $cart->id_currency) as $allowed) {
            if ((int) $allowed['id_currency'] === (int) $currency->id) {
                return !$askService || ServiceReachability::isReachable(Settings::get(Settings::SERVICE_URL), $this->translator('Modules.Cryptocheckout.Admin'), time());
            }
        }

        return false;
    }

    /* ------------------------------------------------------------------ the kernel, wired to PrestaShop */

    public function createOrderPort()
    {
        return new PrestaShopOrderPort($this);
    }

    public function createRunner()
    {
        return new Runner($this->createOrderPort(), [ClientFactory::class, 'forService']);
    }

    public function createCheckoutOpener()
    {
        return new CheckoutOpener($this->createOrderPort(), $this->createRunner(), [ClientFactory::class, 'forService']);
    }

    public function createWebhookHandler()
    {
        return new WebhookHandler($this->createOrderPort(), $this->createRunner());
    }

    /**
     * What the checkout of an order is created with: its total with the currency's ISO 4217
     * decimals ("25.00", "1500" for JPY), its reference, the wallet and service configured now,
     * and the shop's addresses for the webhook and the buyer's return.
     *
     * @throws CryptoCheckoutException when the currency is not one the service accepts
     */
    public function checkoutTerms(Order $order)
    {
        $isoCode = (string) (new Currency((int) $order->id_currency))->iso_code;
        $returnUrl = $this->getReturnUrl($order);

        return [
            'fiat_amount' => Money::normalizeFiatAmount(Tools::ps_round((float) $order->total_paid, Money::minorUnits($isoCode)), $isoCode),
            'fiat_currency' => $isoCode,
            'external_reference' => (string) $order->reference,
            'service_url' => Settings::get(Settings::SERVICE_URL),
            'wallet_address' => Settings::get(Settings::WALLET_ADDRESS),
            'wallet_currency' => Settings::get(Settings::ASSET),
            'wallet_network' => Settings::get(Settings::NETWORK),
            'webhook_url' => $this->context->link->getModuleLink($this->name, 'webhook', [], true),
            'success_url' => $returnUrl,
            'cancel_url' => $returnUrl,
        ];
    }

    /** The address where the buyer comes back to after paying: PrestaShop's order confirmation. */
    public function getReturnUrl(Order $order)
    {
        return $this->context->link->getPageLink('order-confirmation', true, null, [
            'id_cart' => (int) $order->id_cart,
            'id_module' => (int) $this->id,
            'id_order' => (int) $order->id,
            'key' => $order->secure_key,
        ]);
    }

    /** Link that starts the payment of an existing order again (after the service was unreachable). */
    public function getRetryUrl(Order $order)
    {
        return $this->context->link->getModuleLink($this->name, 'validation', ['id_order' => (int) $order->id, 'key' => $order->secure_key], true);
    }

    /* ------------------------------------------------------------------ after the order */

    public function hookDisplayPaymentReturn($params)
    {
        if (!$this->active || !isset($params['order']) || $params['order']->module !== $this->name) {
            return '';
        }
        // The buyer is back from the payment page: check the service first (at most every few seconds).
        $this->createRunner()->runForBuyer((string) $params['order']->id);

        return $this->renderStatusBox($params['order']);
    }

    public function hookDisplayOrderDetail($params)
    {
        if (!$this->active || !isset($params['order']) || $params['order']->module !== $this->name) {
            return '';
        }

        return $this->renderStatusBox($params['order']);
    }

    /**
     * The buyer's view of the payment (the kernel's BuyerStatus), translated. The status endpoint
     * answers the same shape.
     *
     * @return array{state: string, message: string, terminal: bool, checkout_url: string|null}
     */
    public function buyerStatus(Order $order)
    {
        $port = $this->createOrderPort();
        $idOrder = (string) $order->id;

        return BuyerStatus::of($port->orderState($idOrder), $port->checkouts($idOrder), time(), $this->translator('Modules.Cryptocheckout.Shop'));
    }

    /**
     * The status box every platform shows (StatusWidgetMarkup), which the front script keeps up to
     * date from the status endpoint; below it, while the order is open but has no checkout that
     * can be paid, the link that starts a new payment.
     */
    private function renderStatusBox(Order $order)
    {
        $status = $this->buyerStatus($order);
        $statusUrl = $this->context->link->getModuleLink($this->name, 'status', ['id_order' => (int) $order->id, 'key' => $order->secure_key], true);
        $html = StatusWidgetMarkup::render($status, $statusUrl, $this->translator('Modules.Cryptocheckout.Shop'));
        // Only an unpaid order gets a new payment; a part-paid one is settled with the shop (BuyerStatus says so).
        if ($status['checkout_url'] === null && $status['state'] === OrderState::AWAITING_PAYMENT) {
            $this->context->smarty->assign(['cryptocheckout_retry_url' => $this->getRetryUrl($order)]);
            $html .= $this->fetch('module:cryptocheckout/views/templates/hook/retry.tpl');
        }

        return $html;
    }

    public function hookDisplayAdminOrderMainBottom($params)
    {
        $idOrder = (int) ($params['id_order'] ?? 0);
        $order = new Order($idOrder);
        if (!Validate::isLoadedObject($order) || $order->module !== $this->name) {
            return '';
        }
        $translate = $this->translator('Modules.Cryptocheckout.Admin');
        $now = time();
        $checkouts = [];
        foreach ($this->createOrderPort()->checkouts((string) $idOrder) as $checkout) {
            $checkouts[] = [
                'transaction_code' => $checkout->transactionCode,
                'checkout_url' => $checkout->checkoutUrl,
                'amount' => $checkout->fiatAmount . ' ' . $checkout->fiatCurrency,
                'wallet' => $checkout->walletAddress . ' (' . $checkout->walletCurrency . ', ' . $checkout->walletNetwork . ')',
                'created' => self::dateTime($checkout->createdAt),
                'expires' => self::dateTime($checkout->expiresAt),
                'state' => CheckoutLabels::state($checkout, $now, $translate),
                'received' => CheckoutLabels::receivedUsd($checkout),
                'checked' => self::dateTime($checkout->checkedAt),
                'resolution' => CheckoutLabels::resolution($checkout, $now, $translate),
            ];
        }
        $notes = OrderNotes::of($idOrder);
        $this->context->smarty->assign([
            'cryptocheckout_checkouts' => $checkouts,
            'cryptocheckout_notes' => $notes,
        ]);

        return $this->fetch('module:cryptocheckout/views/templates/admin/order.tpl');
    }

    /** Unix seconds as the shop's local date and time, or "" for none. */
    private static function dateTime($time)
    {
        return $time === null ? '' : date('Y-m-d H:i:s', (int) $time);
    }

    /**
     * The module's translations as the kernel calls them: (text, %placeholders%) => plain text.
     * Module::trans() HTML-escapes what it returns; the kernel escapes what it prints itself, so
     * the text is handed over unescaped.
     *
     * @return callable(string, array<string, string>): string
     */
    public function translator($domain)
    {
        return function ($text, array $parameters = []) use ($domain) {
            return $this->plainText($text, $parameters, $domain);
        };
    }

    private function plainText($text, array $parameters, $domain)
    {
        return htmlspecialchars_decode($this->trans($text, $parameters, $domain), ENT_NOQUOTES);
    }

    public function hookActionFrontControllerSetMedia($params)
    {
        $controller = $this->context->controller;
        if (!$this->active || !isset($controller->php_self) || !in_array($controller->php_self, self::STATUS_PAGES, true)) {
            return;
        }
        $controller->registerJavascript('modules-cryptocheckout-front', 'modules/' . $this->name . '/views/js/front.js', ['position' => 'bottom', 'priority' => 150]);
    }
}
