<?php
/**
 * Test harness: the PrestaShop 8.1.2 tables the module touches (SQLite dialect, PrestaShop's
 * column names), the default order states and configuration of a fresh shop, and helpers that
 * stand in for the parts of the storefront and back office a test drives (a customer with a
 * cart, an employee in the back office, a front controller request).
 */

require_once __DIR__ . '/prestashop.php';

final class HarnessShop
{
    /** PrestaShop's default order state ids (install-dev/data/xml/order_state.xml). */
    const STATES = [
        'PS_OS_CHEQUE' => [1, 'Awaiting check payment', 0, 0],
        'PS_OS_PAYMENT' => [2, 'Payment accepted', 1, 1],
        'PS_OS_PREPARATION' => [3, 'Processing in progress', 1, 1],
        'PS_OS_SHIPPING' => [4, 'Shipped', 1, 1],
        'PS_OS_DELIVERED' => [5, 'Delivered', 1, 1],
        'PS_OS_CANCELED' => [6, 'Canceled', 0, 0],
        'PS_OS_REFUND' => [7, 'Refunded', 1, 1],
        'PS_OS_ERROR' => [8, 'Payment error', 0, 0],
        'PS_OS_BANKWIRE' => [10, 'Awaiting bank wire payment', 0, 0],
    ];

