import {
  BIP84_DESCRIPTION,
  BIP84_FIRST_ADDRESSES,
  BIP84_ZPUB,
  BITCOIN_ADDRESS,
  type BitcoinWalletService,
  closedLoopbackUrl,
  describeEachPhp,
  phpString,
  REFUSED_BITCOIN_KEY,
  REFUSED_BITCOIN_KEY_REASON,
  type SandboxService,
  SOLANA_ONLY_REASON,
  startBitcoinWalletService,
  startSandboxService,
  startSolanaOnlyService,
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
  expectQuotingRoundTrips,
  expectRefusedThenCompleted,
  expectUpgradeFrom10,
  expectUpgradeFrom12,
  LAYOUT_1_2_PHP,
  LEDGER_ROWS_PHP,
  QUOTING_PHP,
  REFUSE_TRIGGER_SQLITE,
  ROWS_1_2_PHP,
  refuseOrder3,
  shopAt140,
  type UpgradeResult,
  upgradeFromRelease,
} from './storage-scenarios.js';

// The module inside the PrestaShop 8.1.2 harness, in-process: install and uninstall, the back
// office form (save, validation errors, token, the service's answer and whether it offers the
// saved settlement, a Bitcoin wallet put to the service), the status panel, payment option
// visibility and the hooks that render templates.

const copy: ModuleCopy = await prepareModule();
let service: SandboxService;
/** A live service that watches only Solana: its price check offers no USDC on Polygon. */
let solanaOnly: Awaited<ReturnType<typeof startSolanaOnlyService>>;
let solanaOnlyUrl: string;
/** A live service with Bitcoin: it derives a key's first addresses and refuses REFUSED_BITCOIN_KEY. */
let bitcoin: BitcoinWalletService;

beforeAll(async () => {
  service = await startSandboxService();
  solanaOnly = await startSolanaOnlyService();
  solanaOnlyUrl = solanaOnly.url;
  bitcoin = await startBitcoinWalletService();
});

