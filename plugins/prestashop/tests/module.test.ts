import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningServer, startServer } from '@cryptocheckout/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachPhp, phpString } from '../../../packages/php-testkit/src/index.js';
import { installAndConfigure, type ModuleCopy, prelude, prepareModule, WALLET } from './harness/harness.js';

// The module inside the PrestaShop 8.1.2 harness, in-process: install and uninstall, the back
// office form (save, validation errors, token), the status panel, payment option visibility and
// the hooks that render templates.

const copy: ModuleCopy = await prepareModule();
let server: RunningServer;
const serverData = mkdtempSync(join(tmpdir(), 'cc-prestashop-server-'));

beforeAll(async () => {
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir: serverData,
    mode: 'sandbox',
    logLevel: 'silent',
  });
});

afterAll(async () => {
  await server?.close();
  copy?.remove();
  rmSync(serverData, { recursive: true, force: true });
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
// Reinstalling after an uninstall takes the same states back instead of adding new ones.
$module->uninstall();
$afterUninstall = Db::getInstance()->getValue("SELECT COUNT(*) FROM ps_configuration WHERE name LIKE 'CRYPTOCHECKOUT_%'");
$tableGone = !Db::getInstance()->getValue("SELECT 1 FROM sqlite_master WHERE name = 'ps_cryptocheckout_transaction'");
$module = Module::getInstanceByName('cryptocheckout');
$reinstalled = $module->install();
$second = array_map(function ($key) { return (int) Configuration::get($key); }, ['CRYPTOCHECKOUT_OS_AWAITING', 'CRYPTOCHECKOUT_OS_UNDERPAID', 'CRYPTOCHECKOUT_OS_REVIEW']);
$moduleStates = (int) Db::getInstance()->getValue("SELECT COUNT(*) FROM ps_order_state WHERE module_name = 'cryptocheckout'");
echo json_encode([
    'installed' => $installed, 'hooks' => $hooks, 'states' => $states, 'first' => $first, 'second' => $second,
    'moduleStates' => $moduleStates, 'afterUninstall' => (int) $afterUninstall, 'tableGone' => $tableGone, 'reinstalled' => $reinstalled,
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
        expect(result.afterUninstall).toBe(0);
        expect(result.tableGone).toBe(true);
        expect(result.reinstalled).toBe(true);
        expect(result.second).toEqual(result.first);
        expect(result.moduleStates).toBe(3);
        expect(result.token).toBe(48);
        expect(result).toMatchObject({
          version: '1.0.1',
          tab: 'payments_gateways',
          controllers: ['validation', 'webhook', 'status', 'poll'],
          compliancy: { min: '8.0.0', max: '9.99.99' },
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
    });

    describe('back office configuration', () => {
      /** Submits the settings form as the back office does and reports the page and the saved values. */
      const submit = (fields: Record<string, string>, token = 'valid') =>
        run(`
${installAndConfigure(server.url)}
HarnessShop::actAsEmployee();
$_POST = json_decode(${phpString(JSON.stringify({ submitCryptocheckout: '1', ...fields }))}, true);
$_POST['token'] = ${token === 'valid' ? "Tools::getAdminTokenLite('AdminModules')" : phpString(token)};
$html = Module::getInstanceByName('cryptocheckout')->getContent();
$saved = [];
foreach (['CRYPTOCHECKOUT_SERVICE_URL', 'CRYPTOCHECKOUT_WALLET_ADDRESS', 'CRYPTOCHECKOUT_ASSET', 'CRYPTOCHECKOUT_NETWORK', 'CRYPTOCHECKOUT_DISPLAY_MODE', 'CRYPTOCHECKOUT_DEBUG'] as $key) {
    $saved[$key] = Configuration::get($key);
}
echo json_encode(['html' => $html, 'saved' => $saved, 'js' => Context::getContext()->controller->js_files]);`);

      const valid = {
        CRYPTOCHECKOUT_SERVICE_URL: 'https://pay.example.com/',
        CRYPTOCHECKOUT_WALLET_ADDRESS: ` ${WALLET.toLowerCase()} `,
        CRYPTOCHECKOUT_ASSET: 'USDT',
        CRYPTOCHECKOUT_NETWORK: 'POLYGON',
        CRYPTOCHECKOUT_DISPLAY_MODE: 'embedded',
        CRYPTOCHECKOUT_DEBUG: '1',
      };

      it('saves valid settings, normalised (trailing slash, checksummed wallet)', async () => {
        const result = await submit(valid);
        expect(result.html).toContain('Settings updated.');
        expect(result.saved).toEqual({
          CRYPTOCHECKOUT_SERVICE_URL: 'https://pay.example.com',
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
        expect(html).toContain('Service URL: enter the address of your Crypto Checkout service');
        expect(html).toContain('Asset: BTC is not settled on POLYGON; choose one of USDC, USDT, POL.');
        expect(html).toContain('Wallet address: This is a TRON address, but the network is POLYGON.');
        expect(html).toContain('Display mode: choose');
        // The refused input is shown again, escaped, so the merchant can correct it.
        expect(html).toContain('value="ftp://pay.example.com"');
        expect(result.saved).toMatchObject({
          CRYPTOCHECKOUT_SERVICE_URL: server.url,
          CRYPTOCHECKOUT_ASSET: 'USDC',
        });
      });

      it('names an unknown network', async () => {
        const result = await submit({ ...valid, CRYPTOCHECKOUT_NETWORK: 'DOGE' });
        expect(String(result.html)).toContain(
          'Network: choose one of POLYGON, ETHEREUM, BASE, ARBITRUM, BSC, TRON, SOLANA, BITCOIN.',
        );
      });

      it('escapes what the merchant typed when showing it again', async () => {
        const result = await submit({
          ...valid,
          CRYPTOCHECKOUT_SERVICE_URL: 'https://x.example/"><script>alert(1)</script>',
        });
        expect(String(result.html)).not.toContain('<script>alert(1)</script>');
      });

      it('refuses a submission without the back office token', async () => {
        const result = await submit(valid, 'forged');
        expect(String(result.html)).toContain('Invalid security token');
        expect(result.saved).toMatchObject({
          CRYPTOCHECKOUT_SERVICE_URL: server.url,
          CRYPTOCHECKOUT_DEBUG: '0',
        });
      });

      it('shows the status panel: service reachable, last webhook and poll, the cron line', async () => {
        const result = await run(`
${installAndConfigure(server.url)}
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
${installAndConfigure(server.url)}
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
    });
  },
  { mounts: copy.mounts },
);