    /** Creates the tables and the default data once per database file. */
    public static function install()
    {
        $db = Db::getInstance();
        if ($db->getValue("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ps_configuration'")) {
            return;
        }
        $tables = [
            'configuration (id_configuration INTEGER PRIMARY KEY AUTOINCREMENT, name VARCHAR(254) NOT NULL UNIQUE, value TEXT, date_add DATETIME, date_upd DATETIME)',
            'module (id_module INTEGER PRIMARY KEY AUTOINCREMENT, name VARCHAR(64) NOT NULL UNIQUE, active INTEGER NOT NULL DEFAULT 0, version VARCHAR(8))',
            'hook (id_hook INTEGER PRIMARY KEY AUTOINCREMENT, name VARCHAR(191) NOT NULL UNIQUE, title VARCHAR(255) NOT NULL DEFAULT \'\')',
            'hook_module (id_module INTEGER NOT NULL, id_shop INTEGER NOT NULL DEFAULT 1, id_hook INTEGER NOT NULL, position INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (id_module, id_hook, id_shop))',
            'module_currency (id_module INTEGER NOT NULL, id_shop INTEGER NOT NULL DEFAULT 1, id_currency INTEGER NOT NULL, PRIMARY KEY (id_module, id_shop, id_currency))',
            'currency (id_currency INTEGER PRIMARY KEY AUTOINCREMENT, name VARCHAR(64), iso_code VARCHAR(3) NOT NULL, conversion_rate DECIMAL(13,6) NOT NULL DEFAULT 1, precision INTEGER NOT NULL DEFAULT 2, active INTEGER NOT NULL DEFAULT 1)',
            'customer (id_customer INTEGER PRIMARY KEY AUTOINCREMENT, firstname VARCHAR(255), lastname VARCHAR(255), email VARCHAR(255), passwd VARCHAR(255), secure_key VARCHAR(32), is_guest INTEGER DEFAULT 0)',
            'cart (id_cart INTEGER PRIMARY KEY AUTOINCREMENT, id_customer INTEGER, id_currency INTEGER, id_lang INTEGER, id_shop INTEGER, id_address_delivery INTEGER, id_address_invoice INTEGER, secure_key VARCHAR(32), harness_total VARCHAR(32))',
            'orders (id_order INTEGER PRIMARY KEY AUTOINCREMENT, reference VARCHAR(9), id_shop INTEGER, id_cart INTEGER, id_currency INTEGER, id_lang INTEGER, id_customer INTEGER, current_state INTEGER, secure_key VARCHAR(32), payment VARCHAR(255), module VARCHAR(255), conversion_rate DECIMAL(13,6), total_paid DECIMAL(20,6), total_paid_tax_incl DECIMAL(20,6), total_paid_tax_excl DECIMAL(20,6), total_paid_real DECIMAL(20,6), valid INTEGER, date_add DATETIME, date_upd DATETIME)',
            'order_history (id_order_history INTEGER PRIMARY KEY AUTOINCREMENT, id_employee INTEGER, id_order INTEGER, id_order_state INTEGER, date_add DATETIME)',
            'order_state (id_order_state INTEGER PRIMARY KEY AUTOINCREMENT, invoice INTEGER, send_email INTEGER, module_name VARCHAR(255), color VARCHAR(32), unremovable INTEGER, hidden INTEGER, logable INTEGER, delivery INTEGER, shipped INTEGER, paid INTEGER, pdf_invoice INTEGER, pdf_delivery INTEGER, deleted INTEGER DEFAULT 0)',
            'order_state_lang (id_order_state INTEGER, id_lang INTEGER, name VARCHAR(64), template VARCHAR(64), PRIMARY KEY (id_order_state, id_lang))',
            'order_payment (id_order_payment INTEGER PRIMARY KEY AUTOINCREMENT, order_reference VARCHAR(9), id_currency INTEGER, amount DECIMAL(20,6), payment_method VARCHAR(255), conversion_rate DECIMAL(13,6), transaction_id VARCHAR(254), id_employee INTEGER, date_add DATETIME)',
            'message (id_message INTEGER PRIMARY KEY AUTOINCREMENT, id_cart INTEGER, id_customer INTEGER, id_employee INTEGER, id_order INTEGER, message TEXT, private INTEGER, date_add DATETIME)',
            'customer_thread (id_customer_thread INTEGER PRIMARY KEY AUTOINCREMENT, id_shop INTEGER, id_lang INTEGER NOT NULL, id_contact INTEGER NOT NULL, id_customer INTEGER, id_order INTEGER, id_product INTEGER, status VARCHAR(8) NOT NULL DEFAULT \'open\', email VARCHAR(255) NOT NULL, token VARCHAR(12), date_add DATETIME, date_upd DATETIME)',
            'customer_message (id_customer_message INTEGER PRIMARY KEY AUTOINCREMENT, id_customer_thread INTEGER, id_employee INTEGER, message TEXT NOT NULL, file_name VARCHAR(18), ip_address VARCHAR(16), user_agent VARCHAR(128), date_add DATETIME, date_upd DATETIME, private INTEGER NOT NULL DEFAULT 0, `read` INTEGER NOT NULL DEFAULT 0)',
            // As 8.1.2's install/data/db_structure.sql.
            'order_slip (id_order_slip INTEGER PRIMARY KEY AUTOINCREMENT, conversion_rate DECIMAL(13,6) NOT NULL DEFAULT 1, id_customer INTEGER NOT NULL, id_order INTEGER NOT NULL, total_products_tax_excl DECIMAL(20,6), total_products_tax_incl DECIMAL(20,6), total_shipping_tax_excl DECIMAL(20,6), total_shipping_tax_incl DECIMAL(20,6), shipping_cost INTEGER NOT NULL DEFAULT 0, amount DECIMAL(20,6) NOT NULL DEFAULT 0, shipping_cost_amount DECIMAL(20,6) NOT NULL DEFAULT 0, partial INTEGER NOT NULL, order_slip_type INTEGER NOT NULL DEFAULT 0, date_add DATETIME NOT NULL, date_upd DATETIME NOT NULL)',
            // Not PrestaShop's: the e-mails Mail::send() sent, for tests to read.
            'harness_mail (id INTEGER PRIMARY KEY AUTOINCREMENT, id_lang INTEGER, template VARCHAR(62), template_path VARCHAR(255), subject TEXT, template_vars TEXT, recipient VARCHAR(255), recipient_name VARCHAR(255), id_shop INTEGER)',
            'log (id_log INTEGER PRIMARY KEY AUTOINCREMENT, severity INTEGER, error_code INTEGER, message TEXT, object_type VARCHAR(32), object_id INTEGER, date_add DATETIME)',
        ];
        foreach ($tables as $table) {
            $db->execute('CREATE TABLE ' . _DB_PREFIX_ . $table);
        }
        foreach (self::STATES as $key => $state) {
            $db->insert('order_state', ['id_order_state' => $state[0], 'logable' => $state[2], 'paid' => $state[3], 'invoice' => $state[3], 'color' => '#000000', 'module_name' => '', 'deleted' => 0]);
            $db->insert('order_state_lang', ['id_order_state' => $state[0], 'id_lang' => 1, 'name' => pSQL($state[1]), 'template' => '']);
            Configuration::updateValue($key, $state[0]);
        }
        foreach ([['Euro', 'EUR', '1.000000', 2], ['US Dollar', 'USD', '1.080000', 2], ['Japanese yen', 'JPY', '160.000000', 0], ['West African CFA franc', 'XOF', '655.957000', 0]] as $currency) {
            $db->insert('currency', ['name' => $currency[0], 'iso_code' => $currency[1], 'conversion_rate' => $currency[2], 'precision' => $currency[3], 'active' => 1]);
        }
        Configuration::updateValue('PS_CURRENCY_DEFAULT', 1);
        Configuration::updateValue('PS_LANG_DEFAULT', 1);
        Configuration::updateValue('PS_SHOP_NAME', 'Harness shop');
        // A fresh 8.1.2 shop: PHP's mail(), HTML and text e-mails.
        Configuration::updateValue('PS_MAIL_METHOD', 1);
        Configuration::updateValue('PS_MAIL_TYPE', 3);
    }

