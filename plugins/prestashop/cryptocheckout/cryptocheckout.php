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

use CryptoCheckout\PrestaShop\CheckoutStarter;
use CryptoCheckout\PrestaShop\ClientFactory;
use CryptoCheckout\PrestaShop\OrderStates;
use CryptoCheckout\PrestaShop\Reconciliation;
use CryptoCheckout\PrestaShop\Settings;
use CryptoCheckout\PrestaShop\TransactionRepository;
use CryptoCheckout\PrestaShop\Vendor\Client\Exception\CryptoCheckoutException;
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

    /** Front pages that show the payment status widget. */
    const STATUS_PAGES = ['order-confirmation', 'order-detail'];

    public function __construct()
    {
        $this->name = 'cryptocheckout';
        $this->tab = 'payments_gateways';
        $this->version = '1.0.1';
        $this->author = 'Crypto Checkout';
        $this->need_instance = 0;
        $this->ps_versions_compliancy = ['min' => '8.0.0', 'max' => '9.99.99'];
        $this->controllers = ['validation', 'webhook', 'status', 'poll'];
        $this->currencies = true;
        $this->currencies_mode = 'checkbox';
        $this->bootstrap = true;

        parent::__construct();

        $this->displayName = $this->trans('Crypto Checkout', [], 'Modules.Cryptocheckout.Admin');
        $this->description = $this->trans('Accept crypto payments, settled to your own wallet.', [], 'Modules.Cryptocheckout.Admin');
        $this->confirmUninstall = $this->trans('Remove the Crypto Checkout settings?', [], 'Modules.Cryptocheckout.Admin');
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
        if (!parent::install() || !$this->registerHook(self::HOOKS)) {
            return false;
        }
        if (!(new TransactionRepository())->install()) {
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

        return OrderStates::install($this->name, function ($text) {
            return $this->trans($text, [], 'Modules.Cryptocheckout.Admin');
        });
    }

    public function uninstall()
    {
        OrderStates::uninstall();
        (new TransactionRepository())->uninstall();
        foreach (Settings::ALL_KEYS as $key) {
            Configuration::deleteByName($key);
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
            $result = Settings::validate($input, function ($text, array $parameters = []) {
                return $this->trans($text, $parameters, 'Modules.Cryptocheckout.Admin');
            });
            if ($result['errors']) {
                foreach ($result['errors'] as $message) {
                    $output .= $this->displayError(htmlspecialchars($message, ENT_QUOTES, 'UTF-8'));
                }
                $values = $result['values'];
            } else {
                foreach ($result['values'] as $key => $value) {
                    Configuration::updateValue($key, $value);
                }
                $output .= $this->displayConfirmation($this->trans('Settings updated.', [], 'Modules.Cryptocheckout.Admin'));
            }
        }
        if (isset($this->context->controller) && method_exists($this->context->controller, 'addJS')) {
            $this->context->controller->addJS($this->getPathUri() . 'views/js/admin.js');
        }

        return $output . $this->renderForm($values) . $this->renderStatusPanel();
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
        $problem = '';
        if (Settings::get(Settings::SERVICE_URL) !== '') {
            try {
                ClientFactory::create()->getPaymentOptions('10.00', 'USD');
                $reachable = true;
            } catch (CryptoCheckoutException $exception) {
                $problem = $exception->getMessage();
            }
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
     * for this module (Payment > Preferences) and the service accepts that currency.
     */
    public function isCartPayable($cart)
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
                return true;
            }
        }

        return false;
    }

    public function createCheckoutStarter()
    {
        return new CheckoutStarter($this, new TransactionRepository(), ClientFactory::create());
    }

    public function createReconciliation()
    {
        return new Reconciliation($this, new TransactionRepository(), ClientFactory::create());
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

        return $this->renderStatusWidget($params['order'], true);
    }

    public function hookDisplayOrderDetail($params)
    {
        if (!$this->active || !isset($params['order']) || $params['order']->module !== $this->name) {
            return '';
        }

        return $this->renderStatusWidget($params['order'], false);
    }

    /** The payment status shown to the buyer; on return from the payment page, checked first. */
    private function renderStatusWidget(Order $order, $checkNow)
    {
        $repository = new TransactionRepository();
        $row = $repository->findByOrder((int) $order->id);
        if ($row === null) {
            return '';
        }
        if ($checkNow && in_array($row['state'], TransactionRepository::OPEN_STATES, true) && (string) $row['transaction_code'] !== '') {
            $this->createReconciliation()->reconcile((int) $order->id);
            $row = $repository->findByOrder((int) $order->id);
        }
        $state = (string) $row['state'];
        $this->context->smarty->assign([
            'cryptocheckout_state' => $state,
            'cryptocheckout_state_label' => $this->stateLabel($state),
            'cryptocheckout_status_url' => $this->context->link->getModuleLink($this->name, 'status', ['id_order' => (int) $order->id, 'key' => $order->secure_key], true),
            'cryptocheckout_pay_url' => $state === TransactionRepository::STATE_AWAITING
                ? ((string) $row['checkout_url'] !== '' ? (string) $row['checkout_url'] : $this->getRetryUrl($order))
                : '',
            'cryptocheckout_reference' => (string) $order->reference,
        ]);

        return $this->fetch('module:cryptocheckout/views/templates/hook/payment_return.tpl');
    }

    /** The buyer-facing label of a reconciliation state. */
    public function stateLabel($state)
    {
        $domain = 'Modules.Cryptocheckout.Shop';
        switch ($state) {
            case TransactionRepository::STATE_PAID:
                return $this->trans('Payment received. Thank you!', [], $domain);
            case TransactionRepository::STATE_UNDERPAID:
                return $this->trans('Part of the amount was received. The shop will contact you about the rest.', [], $domain);
            case TransactionRepository::STATE_LATE_REVIEW:
                return $this->trans('Your payment arrived after the order was cancelled. The shop will review it and contact you.', [], $domain);
            case TransactionRepository::STATE_CANCELLED:
                return $this->trans('The payment window closed without payment; the order is cancelled.', [], $domain);
            default:
                return $this->trans('Waiting for your crypto payment to be confirmed.', [], $domain);
        }
    }

    public function hookDisplayAdminOrderMainBottom($params)
    {
        $idOrder = (int) ($params['id_order'] ?? 0);
        $row = $idOrder ? (new TransactionRepository())->findByOrder($idOrder) : null;
        if ($row === null) {
            return '';
        }
        $this->context->smarty->assign([
            'cryptocheckout_transaction_code' => (string) $row['transaction_code'],
            'cryptocheckout_checkout_url' => (string) $row['checkout_url'],
            'cryptocheckout_state' => (string) $row['state'],
            'cryptocheckout_amount' => $row['fiat_amount'] . ' ' . $row['fiat_currency'],
            'cryptocheckout_wallet' => $row['wallet_address'] . ' (' . $row['wallet_currency'] . ', ' . $row['wallet_network'] . ')',
            'cryptocheckout_last_status' => (string) $row['last_status'],
            'cryptocheckout_last_checked' => (string) $row['last_checked'],
        ]);

        return $this->fetch('module:cryptocheckout/views/templates/admin/order.tpl');
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
