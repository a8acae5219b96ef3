import {
  closedLoopbackUrl,
  describeEachPhp,
  phpString,
  type SandboxService,
  startSandboxService,
} from '@cryptocheckout/php-testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  installAndConfigure,
  type ModuleCopy,
  PRESTASHOP_PHP_VERSIONS,
  prelude,
  prepareModule,
  WALLET,
} from './harness/harness.js';
import {
  CLAIM_SWAPS_EXPECTED,
  CLAIM_SWAPS_PHP,
  DUE_CHECKOUTS_PHP,
  expectDueMatchesKernel,
} from './storage-scenarios.js';

// The module inside the PrestaShop 8.1.2 harness, in-process: install and uninstall, the back
// office form (save, validation errors, token), the status panel, payment option visibility and
// the hooks that render templates.

const copy: ModuleCopy = await prepareModule();
let service: SandboxService;

beforeAll(async () => {
  service = await startSandboxService();
});

afterAll(async () => {
  await service?.close();
  copy?.remove();
});

let databases = 0;

describeEachPhp(
  'PrestaShop module',
  ({ php, version }) => {
    /** Runs `code` on a fresh shop database and returns the JSON it prints. */
    const run = (code: string, db = `module-${version}-${++databases}.sqlite`) =>
      php().runJson(prelude(db) + code) as Promise<Record<string, unknown>>;

    describe('install and uninstall', () => {
      it('registers its hooks, creates its order states once and its table', async () => {
        const result = await run(`
$module = Module::getInstanceByName('cryptocheckout');
$installed = $module->install();
$hooks = [];
foreach (['paymentOptions', 'displayPaymentReturn', 'displayOrderDetail', 'displayAdminOrderMainBottom', 'actionFrontControllerSetMedia'] as $hook) {
    $hooks[$hook] = $module->isRegisteredInHook($hook);
}
$states = [];
foreach (['CRYPTOCHECKOUT_OS_AWAITING', 'CRYPTOCHECKOUT_OS_UNDERPAID', 'CRYPTOCHECKOUT_OS_REVIEW'] as $key) {
    $state = new OrderState((int) Configuration::get($key), 1);
    $states[$key] = ['name' => $state->name, 'module' => $state->module_name, 'paid' => (int) $state->paid, 'logable' => (int) $state->logable];
}
$first = array_map(function ($key) { return (int) Configuration::get($key); }, ['CRYPTOCHECKOUT_OS_AWAITING', 'CRYPTOCHECKOUT_OS_UNDERPAID', 'CRYPTOCHECKOUT_OS_REVIEW']);
// An open order's checkout, which must outlive an uninstall (or a "Reset") by default.
(new CryptoCheckout\\PrestaShop\\CheckoutRepository())->add(7, CryptoCheckout\\PrestaShop\\Vendor\\Client\\Kernel\\StoredCheckout::fromArray([
    'transaction_code' => '3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f', 'checkout_url' => 'https://pay.example/pay/3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f',
    'service_url' => 'https://pay.example', 'fiat_amount' => '25.00', 'fiat_currency' => 'EUR', 'wallet_address' => '0xabc',
    'wallet_currency' => 'USDC', 'wallet_network' => 'POLYGON', 'created_at' => time(),
]));
Configuration::updateValue('CRYPTOCHECKOUT_SERVICE_URL', 'https://pay.example');
$token = (string) Configuration::get('CRYPTOCHECKOUT_POLL_TOKEN');
// Reinstalling after an uninstall takes the same states back instead of adding new ones.
$module->uninstall();
$afterUninstall = (int) Db::getInstance()->getValue("SELECT COUNT(*) FROM ps_configuration WHERE name LIKE 'CRYPTOCHECKOUT_%'");
$keptCheckout = (new CryptoCheckout\\PrestaShop\\CheckoutRepository())->findOrder('3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f');
$module = Module::getInstanceByName('cryptocheckout');
$reinstalled = $module->install();
$second = array_map(function ($key) { return (int) Configuration::get($key); }, ['CRYPTOCHECKOUT_OS_AWAITING', 'CRYPTOCHECKOUT_OS_UNDERPAID', 'CRYPTOCHECKOUT_OS_REVIEW']);
$moduleStates = (int) Db::getInstance()->getValue("SELECT COUNT(*) FROM ps_order_state WHERE module_name = 'cryptocheckout'");
$kept = [
    'checkout' => $keptCheckout,
    'service_url' => Configuration::get('CRYPTOCHECKOUT_SERVICE_URL'),
    'same_token' => Configuration::get('CRYPTOCHECKOUT_POLL_TOKEN') === $token,
];
// With "Delete data on uninstall" switched on, everything goes.
Configuration::updateValue('CRYPTOCHECKOUT_DELETE_DATA_ON_UNINSTALL', '1');
$module->uninstall();
$afterDelete = (int) Db::getInstance()->getValue("SELECT COUNT(*) FROM ps_configuration WHERE name LIKE 'CRYPTOCHECKOUT_%'");
$tableGone = !Db::getInstance()->getValue("SELECT 1 FROM sqlite_master WHERE name IN ('ps_cryptocheckout_checkout', 'ps_cryptocheckout_claim')");
$module = Module::getInstanceByName('cryptocheckout');
$module->install();
$tablesBack = (int) Db::getInstance()->getValue("SELECT COUNT(*) FROM sqlite_master WHERE name IN ('ps_cryptocheckout_checkout', 'ps_cryptocheckout_claim')");
echo json_encode([
    'installed' => $installed, 'hooks' => $hooks, 'states' => $states, 'first' => $first, 'second' => $second,
    'moduleStates' => $moduleStates, 'afterUninstall' => $afterUninstall, 'kept' => $kept, 'afterDelete' => $afterDelete, 'tableGone' => $tableGone, 'reinstalled' => $reinstalled, 'tablesBack' => $tablesBack,
    'token' => strlen((string) Configuration::get('CRYPTOCHECKOUT_POLL_TOKEN')),
    'version' => $module->version, 'tab' => $module->tab, 'controllers' => $module->controllers,
    'compliancy' => $module->ps_versions_compliancy, 'currencies' => count(Currency::checkPaymentCurrencies($module->id)),
]);`);
        expect(result.installed).toBe(true);
        expect(Object.values(result.hooks as Record<string, boolean>)).toEqual([
          true,
          true,
          true,
          true,
          true,
        ]);
        expect(result.states).toEqual({
          CRYPTOCHECKOUT_OS_AWAITING: {
            name: 'Awaiting crypto payment',
            module: 'cryptocheckout',
            paid: 0,
            logable: 0,
          },
          CRYPTOCHECKOUT_OS_UNDERPAID: {
            name: 'Crypto payment underpaid',
            module: 'cryptocheckout',
            paid: 0,
            logable: 0,
          },
          CRYPTOCHECKOUT_OS_REVIEW: {
            name: 'Crypto payment to review',
            module: 'cryptocheckout',
            paid: 0,
            logable: 0,
          },
        });
        // Uninstalling keeps the checkouts and settings (the order states are only retired)…
        expect(result.afterUninstall).toBeGreaterThan(5);
        expect(result.kept).toEqual({ checkout: 7, service_url: 'https://pay.example', same_token: true });
        // …unless the merchant asked for the data to be deleted.
        expect(result.afterDelete).toBe(0);
        expect(result.tableGone).toBe(true);
        expect(result.reinstalled).toBe(true);
        expect(result.tablesBack).toBe(2);
        expect(result.second).toEqual(result.first);
        expect(result.moduleStates).toBe(3);
        expect(result.token).toBe(48);
        expect(result).toMatchObject({
          version: '1.2.0',
          tab: 'payments_gateways',
          controllers: ['validation', 'webhook', 'status', 'poll'],
          compliancy: { min: '8.0.0', max: '8.99.99' },
        });
        expect(result.currencies).toBeGreaterThan(0);
      });

      it('refuses a second install of the same module', async () => {
        const result = await run(`
$module = Module::getInstanceByName('cryptocheckout');
$first = $module->install();
$second = Module::getInstanceByName('cryptocheckout')->install();
echo json_encode([$first, $second, (int) Db::getInstance()->getValue("SELECT COUNT(*) FROM ps_order_state WHERE module_name = 'cryptocheckout'")]);`);
        expect(result).toEqual([true, false, 3]);
      });

      it('upgrades to 1.0.1 without duplicating states or hooks', async () => {
        const result = await run(`
$module = Module::getInstanceByName('cryptocheckout');
$module->install();
require_once _PS_MODULE_DIR_ . 'cryptocheckout/upgrade/upgrade-1.0.1.php';
$ok = upgrade_module_1_0_1($module);
echo json_encode([$ok, (int) Db::getInstance()->getValue("SELECT COUNT(*) FROM ps_order_state WHERE module_name = 'cryptocheckout'"), $module->isRegisteredInHook('displayAdminOrderMainBottom')]);`);
        expect(result).toEqual([true, 3, true]);
      });
      it('upgrades to 1.1.0 carrying every checkout of the one-row-per-order table over', async () => {
        const result = await run(`
$module = Module::getInstanceByName('cryptocheckout');
$module->install();
Configuration::updateValue('CRYPTOCHECKOUT_SERVICE_URL', 'https://pay.example.com');
$db = Db::getInstance();
// The shop as 1.0.1 left it: its table and rows, none of the new tables.
$db->execute('DROP TABLE ps_cryptocheckout_checkout');
$db->execute('DROP TABLE ps_cryptocheckout_claim');
$db->execute('CREATE TABLE IF NOT EXISTS \`ps_cryptocheckout_transaction\` (
    \`id_order\` INT(10) UNSIGNED NOT NULL, \`id_cart\` INT(10) UNSIGNED NOT NULL, \`transaction_code\` VARCHAR(64) NULL,
    \`checkout_url\` VARCHAR(2048) NULL, \`fiat_amount\` VARCHAR(32) NOT NULL, \`fiat_currency\` VARCHAR(3) NOT NULL,
    \`wallet_address\` VARCHAR(128) NOT NULL, \`wallet_currency\` VARCHAR(16) NOT NULL, \`wallet_network\` VARCHAR(16) NOT NULL,
    \`state\` VARCHAR(32) NOT NULL DEFAULT \\'awaiting_payment\\', \`last_status\` VARCHAR(32) NULL, \`last_checked\` DATETIME NULL,
    \`date_add\` DATETIME NOT NULL, \`date_upd\` DATETIME NOT NULL,
    PRIMARY KEY (\`id_order\`), UNIQUE KEY \`cryptocheckout_code\` (\`transaction_code\`), KEY \`cryptocheckout_state\` (\`state\`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4');
$recent = date('Y-m-d H:i:s', time() - 600);
$old = date('Y-m-d H:i:s', time() - 3 * 86400);
$rows = [
    [1, 'AAAAAAAA-0000-4000-8000-000000000001', 'awaiting_payment', 'pending', $recent, $recent],
    [2, 'aaaaaaaa-0000-4000-8000-000000000002', 'paid', 'settled', $recent, $recent],
    [3, 'aaaaaaaa-0000-4000-8000-000000000003', 'late_payment_review', 'settled', $old, $old],
    [4, 'aaaaaaaa-0000-4000-8000-000000000004', 'cancelled', 'expired', $old, $old],
    [5, 'aaaaaaaa-0000-4000-8000-000000000005', 'underpaid', 'underpaid', $recent, $recent],
    [6, null, 'awaiting_payment', null, null, $recent],
];
foreach ($rows as [$id, $code, $state, $status, $checked, $added]) {
    $db->insert('cryptocheckout_transaction', [
        'id_order' => $id, 'id_cart' => 10 + $id, 'transaction_code' => $code, 'checkout_url' => $code ? 'https://pay.example.com/pay/' . strtolower($code) : null,
        'fiat_amount' => '25.00', 'fiat_currency' => 'EUR', 'wallet_address' => ${phpString(WALLET)}, 'wallet_currency' => 'USDC',
        'wallet_network' => 'POLYGON', 'state' => $state, 'last_status' => $status, 'last_checked' => $checked, 'date_add' => $added, 'date_upd' => $added,
    ], true);
}
require_once _PS_MODULE_DIR_ . 'cryptocheckout/upgrade/upgrade-1.1.0.php';
$ok = upgrade_module_1_1_0($module);
$port = new CryptoCheckout\\PrestaShop\\PrestaShopOrderPort($module);
$checkouts = [];
foreach ([1, 2, 3, 4, 5, 6] as $id) {
    $checkouts[$id] = array_map(function ($checkout) { return $checkout->toArray(); }, $port->checkouts((string) $id));
}
echo json_encode([
    'ok' => $ok,
    'legacyKept' => (bool) $db->getValue("SELECT 1 FROM sqlite_master WHERE name = 'ps_cryptocheckout_transaction'"),
    'checkouts' => $checkouts,
    'found' => $port->findOrderByTransactionCode('AAAAAAAA-0000-4000-8000-000000000001'),
    'due' => $port->dueCheckouts(new CryptoCheckout\\PrestaShop\\Vendor\\Client\\Kernel\\PollPolicy(), time()),
    'recent' => strtotime($recent),
    'again' => upgrade_module_1_1_0($module),
]);`);
        expect(result.ok).toBe(true);
        expect(result.legacyKept).toBe(false);
        const checkouts = result.checkouts as Record<string, Array<Record<string, unknown>>>;
        expect(checkouts['6']).toEqual([]);
        expect(checkouts['1']).toEqual([
          {
            transaction_code: 'aaaaaaaa-0000-4000-8000-000000000001',
            checkout_url: 'https://pay.example.com/pay/aaaaaaaa-0000-4000-8000-000000000001',
            service_url: 'https://pay.example.com',
            fiat_amount: '25.00',
            fiat_currency: 'EUR',
            wallet_address: WALLET,
            wallet_currency: 'USDC',
            wallet_network: 'POLYGON',
            created_at: result.recent,
            expires_at: null,
            watch_until: expect.any(Number),
            checked_at: result.recent,
            last_status: 'pending',
            received_usd: null,
            applied_action: null,
            resolution: null,
          },
        ]);
        const outcome = (id: string) => [checkouts[id]?.[0]?.applied_action, checkouts[id]?.[0]?.resolution];
        expect(outcome('2')).toEqual(['mark_paid', 'booked']);
        expect(outcome('3')).toEqual(['hold_late_payment', 'flagged']);
        expect(outcome('4')).toEqual(['cancel_expired', null]);
        expect(outcome('5')).toEqual(['hold_underpaid', null]);
        expect(result.found).toBe('1');
        // What was still open is polled (the old cancelled one once more, to learn its real expiry);
        // what was booked or handed to the merchant is not.
        expect((result.due as string[][]).map(([id]) => id).sort()).toEqual(['1', '4', '5']);
        expect(result.again).toBe(true);
      });
    });

    describe('back office configuration', () => {
      /** Submits the settings form as the back office does and reports the page and the saved values. */
      const submit = (fields: Record<string, string>, token = 'valid') =>
        run(`
${installAndConfigure(service.url)}
HarnessShop::actAsEmployee();
$_POST = json_decode(${phpString(JSON.stringify({ submitCryptocheckout: '1', ...fields }))}, true);
$_POST['token'] = ${token === 'valid' ? "Tools::getAdminTokenLite('AdminModules')" : phpString(token)};
$html = Module::getInstanceByName('cryptocheckout')->getContent();
$saved = [];
foreach (['CRYPTOCHECKOUT_SERVICE_URL', 'CRYPTOCHECKOUT_WALLET_ADDRESS', 'CRYPTOCHECKOUT_ASSET', 'CRYPTOCHECKOUT_NETWORK', 'CRYPTOCHECKOUT_DISPLAY_MODE', 'CRYPTOCHECKOUT_DEBUG'] as $key) {
    $saved[$key] = Configuration::get($key);
}
echo json_encode(['html' => $html, 'saved' => $saved, 'js' => Context::getContext()->controller->js_files]);`);

      /** Valid settings; a function because the service's address is known only once it started. */
      const valid = () => ({
        CRYPTOCHECKOUT_SERVICE_URL: `${service.url}/`,
        CRYPTOCHECKOUT_WALLET_ADDRESS: ` ${WALLET.toLowerCase()} `,
        CRYPTOCHECKOUT_ASSET: 'USDT',
        CRYPTOCHECKOUT_NETWORK: 'POLYGON',
        CRYPTOCHECKOUT_DISPLAY_MODE: 'embedded',
        CRYPTOCHECKOUT_DEBUG: '1',
      });

      it('saves valid settings, normalised (trailing slash, checksummed wallet)', async () => {
        const result = await submit(valid());
        expect(result.html).toContain(`Settings updated. The service at ${service.url} answers.`);
        expect(result.saved).toEqual({
          CRYPTOCHECKOUT_SERVICE_URL: service.url,
          CRYPTOCHECKOUT_WALLET_ADDRESS: WALLET,
          CRYPTOCHECKOUT_ASSET: 'USDT',
          CRYPTOCHECKOUT_NETWORK: 'POLYGON',
          CRYPTOCHECKOUT_DISPLAY_MODE: 'embedded',
          CRYPTOCHECKOUT_DEBUG: '1',
        });
        expect(result.js).toEqual(['/modules/cryptocheckout/views/js/admin.js']);
      });

      it('refuses invalid settings with messages naming each field, and keeps the old values', async () => {
        const result = await submit({
          CRYPTOCHECKOUT_SERVICE_URL: 'ftp://pay.example.com',
          CRYPTOCHECKOUT_WALLET_ADDRESS: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
          CRYPTOCHECKOUT_ASSET: 'BTC',
          CRYPTOCHECKOUT_NETWORK: 'POLYGON',
          CRYPTOCHECKOUT_DISPLAY_MODE: 'popup',
        });
        const html = String(result.html);
        expect(html).not.toContain('Settings updated.');
        // The kernel's SettingsRules, through the module's translations, shown under each field's key.
        expect(html).toContain('Service URL: enter the address of your Crypto Checkout service');
        expect(html).toContain(
          'Settlement asset: BTC is not settled on POLYGON; choose one of USDC, USDT, POL, or another network.',
        );
        expect(html).toContain(
          'Wallet address (POLYGON): This is a TRON address, but the network is POLYGON.',
        );
        expect(html).toContain('Display: choose &quot;redirect&quot; or &quot;embedded&quot;.');
        // The refused input is shown again, escaped, so the merchant can correct it.
        expect(html).toContain('value="ftp://pay.example.com"');
        expect(result.saved).toMatchObject({
          CRYPTOCHECKOUT_SERVICE_URL: service.url,
          CRYPTOCHECKOUT_ASSET: 'USDC',
        });
      });

      it('stores the service URL the way the kernel reads it (no trailing /api), dropping pasted blanks', async () => {
        const result = await submit({
          ...valid(),
          CRYPTOCHECKOUT_SERVICE_URL: `\u00a0${service.url}/shop/api/ `,
          CRYPTOCHECKOUT_WALLET_ADDRESS: `\u200b${WALLET}\u00a0`,
        });
        expect(result.saved).toMatchObject({
          CRYPTOCHECKOUT_SERVICE_URL: `${service.url}/shop`,
          CRYPTOCHECKOUT_WALLET_ADDRESS: WALLET,
        });
      });

      it('saves a service URL that does not answer, but says so loudly and hides the payment option', async () => {
        const closed = await closedLoopbackUrl();
        const result = await run(`
${installAndConfigure(service.url)}
HarnessShop::actAsEmployee();
$_POST = json_decode(${phpString(JSON.stringify({ submitCryptocheckout: '1', ...valid(), CRYPTOCHECKOUT_SERVICE_URL: closed }))}, true);
$_POST['token'] = Tools::getAdminTokenLite('AdminModules');
$html = Module::getInstanceByName('cryptocheckout')->getContent();
$cart = HarnessShop::createCart('25.00', 'EUR');
HarnessShop::actAsBuyer($cart['id_cart']);
$offered = count(Hook::exec('paymentOptions', ['cart' => Context::getContext()->cart], null, true)['cryptocheckout'] ?? []);
echo json_encode(['html' => $html, 'saved' => Configuration::get('CRYPTOCHECKOUT_SERVICE_URL'), 'offered' => $offered]);`);
        const html = String(result.html);
        expect(result.saved).toBe(closed);
        expect(html).not.toContain('Settings updated.');
        expect(html).toContain('alert-warning');
        expect(html).toContain(`Settings saved, but the service at ${closed} cannot be reached:`);
        expect(html).toContain('Buyers are not offered crypto payment until it answers.');
        expect(html).toContain('data-cryptocheckout-reachable="no"');
        expect(result.offered).toBe(0);
      });

      it('names an unknown network', async () => {
        const result = await submit({ ...valid(), CRYPTOCHECKOUT_NETWORK: 'DOGE' });
        expect(String(result.html)).toContain(
          'Network: choose one of POLYGON, ETHEREUM, BASE, ARBITRUM, BSC, TRON, SOLANA, BITCOIN.',
        );
      });

      it('escapes what the merchant typed when showing it again', async () => {
        const result = await submit({
          ...valid(),
          CRYPTOCHECKOUT_SERVICE_URL: 'https://x.example/"><script>alert(1)</script>',
        });
        expect(String(result.html)).not.toContain('<script>alert(1)</script>');
      });

      it('refuses a submission without the back office token', async () => {
        const result = await submit(valid(), 'forged');
        expect(String(result.html)).toContain('Invalid security token');
        expect(result.saved).toMatchObject({
          CRYPTOCHECKOUT_SERVICE_URL: service.url,
          CRYPTOCHECKOUT_DEBUG: '0',
        });
      });

      it('shows the status panel: service reachable, last webhook and poll, the cron line', async () => {
        const result = await run(`
${installAndConfigure(service.url)}
HarnessShop::actAsEmployee();
$up = Module::getInstanceByName('cryptocheckout')->getContent();
Configuration::updateValue('CRYPTOCHECKOUT_LAST_WEBHOOK', '2026-11-20 10:00:00');
Configuration::updateValue('CRYPTOCHECKOUT_SERVICE_URL', 'http://127.0.0.1:9');
$down = Module::getInstanceByName('cryptocheckout')->getContent();
echo json_encode(['up' => $up, 'down' => $down, 'token' => Configuration::get('CRYPTOCHECKOUT_POLL_TOKEN')]);`);
        const up = String(result.up);
        expect(up).toContain('data-cryptocheckout-reachable="yes"');
        expect(up).toMatch(/data-cryptocheckout-last-webhook>\s*Never/);
        expect(up).toContain(
          `*/5 * * * * curl -fsS &quot;http://shop.test/module/cryptocheckout/poll?token=${result.token}&quot; &gt; /dev/null`,
        );
        const down = String(result.down);
        expect(down).toContain('data-cryptocheckout-reachable="no"');
        expect(down).toContain('2026-11-20 10:00:00');
      });
    });

    describe('payment option', () => {
      const options = (setup: string, iso = 'EUR') =>
        run(`
${installAndConfigure(service.url)}
${setup}
$cart = HarnessShop::createCart('25.00', ${phpString(iso)});
HarnessShop::actAsBuyer($cart['id_cart']);
$result = Hook::exec('paymentOptions', ['cart' => Context::getContext()->cart], null, true);
$options = $result['cryptocheckout'] ?? [];
echo json_encode(array_map(function ($option) { return $option->toArray(); }, $options));`);

      it('is offered for a configured module and an allowed currency', async () => {
        const result = (await options('')) as unknown as Array<Record<string, unknown>>;
        expect(result).toHaveLength(1);
        expect(result[0]).toMatchObject({
          module_name: 'cryptocheckout',
          call_to_action_text: 'Pay with crypto',
          action: 'http://shop.test/module/cryptocheckout/validation',
        });
        expect(String(result[0]?.additional_information)).toContain('secure payment page');
      });

      it('is hidden when the module is disabled', async () => {
        expect(await options("Module::getInstanceByName('cryptocheckout')->disable();")).toEqual([]);
      });

      it('is hidden while the wallet is missing', async () => {
        expect(await options("Configuration::updateValue('CRYPTOCHECKOUT_WALLET_ADDRESS', '');")).toEqual([]);
      });

      it('is hidden for a currency the shop did not allow for the module', async () => {
        expect(
          await options(
            "Db::getInstance()->delete('module_currency', 'id_currency = ' . Currency::getIdByIsoCode('EUR'));",
          ),
        ).toEqual([]);
      });

      it('is hidden for a currency the service does not accept', async () => {
        expect(await options('', 'XOF')).toEqual([]);
      });

      it('is hidden while the service does not answer, asking again once the last answer is a minute old', async () => {
        const result = await run(`
${installAndConfigure(service.url)}
$cart = HarnessShop::createCart('25.00', 'EUR');
HarnessShop::actAsBuyer($cart['id_cart']);
$offered = function () { return count(Hook::exec('paymentOptions', ['cart' => Context::getContext()->cart], null, true)['cryptocheckout'] ?? []); };
$check = function (array $changes) {
    $last = json_decode((string) Configuration::get('CRYPTOCHECKOUT_SERVICE_CHECK'), true);
    Configuration::updateValue('CRYPTOCHECKOUT_SERVICE_CHECK', json_encode(array_merge($last, $changes)));
};
$first = $offered();
// The service stopped answering a moment ago: hidden without asking again.
$check(['reachable' => false, 'checked_at' => time() - 10]);
$whileDown = $offered();
// A minute later the module asks again, and the service answers.
$check(['checked_at' => time() - 61]);
$later = $offered();
echo json_encode([$first, $whileDown, $later, json_decode((string) Configuration::get('CRYPTOCHECKOUT_SERVICE_CHECK'), true)['reachable']]);`);
        expect(result).toEqual([1, 0, 1, true]);
      });
    });

    describe('storage', () => {
      it('selects the due checkouts in one query exactly as the kernel PollPolicy does', async () => {
        expectDueMatchesKernel(
          await run(`Module::getInstanceByName('cryptocheckout')->install();\n${DUE_CHECKOUTS_PHP}`),
        );
      });

      it('lets exactly one of two swaps of the same claim win', async () => {
        expect(
          await run(`Module::getInstanceByName('cryptocheckout')->install();\n${CLAIM_SWAPS_PHP}`),
        ).toEqual(CLAIM_SWAPS_EXPECTED);
      });
    });

    describe('JSON endpoints', () => {
      // PrestaShop 8.1.2 sets $ajax in Controller::__construct() from the request (an Accept header
      // naming application/json); the service's webhook, a cron line's curl and a plain fetch() do
      // not send one, and a controller that relied on `public $ajax = true` was rendered as a page
      // without a template: Smarty's fatal "Missing '$template' parameter".
      it('answer JSON in the service envelope whatever the Accept header says', async () => {
        const forged = JSON.stringify({
          event: 'transaction.settled',
          transaction_code: '00000000-0000-4000-8000-000000000000',
          external_reference: 'ABC',
          fiat_amount: 10,
          fiat_currency: 'EUR',
          received_usd: 11,
          wallet_address: WALLET,
          wallet_currency: 'USDC',
          wallet_network: 'POLYGON',
          payout_dispatched: true,
          timestamp: 1_790_000_000,
        });
        const result = await php().runJson(
          `${prelude(`module-${version}-${++databases}.sqlite`)}
${installAndConfigure(service.url)}
$answers = [];
foreach (['', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', '*/*', 'application/json'] as $accept) {
    $requests = [
        'webhook' => ['POST', []],
        'poll' => ['GET', ['token' => Configuration::get('CRYPTOCHECKOUT_POLL_TOKEN')]],
        'status' => ['GET', ['id_order' => '999', 'key' => 'nope']],
    ];
    foreach ($requests as $controller => [$method, $query]) {
        $_SERVER['REQUEST_METHOD'] = $method;
        if ($accept === '') {
            unset($_SERVER['HTTP_ACCEPT']);
        } else {
            $_SERVER['HTTP_ACCEPT'] = $accept;
        }
        $_GET = $query;
        $_POST = [];
        http_response_code(200);
        ob_start();
        HarnessShop::runFrontController('cryptocheckout', $controller);
        $answers[] = ['accept' => $accept, 'controller' => $controller, 'status' => http_response_code(), 'body' => ob_get_clean()];
    }
}
echo json_encode(['answers' => $answers, 'lastWebhook' => Configuration::get('CRYPTOCHECKOUT_LAST_WEBHOOK')]);`,
          { body: forged },
        );
        const { answers, lastWebhook } = result as {
          answers: Array<{ accept: string; controller: string; status: number; body: string }>;
          lastWebhook: string | false;
        };
        expect(answers).toHaveLength(12);
        for (const answer of answers) {
          const label = `${answer.controller} with Accept "${answer.accept}"`;
          const body = JSON.parse(answer.body) as Record<string, unknown>;
          if (answer.controller === 'webhook') {
            expect(answer.status, label).toBe(200);
            expect(body, label).toEqual({ status: 'success', data: { result: 'ignored' } });
          } else if (answer.controller === 'poll') {
            expect(answer.status, label).toBe(200);
            expect(body, label).toEqual({
              status: 'success',
              data: { checked: 0, cancelled_without_checkout: [], results: [] },
            });
          } else {
            expect(answer.status, label).toBe(404);
            expect(body, label).toMatchObject({
              status: 'error',
              error: { code: 'not_found', field: 'id_order' },
            });
          }
        }
        // A webhook no order of this shop holds is not a sign that webhooks arrive.
        expect(lastWebhook).toBe(false);
      });
    });
  },
  { mounts: copy.mounts, versions: PRESTASHOP_PHP_VERSIONS },
);