    /** A customer with a cart of $total in $iso; returns [id_cart, id_customer, secure_key]. */
    public static function createCart($total, $iso = 'EUR')
    {
        $customer = new Customer();
        $customer->firstname = 'Ada';
        $customer->lastname = 'Buyer';
        $customer->email = 'ada@example.com';
        $customer->passwd = md5(uniqid('', true));
        $customer->secure_key = md5(uniqid('', true));
        $customer->add();
        $cart = new Cart();
        $cart->id_customer = $customer->id;
        $cart->id_currency = Currency::getIdByIsoCode($iso);
        $cart->secure_key = $customer->secure_key;
        $cart->harness_total = $total;
        $cart->add();

        return ['id_cart' => (int) $cart->id, 'id_customer' => (int) $customer->id, 'secure_key' => $customer->secure_key];
    }

    /** Puts the storefront context of a buyer (cart, customer, currency) in place. */
    public static function actAsBuyer($id_cart)
    {
        $context = Context::getContext();
        $context->cart = new Cart((int) $id_cart);
        $context->customer = new Customer((int) $context->cart->id_customer);
        $context->currency = new Currency((int) $context->cart->id_currency);
        $context->cookie = (object) ['id_cart' => (int) $id_cart, 'id_customer' => (int) $context->cart->id_customer];
    }

    /** Puts a logged-in employee on the back office's module page in place. */
    public static function actAsEmployee()
    {
        $context = Context::getContext();
        $context->employee = new Employee(1);
        $context->controller = new AdminModulesController();
    }

    /**
     * The back office order page's "Partial refund" (PrestaShop 8.1.2: OrderController::
     * partialRefundAction() → IssuePartialRefundHandler → OrderSlipCreator::create()), run by a
     * logged-in employee on the Symfony page: the credit slip is stored with the totals the refund
     * form's amounts came to (tax included, in the order's currency), then actionOrderSlipAdd runs
     * with the order, the product list and the quantities, only for the order's shop; the
     * controller adds its own success flash and redirects to the order page, which shows every
     * flash of the session. The form's other choices ride in $_POST['cancel_product'] as the
     * browser posts them (credit_slip, voucher, shipping_amount, …).
     *
     * @param array<string, string> $form extra fields of the cancel_product form, e.g. ['voucher' => '1']
     * @return array{id_order_slip: int, flashes: array<string, list<string>>}
     */
    public static function partialRefund($id_order, $products_tax_incl, $shipping_tax_incl = '0', array $form = [])
    {
        $order = new Order((int) $id_order);
        $context = Context::getContext();
        $context->employee = new Employee(1);
        HarnessSession::$current = new HarnessSession();
        $_POST['cancel_product'] = $form + ['credit_slip' => '1', 'shipping_amount' => (string) $shipping_tax_incl];
        $slip = new OrderSlip();
        $slip->id_customer = (int) $order->id_customer;
        $slip->id_order = (int) $order->id;
        $slip->conversion_rate = 1;
        $slip->total_products_tax_incl = $products_tax_incl;
        $slip->total_products_tax_excl = $products_tax_incl;
        $slip->total_shipping_tax_incl = $shipping_tax_incl;
        $slip->total_shipping_tax_excl = $shipping_tax_incl;
        $slip->shipping_cost = (float) $shipping_tax_incl > 0;
        $slip->shipping_cost_amount = $shipping_tax_incl;
        $slip->amount = $products_tax_incl;
        $slip->partial = 0;
        if (!$slip->add()) {
            throw new PrestaShopException('You cannot generate a partial credit slip.');
        }
        $productList = [1 => ['id_order_detail' => 1, 'quantity' => 1, 'amount' => (float) $products_tax_incl, 'unit_price' => (float) $products_tax_incl]];
        Hook::exec('actionOrderSlipAdd', [
            'order' => $order,
            'productList' => $productList,
            'qtyList' => array_map(function ($orderDetail) { return $orderDetail['quantity']; }, $productList),
        ], null, false, true, false, $order->id_shop);
        HarnessSession::$current->getFlashBag()->add('success', 'A partial refund was successfully created.');
        $flashes = HarnessSession::$current->getFlashBag()->all();
        HarnessSession::$current = null;
        unset($_POST['cancel_product']);

        return ['id_order_slip' => (int) $slip->id, 'flashes' => $flashes];
    }