afterAll(async () => {
  await bitcoin?.close();
  await solanaOnly?.close();
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
      it('registers its hooks, creates its order states once and the ledger, keeps them through an uninstall', async () => {
        const result = await run(`
$module = Module::getInstanceByName('cryptocheckout');
$installed = $module->install();
$hooks = [];
foreach (['paymentOptions', 'displayPaymentReturn', 'displayOrderDetail', 'displayAdminOrderMainBottom', 'actionFrontControllerSetMedia', 'actionOrderSlipAdd', 'displayAdminAfterHeader'] as $hook) {
    $hooks[$hook] = $module->isRegisteredInHook($hook);
}
$states = [];
foreach (['CRYPTOCHECKOUT_OS_AWAITING', 'CRYPTOCHECKOUT_OS_UNDERPAID', 'CRYPTOCHECKOUT_OS_REVIEW'] as $key) {
    $state = new OrderState((int) Configuration::get($key), 1);
    $states[$key] = ['name' => $state->name, 'module' => $state->module_name, 'paid' => (int) $state->paid, 'logable' => (int) $state->logable];
}
$first = array_map(function ($key) { return (int) Configuration::get($key); }, ['CRYPTOCHECKOUT_OS_AWAITING', 'CRYPTOCHECKOUT_OS_UNDERPAID', 'CRYPTOCHECKOUT_OS_REVIEW']);
// An open order's checkout, which must outlive an uninstall (or a "Reset") by default.
$module->kernel()->ledger()->add('7', CryptoCheckout\\PrestaShop\\Vendor\\Client\\Kernel\\StoredCheckout::fromArray([
    'transaction_code' => '3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f', 'checkout_url' => 'https://pay.example/pay/3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f',
    'service_url' => 'https://pay.example', 'fiat_amount' => '25.00', 'fiat_currency' => 'EUR', 'wallet_address' => '0xabc',
    'wallet_currency' => 'USDC', 'wallet_network' => 'POLYGON', 'created_at' => time(),
]));
Configuration::updateValue('CRYPTOCHECKOUT_SERVICE_URL', 'https://pay.example');
$token = (string) Configuration::get('CRYPTOCHECKOUT_POLL_TOKEN');
// Reinstalling after an uninstall takes the same states back instead of adding new ones.
$module->uninstall();
$afterUninstall = (int) Db::getInstance()->getValue("SELECT COUNT(*) FROM ps_configuration WHERE name LIKE 'CRYPTOCHECKOUT_%'");
$module = Module::getInstanceByName('cryptocheckout');
$keptCheckout = $module->kernel()->ledger()->orderOf('3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f');
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
$ledgerTables = "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN ('ps_cryptocheckout_checkouts', 'ps_cryptocheckout_orders', 'ps_cryptocheckout_state', 'ps_cryptocheckout_refunds')";
$tableGone = (int) Db::getInstance()->getValue($ledgerTables) === 0;
$module = Module::getInstanceByName('cryptocheckout');
$module->install();
$tablesBack = (int) Db::getInstance()->getValue($ledgerTables);
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
        expect(result.kept).toEqual({ checkout: '7', service_url: 'https://pay.example', same_token: true });
        // …unless the merchant asked for the data to be deleted.
        expect(result.afterDelete).toBe(0);
        expect(result.tableGone).toBe(true);
        expect(result.reinstalled).toBe(true);
        expect(result.tablesBack).toBe(4);
        expect(result.second).toEqual(result.first);
        expect(result.moduleStates).toBe(3);
        expect(result.token).toBe(48);
        expect(result).toMatchObject({
          version: '1.4.1',
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

      it('upgrades from 1.0.1 through every upgrade script without duplicating states or hooks', async () => {
        const result = await run(`
$module = Module::getInstanceByName('cryptocheckout');
$module->install();
Db::getInstance()->update('module', ['version' => '1.0.1'], "name = 'cryptocheckout'");
$upgrade = Module::getInstanceByName('cryptocheckout')->runUpgrades();
echo json_encode([
    'upgrade' => $upgrade,
    'states' => (int) Db::getInstance()->getValue("SELECT COUNT(*) FROM ps_order_state WHERE module_name = 'cryptocheckout'"),
    'hooks' => (int) Db::getInstance()->getValue('SELECT COUNT(*) FROM ps_hook_module WHERE id_module = ' . (int) $module->id),
    'version' => Db::getInstance()->getValue("SELECT version FROM ps_module WHERE name = 'cryptocheckout'"),
]);`);
        expect(result).toEqual({
          upgrade: {
            success: true,
            upgraded_to: '1.4.1',
            version_fail: null,
            ran: ['1.1.0', '1.3.0', '1.4.0', '1.4.1'],
          },
          states: 3,
          hooks: 7,
          version: '1.4.1',
        });
      });

      it("upgrades a 1.4.0 shop to 1.4.1's files: only upgrade-1.4.1.php runs, the banner's hook is added, 1.4.1 recorded, no row of the ledger changes", async () => {
        // The released 1.4.0 recorded no completed upgrade; these files built as 1.4.0 recorded '1.4.0'.
        for (const marker of [null, '1.4.0'] as const) {
          const db = `module-${version}-${++databases}.sqlite`;
          const before = await run(
            `${installAndConfigure(service.url)}${shopAt140(marker)}${LEDGER_ROWS_PHP}echo json_encode($ledgerRows());`,
            db,
          );
          expect(Object.values(before).map((rows) => (rows as unknown[]).length)).toEqual([2, 2, 1]);
          const result = await run(
            `${LEDGER_ROWS_PHP}
$upgrade = Module::getInstanceByName('cryptocheckout')->runUpgrades();
$module = Module::getInstanceByName('cryptocheckout');
echo json_encode([
    'upgrade' => $upgrade,
    'errors' => $module->getErrors(),
    'version' => Db::getInstance()->getValue("SELECT version FROM ps_module WHERE name = 'cryptocheckout'"),
    'schema' => Configuration::getGlobalValue('CRYPTOCHECKOUT_SCHEMA_VERSION'),
    'hooks' => (int) Db::getInstance()->getValue('SELECT COUNT(*) FROM ps_hook_module WHERE id_module = ' . (int) $module->id),
    'banner' => $module->isRegisteredInHook('displayAdminAfterHeader'),
    'service' => Configuration::get('CRYPTOCHECKOUT_SERVICE_URL'),
    'rows' => $ledgerRows(),
    'logged' => array_column(Db::getInstance()->executeS('SELECT message FROM ps_log ORDER BY id_log'), 'message'),
    'again' => upgrade_module_1_4_1($module),
    'rowsAgain' => $ledgerRows(),
]);`,
            db,
          );
          expect(result, `marker ${marker ?? 'absent'}`).toEqual({
            upgrade: { success: true, upgraded_to: '1.4.1', version_fail: null, ran: ['1.4.1'] },
            errors: [],
            version: '1.4.1',
            schema: '1.4.1',
            hooks: 7,
            banner: true,
            service: service.url,
            rows: before,
            logged: [
              "Crypto Checkout: The module's tables and hooks are up to date for version 1.4.1 (the shop had 1.4.0).",
            ],
            again: true,
            rowsAgain: before,
          });
        }
      });

      it('upgrades in place from 1.0.1: every checkout of its one-row-per-order table into the ledger, open orders still watched, paid ones still paid', async () => {
        expectUpgradeFrom10((await run(upgradeFromRelease('1.0.1'))) as unknown as UpgradeResult);
      });

      it('upgrades in place from 1.2.0: every checkout of its checkout table, a second run changes nothing', async () => {
        expectUpgradeFrom12((await run(upgradeFromRelease('1.2.0'))) as unknown as UpgradeResult);
      });

      it('leaves the old tables in place and says why when a checkout cannot be moved, and completes when the module is turned on again', async () => {
        expectRefusedThenCompleted(
          (await run(
            upgradeFromRelease('1.2.0', refuseOrder3(REFUSE_TRIGGER_SQLITE)),
          )) as unknown as UpgradeResult,
        );
      });

      it('takes in the tables of an earlier version that was uninstalled with its data kept, on a fresh install', async () => {
        const result = await run(`
${LAYOUT_1_2_PHP}${ROWS_1_2_PHP}
$module = Module::getInstanceByName('cryptocheckout');
$installed = $module->install();
echo json_encode([
    'installed' => $installed,
    'orders' => array_map(function ($id) use ($module) { return $module->kernel()->ledger()->orderOf($id); }, ['bbbbbbbb-0000-4000-8000-000000000011', 'bbbbbbbb-0000-4000-8000-000000000012', 'bbbbbbbb-0000-4000-8000-000000000002']),
    'left' => (int) Db::getInstance()->getValue("SELECT COUNT(*) FROM sqlite_master WHERE name IN ('ps_cryptocheckout_checkout', 'ps_cryptocheckout_claim')"),
]);`);
        expect(result).toEqual({ installed: true, orders: ['1', '1', '2'], left: 0 });
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
        CRYPTOCHECKOUT_DISPLAY_MODE: 'modal',
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
          CRYPTOCHECKOUT_DISPLAY_MODE: 'modal',
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
        expect(html).toContain(
          'Checkout display: choose &quot;redirect&quot; (the payment page) or &quot;modal&quot; (a window over the shop).',
        );
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

      it("saves a settlement the service does not offer, but warns with the service's reason and hides the payment option", async () => {
        const result = await run(`
${installAndConfigure(service.url)}
HarnessShop::actAsEmployee();
$_POST = json_decode(${phpString(JSON.stringify({ submitCryptocheckout: '1', ...valid(), CRYPTOCHECKOUT_SERVICE_URL: solanaOnlyUrl, CRYPTOCHECKOUT_ASSET: 'USDC' }))}, true);
$_POST['token'] = Tools::getAdminTokenLite('AdminModules');
$html = Module::getInstanceByName('cryptocheckout')->getContent();
$cart = HarnessShop::createCart('25.00', 'EUR');
HarnessShop::actAsBuyer($cart['id_cart']);
$offered = count(Hook::exec('paymentOptions', ['cart' => Context::getContext()->cart], null, true)['cryptocheckout'] ?? []);
echo json_encode(['html' => $html, 'saved' => Configuration::get('CRYPTOCHECKOUT_SERVICE_URL'), 'offered' => $offered]);`);
        const html = String(result.html);
        expect(result.saved).toBe(solanaOnlyUrl);
        expect(html).not.toContain('Settings updated.');
        expect(html).toContain('alert-warning');
        expect(html).toContain(
          `Settings saved, but buyers cannot pay with crypto yet: Service URL ${solanaOnlyUrl}: the Crypto Checkout service answers, but does not offer payment in USDC on Polygon PoS, the settlement you chose: ${SOLANA_ONLY_REASON} Buyers cannot pay with crypto until it does. The payment option stays hidden until the service offers it.`,
        );
        // The status panel: the service answers, the settlement is not offered, and why.
        expect(html).toContain('data-cryptocheckout-reachable="yes"');
        expect(html).toMatch(/data-cryptocheckout-not-offered>Settlement not offered<\/span> Service URL /);
        expect(result.offered).toBe(0);
      });

      it('names an unknown network', async () => {
        const result = await submit({ ...valid(), CRYPTOCHECKOUT_NETWORK: 'DOGE' });
        expect(String(result.html)).toContain(
          'Network: choose one of POLYGON, ETHEREUM, BASE, ARBITRUM, BSC, TRON, SOLANA, BITCOIN.',
        );
      });

      it('offers Solana with USDC, USDT and SOL, saves a Solana wallet exactly as typed, and says where tokens go', async () => {
        const solanaWallet = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';
        for (const asset of ['USDT', 'SOL']) {
          const result = await submit({
            ...valid(),
            CRYPTOCHECKOUT_NETWORK: 'SOLANA',
            CRYPTOCHECKOUT_ASSET: asset,
            CRYPTOCHECKOUT_WALLET_ADDRESS: `\u00a0${solanaWallet} `,
          });
          expect(result.html).toContain(`Settings updated. The service at ${service.url} answers.`);
          expect(result.saved).toMatchObject({
            CRYPTOCHECKOUT_NETWORK: 'SOLANA',
            CRYPTOCHECKOUT_ASSET: asset,
            CRYPTOCHECKOUT_WALLET_ADDRESS: solanaWallet,
          });
          const html = String(result.html);
          expect(html).toContain('<option value="SOLANA" selected="selected">Solana (SOLANA)</option>');
          expect(html).toContain('<option value="USDT"');
          expect(html).toContain('>SOL - Solana</option>');
          expect(html).toContain(
            'payments settle there. On Solana, enter your wallet address, not a token account. Tokens go to your wallet&#039;s associated token account; the buyer&#039;s wallet creates it when missing, as Solana Pay wallets do.',
          );
        }
      });

      it('refuses an address that is not a Solana wallet, naming the field, and keeps the saved wallet', async () => {
        const solanaWallet = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';
        const cases: Array<[string, string, string]> = [
          [
            'SOLANA',
            `${solanaWallet.slice(0, -1)}O`,
            'Wallet address (SOLANA): The address contains &quot;O&quot;, which never appears in a Solana address (there is no 0, O, I or l).',
          ],
          [
            'SOLANA',
            WALLET,
            'Wallet address (SOLANA): This is an EVM address (Ethereum, Polygon, Base, Arbitrum, BSC), but the network is SOLANA.',
          ],
          [
            'POLYGON',
            solanaWallet,
            'Wallet address (POLYGON): This is a Solana address, but the network is POLYGON.',
          ],
        ];
        for (const [network, address, message] of cases) {
          const result = await submit({
            ...valid(),
            CRYPTOCHECKOUT_NETWORK: network,
            CRYPTOCHECKOUT_ASSET: 'USDC',
            CRYPTOCHECKOUT_WALLET_ADDRESS: address,
          });
          expect(String(result.html)).not.toContain('Settings updated.');
          expect(String(result.html)).toContain(message);
          expect(result.saved).toMatchObject({
            CRYPTOCHECKOUT_NETWORK: 'POLYGON',
            CRYPTOCHECKOUT_WALLET_ADDRESS: WALLET,
          });
        }
      });

      describe('a Bitcoin wallet, put to the service on save', () => {
        const html = (text: string) => text.replaceAll("'", '&#039;');
        const onBitcoin = (wallet: string, serviceUrl = bitcoin.url) => ({
          ...valid(),
          CRYPTOCHECKOUT_SERVICE_URL: serviceUrl,
          CRYPTOCHECKOUT_NETWORK: 'BITCOIN',
          CRYPTOCHECKOUT_ASSET: 'BTC',
          CRYPTOCHECKOUT_WALLET_ADDRESS: wallet,
        });

        it("saves an extended key and shows its first three receive addresses as the service derives them, to compare with the wallet's", async () => {
          const result = await submit(onBitcoin(` ${BIP84_ZPUB} `));
          const page = String(result.html);
          expect(page).toContain(`Settings updated. The service at ${bitcoin.url} answers.`);
          expect(page).toContain(
            `<div class="module_info info alert alert-info">Crypto Checkout derives a new address for each order from this key (${BIP84_DESCRIPTION}). Check that your wallet shows these as its first receive addresses: ${BIP84_FIRST_ADDRESSES.join(', ')}. If they differ, the key is not the one your wallet receives on.</div>`,
          );
          expect(result.saved).toMatchObject({
            CRYPTOCHECKOUT_SERVICE_URL: bitcoin.url,
            CRYPTOCHECKOUT_NETWORK: 'BITCOIN',
            CRYPTOCHECKOUT_ASSET: 'BTC',
            CRYPTOCHECKOUT_WALLET_ADDRESS: BIP84_ZPUB,
          });
          // The wallet help says what a Bitcoin wallet can be.
          expect(page).toContain(
            html(
              "On Bitcoin, enter an address or, better, your wallet's extended public key: a zpub (recommended), an xpub or ypub, or a descriptor such as wpkh(…), sh(wpkh(…)) or tr(…). Public keys only: the service can never spend from them.",
            ),
          );
        });

        it('notes that buyers pay a plain address exact amounts', async () => {
          const result = await submit(onBitcoin(BITCOIN_ADDRESS));
          expect(String(result.html)).toContain(
            '<div class="module_info info alert alert-info">Buyers pay this Bitcoin address exact amounts, with a few satoshis added to each so that every payment is matched to its order. An extended public key (zpub) also takes part payments and top-ups.</div>',
          );
          expect(result.saved).toMatchObject({ CRYPTOCHECKOUT_WALLET_ADDRESS: BITCOIN_ADDRESS });
        });

        it("refuses a key the service refuses (400), with the service's reason, and keeps the saved settings", async () => {
          const result = await submit(onBitcoin(REFUSED_BITCOIN_KEY));
          const page = String(result.html);
          expect(page).not.toContain('Settings updated.');
          expect(page).toContain(
            `<div class="module_error alert alert-danger">${html(`Wallet address (BITCOIN): the Crypto Checkout service refuses it: ${REFUSED_BITCOIN_KEY_REASON}`)}</div>`,
          );
          expect(page).not.toContain('alert-info');
          // The refused key is shown again for the merchant to correct.
          expect(page).toContain(`value="${REFUSED_BITCOIN_KEY}"`);
          expect(result.saved).toMatchObject({
            CRYPTOCHECKOUT_SERVICE_URL: service.url,
            CRYPTOCHECKOUT_NETWORK: 'POLYGON',
            CRYPTOCHECKOUT_WALLET_ADDRESS: WALLET,
          });
        });

        it('saves the key when the service is older (404) or does not answer, saying why the addresses could not be shown', async () => {
          const older = await submit(onBitcoin(BIP84_ZPUB, `${bitcoin.url}/older`));
          expect(String(older.html)).toContain(
            `<div class="module_warning alert alert-warning">The first receive addresses of this key could not be shown: the service at ${bitcoin.url}/older does not know this check (HTTP 404): it runs a version from before Bitcoin extended public keys. The key is saved; save the settings again once the service answers, to compare the addresses with your wallet.</div>`,
          );
          expect(older.saved).toMatchObject({
            CRYPTOCHECKOUT_SERVICE_URL: `${bitcoin.url}/older`,
            CRYPTOCHECKOUT_WALLET_ADDRESS: BIP84_ZPUB,
          });
          const closed = await closedLoopbackUrl();
          const down = await submit(onBitcoin(BIP84_ZPUB, closed));
          expect(String(down.html)).toContain(
            `The first receive addresses of this key could not be shown: no connection to ${closed} (`,
          );
          expect(down.saved).toMatchObject({
            CRYPTOCHECKOUT_SERVICE_URL: closed,
            CRYPTOCHECKOUT_WALLET_ADDRESS: BIP84_ZPUB,
          });
        });
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
Configuration::updateValue('CRYPTOCHECKOUT_LAST_POLL', '2026-11-20 10:05:00');
Configuration::updateValue('CRYPTOCHECKOUT_SERVICE_URL', 'http://127.0.0.1:9');
$down = Module::getInstanceByName('cryptocheckout')->getContent();
echo json_encode(['up' => $up, 'down' => $down, 'token' => Configuration::get('CRYPTOCHECKOUT_POLL_TOKEN'), 'interval' => CryptoCheckout\\PrestaShop\\Vendor\\Client\\Kernel\\PollPolicy::INTERVAL_SECONDS]);`);
        const up = String(result.up);
        expect(up).toContain('data-cryptocheckout-reachable="yes"');
        expect(up).toMatch(/data-cryptocheckout-last-webhook>\s*Never/);
        expect(up).toMatch(/data-cryptocheckout-last-poll>\s*Never/);
        // The cron line runs the poll as often as the kernel's PollPolicy promises: every five minutes.
        expect(result.interval).toBe(300);
        expect(up).toContain(
          `*/5 * * * * curl -fsS &quot;http://shop.test/module/cryptocheckout/poll?token=${result.token}&quot; &gt; /dev/null`,
        );
        const down = String(result.down);
        expect(down).toContain('data-cryptocheckout-reachable="no"');
        expect(down).toContain('Service URL http://127.0.0.1:9: no connection');
        expect(down).toContain('2026-11-20 10:05:00');
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
        const result = (await run(`
${installAndConfigure(service.url)}
$cart = HarnessShop::createCart('25.00', 'EUR');
HarnessShop::actAsBuyer($cart['id_cart']);
$offered = function () { return count(Hook::exec('paymentOptions', ['cart' => Context::getContext()->cart], null, true)['cryptocheckout'] ?? []); };
// The kernel keeps the service's last answer for a minute in its state table (Kernel::probe()).
$probe = function () { return Db::getInstance()->getRow("SELECT state_value, expires_at FROM ps_cryptocheckout_state WHERE state_key LIKE 'probe:%'"); };
$check = function (array $changes, int $expiresAt) use ($probe) {
    $value = json_encode(array_merge(json_decode($probe()['state_value'], true), $changes));
    Db::getInstance()->execute("UPDATE ps_cryptocheckout_state SET state_value = '" . pSQL($value, true) . "', expires_at = " . $expiresAt . " WHERE state_key LIKE 'probe:%'");
};
$first = $offered();
$kept = (int) $probe()['expires_at'] - time();
// The service stopped answering a moment ago: hidden without asking again.
$check(['reachable' => false], time() + 50);
$whileDown = $offered();
// A minute later the module asks again, and the service answers.
$check([], time() - 1);
$later = $offered();
echo json_encode([$first, $whileDown, $later, json_decode($probe()['state_value'], true)['reachable'], $kept]);`)) as unknown as unknown[];
        expect(result.slice(0, 4)).toEqual([1, 0, 1, true]);
        expect(Number(result[4])).toBeGreaterThan(55);
        expect(Number(result[4])).toBeLessThanOrEqual(60);
      });
    });

    describe('storage', () => {
      it('selects the due checkouts in one query exactly as the kernel PollPolicy does', async () => {
        expectDueMatchesKernel(
          await run(`Module::getInstanceByName('cryptocheckout')->install();\n${DUE_CHECKOUTS_PHP}`),
        );
      });

      it('lets exactly one of two claims of the same order win', async () => {
        expect(
          await run(`Module::getInstanceByName('cryptocheckout')->install();\n${CLAIM_SWAPS_PHP}`),
        ).toEqual(CLAIM_SWAPS_EXPECTED);
      });

      it('carries any text through PrestaShop quoting and turns a refused statement into an exception', async () => {
        expectQuotingRoundTrips(
          await run(`Module::getInstanceByName('cryptocheckout')->install();\n${QUOTING_PHP}`),
        );
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
echo json_encode(['answers' => $answers, 'lastWebhook' => Module::getInstanceByName('cryptocheckout')->kernel()->lastVerifiedWebhook()]);`,
          { body: forged },
        );
        const { answers, lastWebhook } = result as {
          answers: Array<{ accept: string; controller: string; status: number; body: string }>;
          lastWebhook: number | null;
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
              data: { checked: 0, cancelled_without_checkout: [], refunds: [], results: [] },
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
        expect(lastWebhook).toBeNull();
      });
    });
  },
  { mounts: copy.mounts, versions: PRESTASHOP_PHP_VERSIONS },
);
