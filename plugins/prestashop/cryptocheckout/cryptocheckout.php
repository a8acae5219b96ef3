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

use CryptoCheckout\PrestaShop\OrderStates;
use CryptoCheckout\PrestaShop\PrestaShopOrderPort;
use CryptoCheckout\PrestaShop\PrestaShopRefundPort;
use CryptoCheckout\PrestaShop\PrestaShopSqlPort;
use CryptoCheckout\PrestaShop\SchemaUpgrade;
use CryptoCheckout\PrestaShop\Settings;
use CryptoCheckout\PrestaShop\Vendor\Client\Exception\CryptoCheckoutException;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\CheckoutLabels;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\Kernel;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\Ledger\Ledger;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\Ledger\LegacyRecords;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\OrderState;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\PollPolicy;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\RefundLabels;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\RefundRecord;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\ServiceProbe;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\SettingsRules;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\StatusWidgetMarkup;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\WalletCheck;
use CryptoCheckout\PrestaShop\Vendor\Client\Money;
use CryptoCheckout\PrestaShop\Vendor\Client\Wallet\Networks;
use PrestaShop\PrestaShop\Core\Payment\PaymentOption;

if (!defined('_PS_VERSION_')) {
    exit;
}

require_once __DIR__ . '/vendor/cryptocheckout-client/autoload.php';
// PSR-4 for src/: CryptoCheckout\PrestaShop\Foo is src/Foo.php (the client copy under Vendor\ has its own loader).
spl_autoload_register(static function ($class) {
    $prefix = 'CryptoCheckout\\PrestaShop\\';
    $file = __DIR__ . '/src/' . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
    if (strncmp($class, $prefix, strlen($prefix)) === 0 && is_file($file)) {
        require $file;
    }
});

class Cryptocheckout extends PaymentModule
{
    /** Hooks the module works through; install() and every upgrade register them all. */
    const HOOKS = ['paymentOptions', 'displayPaymentReturn', 'displayOrderDetail', 'displayAdminOrderMainBottom', 'actionFrontControllerSetMedia', 'actionOrderSlipAdd', 'displayAdminAfterHeader'];

    /** Opening an order looks its open refunds up again, at most this often (seconds) and this many. */
    const REFUND_LOOKUP_SECONDS = 30;
    const REFUND_LOOKUPS_PER_PAGE = 5;

    /** Front pages that show the payment status widget. */
    const STATUS_PAGES = ['order-confirmation', 'order-detail', 'guest-tracking'];

    /** The payment step waits at most this long for the service (seconds). */
    const PAYMENT_STEP_TIMEOUT_SECONDS = 2;

    /** Where released versions kept their checkouts: 1.0.x, 1.1.0 to 1.2.0, and the latter's claim markers. */
    const LEGACY_TABLES = ['cryptocheckout_transaction', 'cryptocheckout_checkout', 'cryptocheckout_claim'];

    /** @var Kernel|null */
    private $kernel;

    /** @var PrestaShopRefundPort|null */
    private $refundPort;

    public function __construct()
    {
        $this->name = 'cryptocheckout';
        $this->tab = 'payments_gateways';
        $this->version = '1.4.1';
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
        if ($this->id && SchemaUpgrade::problem() !== null) {
            $this->warning = $this->upgradeProblem();
        }
    }

    public function isUsingNewTranslationSystem()
    {
        return true;
    }

    /**
     * The plugin kernel, built here only, over the order (PrestaShopOrderPort), the ledger in the
     * shop's database (PrestaShopSqlPort) and the Shop domain's translations (its texts are the
     * buyer's status and the service check). Every entry point calls one of its methods.
     * @return Kernel
     */
    public function kernel()
    {
        return $this->kernel ?? ($this->kernel = new Kernel(new PrestaShopOrderPort($this), new PrestaShopSqlPort(), null, $this->translator('Modules.Cryptocheckout.Shop')));
    }

    /**
     * PrestaShop's side of refunds for the kernel (the order's messages and the buyer's e-mail):
     * the credit slip hook starts refunds with it, the webhook, the poll and the order page check them.
     * @return PrestaShopRefundPort
     */
    public function refundPort()
    {
        return $this->refundPort ?? ($this->refundPort = new PrestaShopRefundPort($this, $this->translator('Modules.Cryptocheckout.Admin')));
    }