    /** @return list<array{template: string, template_path: string, subject: string, to: string, vars: array<string, string>}> the e-mails sent, oldest first */
    public static function sentMails()
    {
        return array_map(static function ($row) {
            return ['template' => $row['template'], 'template_path' => $row['template_path'], 'subject' => $row['subject'], 'to' => $row['recipient'], 'vars' => json_decode($row['template_vars'], true)];
        }, Db::getInstance()->executeS('SELECT * FROM ' . _DB_PREFIX_ . 'harness_mail ORDER BY id'));
    }

    /**
     * What PrestaShop 8.1's back office order page lists under "Messages": the order's customer
     * thread, as CustomerDataProvider::getCustomerMessages() reads it (GetOrderForViewingHandler).
     * The old Message table is not read there.
     *
     * @return list<array{message: string, private: int, id_employee: int}>
     */
    public static function orderPageMessages($id_order)
    {
        $order = new Order((int) $id_order);
        $rows = Db::getInstance()->executeS('SELECT cm.* FROM ' . _DB_PREFIX_ . 'customer_thread ct LEFT JOIN ' . _DB_PREFIX_ . 'customer_message cm ON ct.id_customer_thread = cm.id_customer_thread WHERE ct.id_customer = ' . (int) $order->id_customer . ' AND ct.`id_order` = ' . (int) $order->id . ' GROUP BY cm.id_customer_message ORDER BY cm.date_add DESC, cm.id_customer_message DESC');
        // (PrestaShop orders by date_add only; the id breaks ties of one second so tests read a stable order.)

        return array_map(static function ($row) {
            return ['message' => (string) $row['message'], 'private' => (int) $row['private'], 'id_employee' => (int) $row['id_employee']];
        }, $rows);
    }

    /** The order's state history as [id_order_state, …]. */
    public static function stateHistory($id_order)
    {
        return array_map('intval', array_column((new Order((int) $id_order))->getHistory(1), 'id_order_state'));
    }

    /**
     * Runs a front controller the way PrestaShop's dispatcher does for /module/<module>/<controller>
     * and returns what it produced; redirects and die() paths stop the run as they stop PrestaShop.
     */
    public static function runFrontController($module, $controller)
    {
        $_GET['fc'] = 'module';
        $_GET['module'] = $module;
        $_GET['controller'] = $controller;
        // As PrestaShop's Dispatcher: the module is loaded, and must be active, before its controller file.
        $instance = Module::getInstanceByName($module);
        if (!$instance || !$instance->active || !is_file(_PS_MODULE_DIR_ . $module . '/controllers/front/' . $controller . '.php')) {
            http_response_code(404);

            return;
        }
        require_once _PS_MODULE_DIR_ . $module . '/controllers/front/' . $controller . '.php';
        $class = $module . $controller . 'ModuleFrontController';
        try {
            $instance = new $class();
            $instance->run();
        } catch (HarnessExit $exit) {
            // Tools::redirect(), die() and ajaxDie() end the request here.
        } catch (PrestaShopException $exception) {
            // PrestaShop answers an uncaught PrestaShopException with its error page.
            http_response_code(500);
            echo 'PrestaShopException: ' . $exception->getMessage();
        } catch (Throwable $exception) {
            // Any other uncaught exception is a fatal error: PHP's server answers 500 (a real
            // 8.1.2 shop under php -S answered a module's PDOException so), not the 200 php-wasm
            // would report.
            http_response_code(500);
            echo 'Fatal error: Uncaught ' . get_class($exception) . ': ' . $exception->getMessage();
        }
    }
}