    public function install()
    {
        // PrestaShop 8.1 runs on PHP 7.2 and 7.3 too; the module's classes need 7.4.
        if (PHP_VERSION_ID < 70400) {
            $this->_errors[] = $this->trans('Crypto Checkout needs PHP 7.4 or later; this server runs PHP %version%.', ['%version%' => PHP_VERSION], 'Modules.Cryptocheckout.Admin');

            return false;
        }
        if (!parent::install() || !$this->registerHook(self::HOOKS)) {
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
            return $this->plainText($text, [], 'Modules.Cryptocheckout.Admin');
        });
    }

    /**
     * PrestaShop's install() enables the module too: the storage is brought up here, and turning
     * the module back on after an upgrade that could not move every checkout (PrestaShop turns it
     * off then) moves the rest, or keeps it off and says why.
     */
    public function enable($force_all = false)
    {
        return $this->upgradeToCurrent() && parent::enable($force_all);
    }

    /**
     * The upgrade scripts' and enable()'s way to bring the storage to this version (SchemaUpgrade,
     * one request at a time); a failure is logged and shown as PrestaShop shows a module's errors.
     * @return bool
     */
    public function upgradeToCurrent()
    {
        $problem = SchemaUpgrade::run($this);
        if ($problem !== null) {
            $this->_errors[] = $this->trans('Crypto Checkout could not move its checkouts to its new tables (%error%). Nothing was lost: the old tables are kept. Turn the module on again to retry.', ['%error%' => $problem], 'Modules.Cryptocheckout.Admin');
        }

        return $problem === null;
    }

    /**
     * Whether the module's tables are those of this version: when they are behind (new files
     * over an older version's database, however they arrived) the first request upgrades them
     * (SchemaUpgrade). Every entry point asks before it touches the ledger.
     * @return bool
     */
    public function storageReady($force = false)
    {
        return SchemaUpgrade::ready($this, $force);
    }

    /**
     * Every step of the upgrade scripts, each safe to run again, in order: the hooks of this
     * version, the settings of 1.3.0 (the display mode "embedded" is "modal"; the last webhook and
     * the service check are the kernel's), then the ledger with the released versions' checkouts.
     * Called by SchemaUpgrade under its lock.
     * @throws RuntimeException what failed (nothing is dropped then)
     */
    public function upgradeStorage()
    {
        foreach (self::HOOKS as $hook) {
            if (!$this->isRegisteredInHook($hook) && !$this->registerHook($hook)) {
                throw new RuntimeException(sprintf('the hook %s could not be registered', $hook));
            }
        }
        // SettingsRules reads the earlier name as today's (1.2.0 saved only "redirect" or "embedded").
        $mode = Settings::get(Settings::DISPLAY_MODE);
        if (SettingsRules::displayMode($mode) !== $mode) {
            Configuration::updateValue(Settings::DISPLAY_MODE, SettingsRules::displayMode($mode));
        }
        Configuration::deleteByName('CRYPTOCHECKOUT_LAST_WEBHOOK');
        Configuration::deleteByName('CRYPTOCHECKOUT_SERVICE_CHECK');
        $this->moveToLedger();
    }

    /**
     * Creates the ledger and takes in the checkouts of the released versions' tables; the tables
     * are dropped once every checkout is in the ledger. On a failure they stay (SchemaUpgrade logs
     * why; a new try adds nothing twice).
     * @throws RuntimeException
     */
    private function moveToLedger()
    {
        $ledger = $this->kernel()->ledger();
        $sql = new PrestaShopSqlPort();
        try {
            $ledger->install();
            $missing = $this->importLegacyTables($ledger, $sql);
            if ($missing !== []) {
                throw new RuntimeException(sprintf('%d checkouts could not be imported (%s)', count($missing), implode(', ', $missing)));
            }
            self::dropLegacyTables($sql);
        } catch (RuntimeException $exception) {
            throw new RuntimeException('Moving the checkouts to the new tables failed: ' . $exception->getMessage(), 0, $exception);
        }
    }

    /**
     * What the back office says while the tables are behind and the last try failed (the banner,
     * the module list's warning, the configuration page).
     * @return string HTML-escaped text
     */
    private function upgradeProblem()
    {
        $problem = SchemaUpgrade::problem();

        return $this->trans('Crypto Checkout %version% could not bring its database tables up to date (%error%). Until it can, buyers are not offered Pay with crypto and payment notifications are answered "503, try again later"; the cron poll books the payments once the tables are ready. Fix the cause (Advanced Parameters > Logs), then open the configuration page of the module to try again at once; it also tries again by itself every minute.', ['%version%' => (string) $this->version, '%error%' => $problem === null ? '' : $problem['message']], 'Modules.Cryptocheckout.Admin');
    }

    /**
     * The banner on every back office page (after the header) while the tables are behind and
     * the last try failed; the page itself tries again when the last try is a minute old.
     */
    public function hookDisplayAdminAfterHeader($params)
    {
        if ($this->storageReady()) {
            return '';
        }

        return $this->displayError($this->upgradeProblem());
    }

    /**
     * Reads the released versions' checkouts into the ledger; what their values mean is the
     * kernel's LegacyRecords. 1.1.0 to 1.2.0 kept them under the ledger's column names; 1.0.x kept
     * one row per order with the order's state, dates from date() in the shop's time zone, and no
     * service URL (the configured one). A 1.0.x row without a code never reached the service.
     *
     * @return list<string> the codes not found in the ledger afterwards
     */
    private function importLegacyTables(Ledger $ledger, PrestaShopSqlPort $sql)
    {
        $rows = static function ($name) use ($sql) {
            $table = $sql->table($name);

            return $sql->select('SHOW TABLES LIKE ?', [$table]) === [] ? [] : $sql->select('SELECT * FROM ' . $table);
        };
        $time = static function ($value) {
            $time = is_string($value) && strpos($value, '0000-00-00') !== 0 ? strtotime($value) : false;

            return $time === false ? null : $time;
        };
        $byOrder = [];
        foreach ($rows(self::LEGACY_TABLES[1]) as $row) {
            $byOrder[$row['id_order']][strtolower((string) $row['transaction_code'])] = $row;
        }
        foreach ($rows(self::LEGACY_TABLES[0]) as $row) {
            $code = strtolower(trim((string) $row['transaction_code']));
            if ($code !== '' && !isset($byOrder[$row['id_order']][$code])) {
                $legacy = ['transaction_code' => $code, 'service_url' => Settings::get(Settings::SERVICE_URL), 'legacy_state' => $row['state']];
                $byOrder[$row['id_order']][$code] = $legacy + ['created_at' => $time($row['date_add']), 'checked_at' => $time($row['last_checked'])] + $row;
            }
        }
        $missing = [];
        foreach ($byOrder as $idOrder => $checkouts) {
            LegacyRecords::import($ledger, (string) $idOrder, array_values($checkouts), time());
            foreach (array_keys($checkouts) as $code) {
                if ($ledger->orderOf((string) $code) === null) {
                    $missing[] = (string) $code;
                }
            }
        }

        return $missing;
    }

    private static function dropLegacyTables(PrestaShopSqlPort $sql)
    {
        foreach (self::LEGACY_TABLES as $table) {
            $sql->execute('DROP TABLE IF EXISTS ' . $sql->table($table));
        }
    }

    /**
     * Keeps the ledger and the settings unless "Delete data on uninstall" is on: orders open at an
     * uninstall or reset are paid and found after a reinstall. The order states are retired.
     */
    public function uninstall()
    {
        OrderStates::uninstall();
        if (Settings::get(Settings::DELETE_DATA_ON_UNINSTALL) === '1') {
            $this->kernel()->ledger()->uninstall();
            self::dropLegacyTables(new PrestaShopSqlPort());
            foreach (array_merge(Settings::FORM_KEYS, Settings::OTHER_KEYS) as $key) {
                Configuration::deleteByName($key);
            }
        }

        return parent::uninstall();
    }

    /* ------------------------------------------------------------------ back office */

    public function getContent()
    {
        $domain = 'Modules.Cryptocheckout.Admin';
        $output = '';
        $values = null;
        // Opening this page tries a failed upgrade again at once, and says why it still fails.
        if (!$this->storageReady(true)) {
            return $this->displayError($this->upgradeProblem());
        }
        if (Tools::isSubmit('submitCryptocheckout')) {
            $token = (string) Tools::getValue('token', '');
            if ($token === '' || !hash_equals((string) Tools::getAdminTokenLite('AdminModules'), $token)) {
                return $this->displayError($this->trans('Invalid security token: reload the page and try again.', [], $domain));
            }
            $result = Settings::validate(array_map(static function ($key) {
                return Tools::getValue($key, '');
            }, array_combine(Settings::FORM_KEYS, Settings::FORM_KEYS)), $this->translator($domain));
            // The merchant key field is empty unless the merchant types a new key (it is never shown back).
            $merchantKey = Settings::merchantKey(Tools::getValue(Settings::MERCHANT_KEY, ''), Settings::get(Settings::MERCHANT_KEY), $this->translator($domain));
            if ($merchantKey['error'] !== null) {
                $result['errors'][Settings::MERCHANT_KEY] = $merchantKey['error'];
            }
            // A Bitcoin wallet the rules take is put to the service being saved: one it refuses is
            // not saved, like any other refused value; otherwise its answer is shown once saved.
            $walletCheck = $result['errors'] ? null : $this->checkWallet($result['values']);
            if ($walletCheck !== null && $walletCheck['result'] === WalletCheck::RESULT_REFUSED) {
                $result['errors'][$walletCheck['field'] === SettingsRules::NETWORK ? Settings::NETWORK : Settings::WALLET_ADDRESS] = $walletCheck['message'];
            }
            foreach ($result['errors'] as $message) {
                $output .= $this->displayError(htmlspecialchars($message, ENT_QUOTES, 'UTF-8'));
            }
            // A refused save shows what was typed again; a save asks the service at once, and says
            // whether it answers (the settings are kept either way).
            $values = $result['errors'] ? $result['values'] : null;
            if (!$result['errors']) {
                foreach ($result['values'] as $key => $value) {
                    Configuration::updateValue($key, $value);
                }
                Configuration::updateValue(Settings::MERCHANT_KEY, $merchantKey['value']);
                $url = $result['values'][Settings::SERVICE_URL];
                // Whether the service answers, and offers the settlement just saved.
                $check = $this->kernel()->probe($url, true, ServiceProbe::TIMEOUT_SECONDS, Settings::settlement());
                if (!$check['reachable']) {
                    $output .= $this->displayWarning($this->trans('Settings saved, but the service at %url% cannot be reached: %problem% Buyers are not offered crypto payment until it answers.', ['%url%' => $url, '%problem%' => $check['message']], $domain));
                } elseif ($check['offered'] === false) {
                    $output .= $this->displayWarning($this->trans('Settings saved, but buyers cannot pay with crypto yet: %problem% The payment option stays hidden until the service offers it.', ['%problem%' => $check['message']], $domain));
                } else {
                    $output .= $this->displayConfirmation($this->trans('Settings updated. The service at %url% answers.', ['%url%' => $url], $domain));
                }
                // What the service makes of a Bitcoin wallet: an extended key's first receive
                // addresses, or why they could not be shown (the kernel's texts are plain text).
                if ($walletCheck !== null && $walletCheck['result'] === WalletCheck::RESULT_UNAVAILABLE) {
                    $output .= $this->displayWarning(htmlspecialchars($walletCheck['message'], ENT_QUOTES, 'UTF-8'));
                } elseif ($walletCheck !== null && $walletCheck['message'] !== '') {
                    $output .= $this->displayInformation(htmlspecialchars($walletCheck['message'], ENT_QUOTES, 'UTF-8'));
                }
            }
        }
        // The wallet check as the merchant types (AdminModulesController, which shows this page).
        $this->context->controller->addJS($this->getPathUri() . 'views/js/admin.js');

        return $output . $this->renderForm($values) . $this->renderStatusPanel();
    }

    /**
     * The service's word on a Bitcoin wallet about to be saved (the kernel's checkWallet(), at most
     * WalletCheck::TIMEOUT_SECONDS), or null for a wallet on another network.
     *
     * @param array<string, string> $values the submitted settings as Settings::validate() cleaned them
     * @return array<string, mixed>|null
     */
    private function checkWallet(array $values)
    {
        if (!WalletCheck::applies($values[Settings::NETWORK])) {
            return null;
        }

        return $this->kernel()->checkWallet($values[Settings::SERVICE_URL], $values[Settings::NETWORK], $values[Settings::WALLET_ADDRESS]);
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
        $yesNo = [['id' => 'on', 'value' => '1', 'label' => $this->trans('Yes', [], 'Admin.Global')], ['id' => 'off', 'value' => '0', 'label' => $this->trans('No', [], 'Admin.Global')]];
        $inputs = [
            ['type' => 'text', 'name' => Settings::SERVICE_URL, 'required' => true, 'label' => $this->trans('Service URL', [], $domain), 'desc' => $this->trans('Address of your Crypto Checkout service, for example https://pay.example.com.', [], $domain)],
            ['type' => 'select', 'name' => Settings::NETWORK, 'label' => $this->trans('Network', [], $domain), 'options' => ['query' => $networks, 'id' => 'id', 'name' => 'name']],
            ['type' => 'select', 'name' => Settings::ASSET, 'label' => $this->trans('Asset', [], $domain), 'options' => ['query' => array_values($assets), 'id' => 'id', 'name' => 'name'], 'desc' => $this->trans('What you receive. USDC is recommended.', [], $domain)],
            ['type' => 'text', 'name' => Settings::WALLET_ADDRESS, 'required' => true, 'label' => $this->trans('Wallet address', [], $domain), 'desc' => $this->trans('Your own wallet on the chosen network; payments settle there.', [], $domain)
                . ' ' . $this->trans('On Solana, enter your wallet address, not a token account. Tokens go to your wallet\'s associated token account; the buyer\'s wallet creates it when missing, as Solana Pay wallets do.', [], $domain)
                . ' ' . $this->trans('On Bitcoin, enter an address or, better, your wallet\'s extended public key: a zpub (recommended), an xpub or ypub, or a descriptor such as wpkh(…), sh(wpkh(…)) or tr(…). Public keys only: the service can never spend from them. With a key, each order gets its own receive address; saving shows the first ones to compare with your wallet.', [], $domain)],
            ['type' => 'password', 'name' => Settings::MERCHANT_KEY, 'autocomplete' => false, 'label' => $this->trans('Merchant key', [], $domain), 'desc' => Settings::get(Settings::MERCHANT_KEY) === ''
                ? $this->trans('Needed for refunds: the key (ccm_…) your Crypto Checkout operator issued for your wallet. Without it a credit slip refunds nothing in crypto.', [], $domain)
                : $this->trans('A key is saved (%key%). Leave the field empty to keep it, or enter a new key to replace it.', ['%key%' => SettingsRules::maskedMerchantKey(Settings::get(Settings::MERCHANT_KEY))], $domain)],
            ['type' => 'radio', 'name' => Settings::DISPLAY_MODE, 'label' => $this->trans('Display', [], $domain), 'values' => [
                ['id' => 'cryptocheckout_mode_redirect', 'value' => SettingsRules::DISPLAY_REDIRECT, 'label' => $this->trans('Redirect to the payment page', [], $domain)],
                ['id' => 'cryptocheckout_mode_modal', 'value' => SettingsRules::DISPLAY_MODAL, 'label' => $this->trans('Payment page in a window over the shop', [], $domain)],
            ]],
            ['type' => 'switch', 'name' => Settings::DELETE_DATA_ON_UNINSTALL, 'is_bool' => true, 'values' => $yesNo, 'label' => $this->trans('Delete data on uninstall', [], $domain), 'desc' => $this->trans('Off (recommended): uninstalling or resetting the module keeps every checkout, so orders paid meanwhile are still found after a reinstall. On: uninstalling deletes the checkouts and settings.', [], $domain)],
            ['type' => 'switch', 'name' => Settings::DEBUG, 'is_bool' => true, 'values' => $yesNo, 'label' => $this->trans('Debug logging', [], $domain), 'desc' => $this->trans('Writes each step to Advanced Parameters > Logs.', [], $domain)],
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
        // HelperForm prints a password field empty whatever it is given; the key is not handed to it at all.
        $values[Settings::MERCHANT_KEY] = '';
        $helper->tpl_vars = ['fields_value' => $values, 'languages' => $this->context->controller->getLanguages(), 'id_language' => $this->context->language->id];

        return $helper->generateForm([['form' => [
            'legend' => ['title' => $this->trans('Settings', [], $domain), 'icon' => 'icon-cogs'],
            'input' => $inputs,
            'submit' => ['title' => $this->trans('Save', [], 'Admin.Actions')],
        ]]]);
    }

    /** Whether the service answers (the kernel asks it at most once a minute), the last confirmed webhook and poll, the cron line. */
    private function renderStatusPanel()
    {
        $serviceUrl = Settings::get(Settings::SERVICE_URL);
        $check = $serviceUrl === '' ? null : $this->kernel()->probe($serviceUrl, false, ServiceProbe::TIMEOUT_SECONDS, Settings::settlement());
        $lastWebhook = $this->kernel()->lastVerifiedWebhook();
        $pollUrl = $this->context->link->getModuleLink($this->name, 'poll', ['token' => Settings::get(Settings::POLL_TOKEN)], true);
        $this->context->smarty->assign([
            'cryptocheckout_reachable' => $check !== null && $check['reachable'],
            'cryptocheckout_problem' => $check === null ? $this->trans('No service URL saved yet.', [], 'Modules.Cryptocheckout.Admin') : $check['message'],
            // Reachable, but the saved settlement is not offered: the service's answer, else ''.
            'cryptocheckout_not_offered' => $check !== null && $check['reachable'] && $check['offered'] === false ? $check['message'] : '',
            'cryptocheckout_last_webhook' => $lastWebhook === null ? '' : date('Y-m-d H:i:s', $lastWebhook),
            'cryptocheckout_last_poll' => Settings::get(Settings::LAST_POLL),
            // As often as the kernel's PollPolicy promises: every five minutes.
            'cryptocheckout_cron_line' => '*/' . (PollPolicy::INTERVAL_SECONDS / 60) . ' * * * * curl -fsS "' . $pollUrl . '" > /dev/null',
            'cryptocheckout_webhook_url' => $this->context->link->getModuleLink($this->name, 'webhook', [], true),
        ]);

        return $this->fetch('module:cryptocheckout/views/templates/admin/status.tpl');
    }

    /**
     * Every checkout of the order in words (the kernel's CheckoutLabels), its refunds (RefundLabels:
     * waiting for the buyer's address, the payment to send, paid with the chain link) and the
     * module's notes, on the back office order page. Opening the order looks its open refunds up
     * first (and records a paid one), so the page shows what the service says now.
     */
    public function hookDisplayAdminOrderMainBottom($params)
    {
        $order = new Order((int) ($params['id_order'] ?? 0));
        if (!Validate::isLoadedObject($order) || $order->module !== $this->name) {
            return '';
        }
        if (!$this->storageReady()) {
            return $this->displayError($this->upgradeProblem());
        }
        $admin = $this->translator('Modules.Cryptocheckout.Admin');
        $this->context->smarty->assign([
            'cryptocheckout_checkouts' => CheckoutLabels::rows($this->kernel()->checkouts((string) $order->id), time(), static function ($time) {
                return date('Y-m-d H:i:s', $time);
            }, $admin),
            'cryptocheckout_refunds' => array_map(static function (RefundRecord $refund) use ($admin) {
                return ['credit_slip' => (string) $refund->platformRefundId, 'status' => $refund->status, 'lines' => RefundLabels::lines($refund, $admin)];
            }, $this->freshRefunds((string) $order->id)),
            'cryptocheckout_notes' => PrestaShopOrderPort::notes((int) $order->id),
        ]);

        return $this->fetch('module:cryptocheckout/views/templates/admin/order.tpl');
    }

    /**
     * The order's refunds, newest first, after looking up again (Kernel::checkRefunds) those the
     * service may have moved on: open ones, and paid ones not recorded yet; each at most every
     * REFUND_LOOKUP_SECONDS, and REFUND_LOOKUPS_PER_PAGE per page view.
     *
     * @return list<RefundRecord>
     */
    private function freshRefunds($orderId)
    {
        $lookups = 0;
        foreach ($this->kernel()->refunds($orderId) as $refund) {
            $due = $refund->isOpen() || ($refund->status === RefundRecord::PAID && $refund->recordedAt === null);
            if ($due && $lookups < self::REFUND_LOOKUPS_PER_PAGE && ($refund->checkedAt === null || time() - $refund->checkedAt >= self::REFUND_LOOKUP_SECONDS)) {
                $this->kernel()->checkRefunds($this->refundPort(), $refund->refundId);
                ++$lookups;
            }
        }

        return $this->kernel()->refunds($orderId);
    }

    /**
     * A credit slip of an order paid with the module (the order page's partial refund, standard
     * refund or return: PrestaShop's OrderSlipCreator runs this hook once the slip is stored) refunds
     * the slip's total in crypto through the kernel: the slip's products and shipping, tax included,
     * in the order's currency, with the slip's id as the refund's reference. The buyer gets the claim
     * link (PrestaShopRefundPort::sendClaimLink); the admin reads the outcome as a message at the
     * top of the order page, and a refund that was not started also as a note on the order. Never
     * throws: the credit slip is made already, and an exception would only hide it behind an error.
     */
    public function hookActionOrderSlipAdd($params)
    {
        $order = $params['order'] ?? null;
        if (!$order instanceof Order || $order->module !== $this->name) {
            return;
        }
        $domain = 'Modules.Cryptocheckout.Admin';
        $orders = $this->kernel()->orders();
        if (!$this->storageReady()) {
            $orders->log('error', 'A credit slip was made while the module\'s tables are not up to date; nothing was refunded in crypto.', ['order' => (string) $order->id]);
            $this->flash('error', $this->plainText('Crypto Checkout could not refund the credit slip in crypto (%error%). Nothing was refunded in crypto.', ['%error%' => (string) (SchemaUpgrade::problem()['message'] ?? '')], $domain));

            return;
        }
        try {
            $slip = self::newestCreditSlip((int) $order->id);
            if ($slip === null) {
                $orders->log('error', 'A credit slip was announced, but the order has none; nothing was refunded in crypto.', ['order' => (string) $order->id]);

                return;
            }
            $idSlip = (int) $slip['id_order_slip'];
            if (self::refundsAsVoucher()) {
                $message = $this->plainText('Credit slip #%slip%: the refund is a voucher, so nothing is refunded in crypto.', ['%slip%' => (string) $idSlip], $domain);
                $this->flash('warning', $message);
                PrestaShopOrderPort::note($order, PrestaShopOrderPort::PREFIX . ' ' . $message);

                return;
            }
            $currency = (string) (new Currency((int) $order->id_currency))->iso_code;
            // DECIMAL(20,6) strings, added as decimals (both columns may be NULL on a slip another module made).
            $amount = Money::roundFiatAmount(Money::add((string) ($slip['total_products_tax_incl'] ?? '0'), (string) ($slip['total_shipping_tax_incl'] ?? '0')), $currency);
            $reason = $this->plainText('Credit slip #%slip% of order %reference%', ['%slip%' => (string) $idSlip, '%reference%' => (string) $order->reference], $domain);
            $start = $this->kernel()->startRefund((string) $order->id, $amount, $currency, (string) $idSlip, $reason, Settings::get(Settings::MERCHANT_KEY), $this->refundPort());
            $said = $this->plainText('Credit slip #%slip% (%amount% %currency%): %outcome%', ['%slip%' => (string) $idSlip, '%amount%' => $amount, '%currency%' => $currency, '%outcome%' => $start->message], $domain);
            if ($start->ok) {
                $this->flash($start->linkSent ? 'success' : 'warning', $said);

                return;
            }
            $orders->log('error', 'Refund of credit slip #' . $idSlip . ' not started: ' . ($start->detail ?? $start->message), ['order' => (string) $order->id, 'problem' => $start->problem]);
            $this->flash('error', $said);
            PrestaShopOrderPort::note($order, PrestaShopOrderPort::PREFIX . ' ' . $said);
        } catch (Exception $exception) {
            $orders->log('error', 'Refunding a credit slip in crypto failed: ' . $exception->getMessage(), ['order' => (string) $order->id]);
            $this->flash('error', $this->plainText('Crypto Checkout could not refund the credit slip in crypto (%error%). Nothing was refunded in crypto.', ['%error%' => $exception->getMessage()], $domain));
        }
    }

    /** @return array<string, mixed>|null the order's newest credit slip: the one PrestaShop has just stored */
    private static function newestCreditSlip($idOrder)
    {
        $row = Db::getInstance()->getRow('SELECT `id_order_slip`, `total_products_tax_incl`, `total_shipping_tax_incl` FROM `' . _DB_PREFIX_ . 'order_slip` WHERE `id_order` = ' . (int) $idOrder . ' ORDER BY `id_order_slip` DESC', false);

        return is_array($row) && $row !== [] ? $row : null;
    }

    /** Whether the order page's refund form asked for a voucher ("Generate a voucher"): the buyer is refunded in store credit then. */
    private static function refundsAsVoucher()
    {
        $form = Tools::getValue('cancel_product');

        return is_array($form) && !empty($form['voucher']);
    }

    /**
     * Shows $message at the top of the back office page the admin is sent to next: a flash message
     * of the Symfony session (PrestaShop 8's order page redirects to itself after a refund and shows
     * the session's flashes), or an error/warning/confirmation of a legacy admin controller.
     *
     * @param string $type success, warning or error
     */
    private function flash($type, $message)
    {
        try {
            $session = $this->get('session');
            if (is_object($session) && method_exists($session, 'getFlashBag')) {
                $session->getFlashBag()->add($type, $message);

                return;
            }
        } catch (Exception $noSession) {
            // A legacy page (no Symfony container): its controller shows the message below.
        }
        $controller = $this->context->controller;
        $list = ['success' => 'confirmations', 'warning' => 'warnings', 'error' => 'errors'][$type];
        if (is_object($controller) && property_exists($controller, $list) && is_array($controller->{$list})) {
            $controller->{$list}[] = $message;
        }
    }

    /**
     * What the buyer is told of a refund, in the order's language: the amount, the claim link and
     * why they must confirm an address. It is the message of PrestaShop's "Send a message to the
     * customer" on the order page (PrestaShopRefundPort::sendClaimLink()).
     *
     * @return string plain text
     */
    public function claimLinkMessage(Order $order, RefundRecord $refund)
    {
        $locale = (string) $order->getAssociatedLanguage()->locale;
        $network = Networks::get($refund->network);
        $parameters = [
            '%reference%' => (string) $order->reference,
            // The module always asks in the order's currency, so the service answers the fiat amount
            // too ("12"): shown with the currency's decimals, as the credit slip shows it ("12.00").
            '%fiat_amount%' => $refund->fiatAmount === null ? $refund->amount : Money::roundFiatAmount($refund->fiatAmount, $refund->fiatCurrency),
            '%fiat_currency%' => $refund->fiatAmount === null ? $refund->asset : $refund->fiatCurrency,
            '%amount%' => $refund->amount,
            '%asset%' => $refund->asset,
            '%network%' => $network === null ? $refund->network : (string) $network['name'],
            '%claim_url%' => (string) $refund->claimUrl,
        ];

        return htmlspecialchars_decode($this->trans('We are refunding %fiat_amount% %fiat_currency% of your order %reference%, paid as %amount% %asset% on %network%. Open this page and enter the address that should receive it (a wallet you control, not an exchange deposit address that needs a memo): %claim_url% The refund is sent once you have confirmed the address; the page shows when it is paid.', $parameters, 'Modules.Cryptocheckout.Shop', $locale), ENT_NOQUOTES);
    }

    /* ------------------------------------------------------------------ checkout */

    public function hookPaymentOptions($params)
    {
        if (!$this->active || !isset($params['cart'])) {
            return [];
        }
        // Tables behind and not brought up: no option (the banner and the log say why).
        if (!$this->storageReady() || !$this->isCartPayable($params['cart'])) {
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
     * for it (Payment > Preferences), the service accepts that currency, answers and offers the
     * saved settlement (the kernel's probe, at most once a minute). The validation controller does
     * not ask ($askService false): it opens the checkout right after, and on a failure keeps the
     * order with a retry link.
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
                if (!$askService) {
                    return true;
                }
                $check = $this->kernel()->probe(Settings::get(Settings::SERVICE_URL), false, self::PAYMENT_STEP_TIMEOUT_SECONDS, Settings::settlement());

                return $check['reachable'] && $check['offered'] !== false;
            }
        }

        return false;
    }

    /**
     * The checkout's terms: the total in the currency's ISO 4217 decimals ("25.00", "1500" for JPY),
     * the reference, the settings now, the webhook and return addresses.
     *
     * @throws CryptoCheckoutException when the currency is not one the service accepts
     */
    public function checkoutTerms(Order $order)
    {
        $isoCode = (string) (new Currency((int) $order->id_currency))->iso_code;
        $returnUrl = $this->getReturnUrl($order);

        return [
            // The total as PrestaShop stores it (a DECIMAL(20,6) string), rounded on decimals, never through a float.
            'fiat_amount' => Money::roundFiatAmount((string) $order->total_paid, $isoCode),
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

    /** The module's order named by a buyer's link (id_order and its secure key), or null. */
    public function orderFromLink()
    {
        $order = new Order((int) Tools::getValue('id_order'));
        $key = (string) Tools::getValue('key', '');

        return Validate::isLoadedObject($order) && $order->module === $this->name && $key !== '' && hash_equals((string) $order->secure_key, $key) ? $order : null;
    }

    /* ------------------------------------------------------------------ after the order */

    /** The confirmation page, where the buyer comes back from the payment page: as the order page. */
    public function hookDisplayPaymentReturn($params)
    {
        return $this->hookDisplayOrderDetail($params);
    }

    /**
     * The customer's and the guest's order page: the status box (StatusWidgetMarkup, BuyerStatus
     * after a due check; the front script refreshes it). Below it a new payment is offered only
     * when nothing more can happen and the order is unpaid: never while a payment is being
     * confirmed (not terminal), nor when part-paid. An order without a checkout gets the link alone.
     */
    public function hookDisplayOrderDetail($params)
    {
        $order = $params['order'] ?? null;
        if (!$this->active || !$order instanceof Order || $order->module !== $this->name || !$this->storageReady()) {
            return '';
        }
        $status = $this->kernel()->buyerStatus((string) $order->id);
        $html = '';
        if ($status === null) {
            $retry = $this->kernel()->orderState((string) $order->id) === OrderState::AWAITING_PAYMENT;
        } else {
            $statusUrl = $this->context->link->getModuleLink($this->name, 'status', ['id_order' => (int) $order->id, 'key' => $order->secure_key], true);
            $html = StatusWidgetMarkup::render($status, $statusUrl, $this->translator('Modules.Cryptocheckout.Shop'));
            $retry = $status['terminal'] && $status['state'] === OrderState::AWAITING_PAYMENT && $status['checkout_url'] === null;
        }
        if ($retry) {
            $this->context->smarty->assign(['cryptocheckout_retry_url' => $this->getRetryUrl($order)]);
            $html .= $this->fetch('module:cryptocheckout/views/templates/hook/retry.tpl');
        }

        return $html;
    }

    public function hookActionFrontControllerSetMedia($params)
    {
        $controller = $this->context->controller;
        if ($this->active && isset($controller->php_self) && in_array($controller->php_self, self::STATUS_PAGES, true)) {
            $controller->registerJavascript('modules-cryptocheckout-front', 'modules/' . $this->name . '/views/js/front.js', ['position' => 'bottom', 'priority' => 150]);
        }
    }

    /**
     * The module's translations as the kernel calls them, (text, %placeholders%) => plain text:
     * unescaped, as the kernel escapes what it prints (Module::trans() HTML-escapes).
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
}
