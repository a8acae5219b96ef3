import {
  phpString,
  type SandboxService,
  startSandboxService,
  type WebhookDelivery,
} from '@cryptocheckout/php-testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  installAndConfigure,
  type ModuleCopy,
  PRESTASHOP_PHP_VERSIONS,
  prepareModule,
  ShopBridge,
  WALLET,
} from './harness/harness.js';
import {
  LAYOUT_1_2_PHP,
  LEDGER_ROWS_PHP,
  REFUSE_TRIGGER_SQLITE,
  ROWS_1_2_PHP,
  shopAt140,
} from './storage-scenarios.js';

// New files over 1.2.0's database, with ps_module.version still 1.2.0: what PrestaShop 8.1.2
// leaves when the zip is uploaded within OPcache's revalidate_freq (2 s) of a request that
// compiled the old cryptocheckout.php, such as the Module Manager page itself (the upload reads
// the version from the class PHP has loaded, finds nothing to upgrade and runs no script), or
// when the module's folder is replaced by hand. The module must bring its tables up on the first
// request, once, and answer 503 (never 500) while it cannot. The reference server delivers real
// webhooks to the harness shop's controllers. The same holds for 1.4.1's files over a 1.4.0 shop,
// whose tables are already the ledger's: the first request records 1.4.1 and changes no row.

const copy: ModuleCopy = await prepareModule();
let service: SandboxService;

beforeAll(async () => {
  service = await startSandboxService();
});

afterAll(async () => {
  await service?.close();
  copy.remove();
});

/**
 * PHP: the shop as 1.2.0 left it, with this version's files: the module installed and configured,
 * then back to 1.2.0's database (its version in ps_module, its hooks, its checkout and claim
 * tables; no ledger, no record of a completed upgrade; the display mode it saved, "embedded").
 */
const shopAt120 = (serviceUrl: string) => `
$module = Module::getInstanceByName('cryptocheckout');
if (!$module->install()) { throw new RuntimeException('install failed'); }
Configuration::updateValue('CRYPTOCHECKOUT_SERVICE_URL', ${phpString(serviceUrl)});
Configuration::updateValue('CRYPTOCHECKOUT_WALLET_ADDRESS', ${phpString(WALLET)});
Configuration::updateValue('CRYPTOCHECKOUT_ASSET', 'USDC');
Configuration::updateValue('CRYPTOCHECKOUT_NETWORK', 'POLYGON');
Configuration::updateValue('CRYPTOCHECKOUT_DISPLAY_MODE', 'embedded');
$module->kernel()->ledger()->uninstall();
Configuration::deleteByName('CRYPTOCHECKOUT_SCHEMA_VERSION');
$module->unregisterHook('actionOrderSlipAdd');
$module->unregisterHook('displayAdminAfterHeader');
Db::getInstance()->update('module', ['version' => '1.2.0'], "name = 'cryptocheckout'");
Db::getInstance()->execute('DELETE FROM ps_log');
${LAYOUT_1_2_PHP}
`;

/** PHP printing what the upgrade left: versions, tables, hooks, and how often it ran. */
const UPGRADE_STATE_PHP = `
$module = Module::getInstanceByName('cryptocheckout');
$state = [
    'version' => Db::getInstance()->getValue("SELECT version FROM ps_module WHERE name = 'cryptocheckout'"),
    'schema' => Configuration::get('CRYPTOCHECKOUT_SCHEMA_VERSION'),
    'legacyTables' => (int) Db::getInstance()->getValue("SELECT COUNT(*) FROM sqlite_master WHERE name IN ('ps_cryptocheckout_checkout', 'ps_cryptocheckout_claim')"),
    'hooks' => array_map(function ($hook) use ($module) { return $module->isRegisteredInHook($hook); }, ['actionOrderSlipAdd', 'displayAdminAfterHeader']),
    'display' => Configuration::get('CRYPTOCHECKOUT_DISPLAY_MODE'),
    'upgradesLogged' => (int) Db::getInstance()->getValue("SELECT COUNT(*) FROM ps_log WHERE message LIKE 'Crypto Checkout: The module''s tables and hooks are up to date for version 1.4.1%'"),
    'errorsLogged' => array_column(Db::getInstance()->executeS("SELECT message FROM ps_log WHERE severity = 3 ORDER BY id_log"), 'message'),
    'infoLogged' => array_column(Db::getInstance()->executeS("SELECT message FROM ps_log WHERE severity = 1 ORDER BY id_log"), 'message'),
];
`;

interface Created {
  transaction_code: string;
  checkout_url: string;
  expires_at: string;
}

async function createCheckout(reference: string, webhookUrl?: string): Promise<Created> {
  const response = await fetch(`${service.url}/api/checkout`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      fiat_amount: '25.00',
      fiat_currency: 'EUR',
      external_reference: reference,
      customer: { wallet_address: WALLET, crypto_currency: 'USDC', crypto_currency_network: 'POLYGON' },
      ...(webhookUrl === undefined ? {} : { webhook_url: webhookUrl }),
    }),
  });
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return (JSON.parse(text) as { data: Created }).data;
}

async function deliveredWebhook(code: string): Promise<WebhookDelivery> {
  for (let i = 0; i < 400; i++) {
    const done = (await service.deliveries(code)).find((delivery) => delivery.attempts.length > 0);
    if (done) return done;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no webhook attempt for ${code}`);
}

for (const version of PRESTASHOP_PHP_VERSIONS) {
  describe(`PrestaShop module: new files over 1.2.0's tables [PHP ${version}]`, () => {
    let databases = 0;
    const bridges: ShopBridge[] = [];

    async function shop(): Promise<ShopBridge> {
      const bridge = new ShopBridge(version, copy.mounts, `upgrade-${version}-${++databases}.sqlite`, 2);
      bridges.push(bridge);
      await bridge.start();
      return bridge;
    }

    afterAll(async () => {
      await Promise.all(bridges.map((bridge) => bridge.stop()));
    });

    it('the first webhook brings the tables up and books A, the poll books C whose webhook was lost, B stays paid once', async () => {
      const bridge = await shop();
      // Three orders 1.2.0 placed: A awaiting payment, B paid (its webhook arrived), C awaiting.
      const orders = (await bridge.runJson(`${shopAt120(service.url)}
$orders = [];
foreach (['A', 'B', 'C'] as $name) {
    $cart = HarnessShop::createCart('25.00', 'EUR');
    $module->validateOrder($cart['id_cart'], CryptoCheckout\\PrestaShop\\OrderStates::id(CryptoCheckout\\PrestaShop\\OrderStates::AWAITING), 25.0, 'Crypto Checkout', null, [], Currency::getIdByIsoCode('EUR'), false, $cart['secure_key']);
    $order = new Order((int) $module->currentOrder);
    $orders[$name] = ['id' => (int) $order->id, 'reference' => $order->reference];
}
echo json_encode($orders);`)) as Record<'A' | 'B' | 'C', { id: number; reference: string }>;
      const webhookUrl = `${bridge.url}/module/cryptocheckout/webhook`;
      const a = await createCheckout(orders.A.reference, webhookUrl);
      // B's and C's webhooks never reach this shop (B's was handled by 1.2.0; C's was lost).
      const b = await createCheckout(orders.B.reference);
      const c = await createCheckout(orders.C.reference);
      await service.pay(b.transaction_code, 'full');
      const paidB = await service.transaction(b.transaction_code);
      // 1.2.0's rows, as its CheckoutRepository wrote them; B booked as 1.2.0 booked it.
      await bridge.runJson(`
$now = time();
$row = function (int $idOrder, array $created, array $progress) use ($now) {
    $values = array_merge([
        'id_order' => $idOrder, 'transaction_code' => $created['transaction_code'], 'checkout_url' => $created['checkout_url'],
        'service_url' => ${phpString(service.url)}, 'fiat_amount' => '25.00', 'fiat_currency' => 'EUR',
        'wallet_address' => ${phpString(WALLET)}, 'wallet_currency' => 'USDC', 'wallet_network' => 'POLYGON',
        'created_at' => $now - 60, 'expires_at' => strtotime($created['expires_at']),
        'watch_until' => strtotime($created['expires_at']) + 25 * 3600, 'checked_at' => null, 'last_status' => 'pending',
        'received_usd' => null, 'applied_action' => null, 'resolution' => null,
    ], $progress);
    foreach ($values as $key => $value) {
        $values[$key] = $value === null ? ['type' => 'sql', 'value' => 'NULL'] : pSQL((string) $value);
    }
    Db::getInstance()->insert('cryptocheckout_checkout', $values);
};
$row(${orders.A.id}, json_decode(${phpString(JSON.stringify(a))}, true), []);
$row(${orders.B.id}, json_decode(${phpString(JSON.stringify(b))}, true), ['checked_at' => $now, 'last_status' => 'settled', 'received_usd' => ${phpString(String(paidB.received_usd))}, 'applied_action' => 'mark_paid', 'resolution' => 'booked']);
$row(${orders.C.id}, json_decode(${phpString(JSON.stringify(c))}, true), []);
$orderB = new Order(${orders.B.id});
$orderB->addOrderPayment('25.00', 'Crypto Checkout', ${phpString(b.transaction_code)});
$orderB->setCurrentState((int) Configuration::get('PS_OS_PAYMENT'));
echo json_encode(true);`);
      await service.pay(c.transaction_code, 'full');

      // The buyer pays A: the service's one webhook is the first request the new files serve.
      await service.pay(a.transaction_code, 'full');
      const delivery = await deliveredWebhook(a.transaction_code);
      expect(delivery.attempts[0]?.http_status, delivery.attempts[0]?.error ?? '').toBe(200);

      const token = String(
        await bridge.runJson(`echo json_encode(Configuration::get('CRYPTOCHECKOUT_POLL_TOKEN'));`),
      );
      const poll = async () => {
        const answer = await bridge.request(`/module/cryptocheckout/poll?token=${encodeURIComponent(token)}`);
        expect(answer.status, answer.body).toBe(200);
        return (
          JSON.parse(answer.body) as {
            data: { results: Array<{ transaction_code: string; result: string; action: string | null }> };
          }
        ).data.results;
      };
      const results = await poll();
      expect(results.find((r) => r.transaction_code === c.transaction_code)).toMatchObject({
        result: 'applied',
        action: 'mark_paid',
      });
      expect(results.filter((r) => r.result === 'applied').map((r) => r.transaction_code)).toEqual([
        c.transaction_code,
      ]);
      await poll();

      const state = (await bridge.runJson(`${UPGRADE_STATE_PHP}
$state['orders'] = [];
foreach (json_decode(${phpString(JSON.stringify(orders))}, true) as $name => $order) {
    $o = new Order($order['id']);
    $state['orders'][$name] = [
        'state' => (int) $o->current_state === (int) Configuration::get('PS_OS_PAYMENT') ? 'paid' : (int) $o->current_state,
        'payments' => array_map(function ($p) { return $p->transaction_id; }, OrderPayment::getByOrderReference($o->reference)),
    ];
}
echo json_encode($state);`)) as Record<string, unknown>;
      expect(state).toMatchObject({
        orders: {
          A: { state: 'paid', payments: [a.transaction_code] },
          B: { state: 'paid', payments: [b.transaction_code] },
          C: { state: 'paid', payments: [c.transaction_code] },
        },
        // Recorded where PrestaShop looks, so its upgrade scripts do not run again.
        version: '1.4.1',
        schema: '1.4.1',
        legacyTables: 0,
        hooks: [true, true],
        display: 'modal',
        upgradesLogged: 1,
        errorsLogged: [],
      });
      expect(bridge.errors).toEqual([]);
    });

    it('the payment step brings them up too: Pay with crypto is still offered', async () => {
      const bridge = await shop();
      await bridge.runJson(`${shopAt120(service.url)} echo json_encode(true);`);
      const result = (await bridge.runJson(`
$cart = HarnessShop::createCart('25.00', 'EUR');
HarnessShop::actAsBuyer($cart['id_cart']);
$options = Hook::exec('paymentOptions', ['cart' => Context::getContext()->cart], null, true)['cryptocheckout'] ?? [];
${UPGRADE_STATE_PHP}
$state['options'] = array_map(function ($option) { return $option->toArray()['call_to_action_text']; }, $options);
echo json_encode($state);`)) as Record<string, unknown>;
      expect(result).toMatchObject({
        options: ['Pay with crypto'],
        version: '1.4.1',
        schema: '1.4.1',
        upgradesLogged: 1,
      });
    });

    it('tables that cannot be brought up: 503 with Retry-After, no option, a banner; the configuration page retries and completes', async () => {
      const bridge = await shop();
      // 1.2.0's checkouts, and a database that refuses a write the move needs.
      await bridge.runJson(`${shopAt120(service.url)}
${ROWS_1_2_PHP}
$module->kernel()->ledger()->install();
Db::getInstance()->execute(${phpString(REFUSE_TRIGGER_SQLITE)});
echo json_encode(true);`);
      // A settlement of a transaction no order of this shop holds (answered 200 "ignored" once ready).
      const webhook = () =>
        bridge.request('/module/cryptocheckout/webhook', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            event: 'transaction.settled',
            transaction_code: 'cccccccc-0000-4000-8000-000000000099',
            external_reference: 'XKBKNABJK',
            fiat_amount: 25,
            fiat_currency: 'EUR',
            received_usd: 27.1,
            wallet_address: WALLET,
            wallet_currency: 'USDC',
            wallet_network: 'POLYGON',
            payout_dispatched: true,
            timestamp: Math.floor(Date.now() / 1000),
          }),
        });
      for (let i = 0; i < 2; i++) {
        const answer = await webhook();
        expect(answer.status, answer.body).toBe(503);
        expect(answer.headers['retry-after']).toBe('60');
        expect(JSON.parse(answer.body)).toMatchObject({ status: 'error', error: { code: 'unavailable' } });
      }
      const status = await bridge.request('/module/cryptocheckout/status?id_order=1&key=x');
      expect(status.status).toBe(503);

      const failing = (await bridge.runJson(`
$cart = HarnessShop::createCart('25.00', 'EUR');
HarnessShop::actAsBuyer($cart['id_cart']);
$options = Hook::exec('paymentOptions', ['cart' => Context::getContext()->cart], null, true)['cryptocheckout'] ?? [];
HarnessShop::actAsEmployee();
${UPGRADE_STATE_PHP}
$state['options'] = count($options);
$state['banner'] = Hook::exec('displayAdminAfterHeader', []);
$state['warning'] = $module->warning;
echo json_encode($state);`)) as Record<string, unknown> & { banner: string; errorsLogged: string[] };
      expect(failing).toMatchObject({ options: 0, version: '1.2.0', schema: false, upgradesLogged: 0 });
      expect(failing.banner).toContain(
        'Crypto Checkout 1.4.1 could not bring its database tables up to date',
      );
      expect(failing.banner).toContain('refused by the test');
      expect(failing.banner).toContain('alert-danger');
      expect(failing.warning).toContain('could not bring its database tables up to date');
      // Said once in the log, however many requests found it so.
      expect(failing.errorsLogged).toHaveLength(1);
      expect(failing.errorsLogged[0]).toContain('could not be brought up to date for version 1.4.1');

      // The merchant removes the cause and opens the configuration page: it tries again at once.
      const fixed = (await bridge.runJson(`
Db::getInstance()->execute('DROP TRIGGER cryptocheckout_refuse');
HarnessShop::actAsEmployee();
$page = Module::getInstanceByName('cryptocheckout')->getContent();
${UPGRADE_STATE_PHP}
$state['page'] = $page;
$state['banner'] = Hook::exec('displayAdminAfterHeader', []);
echo json_encode($state);`)) as Record<string, unknown> & { page: string };
      expect(fixed).toMatchObject({
        version: '1.4.1',
        schema: '1.4.1',
        legacyTables: 0,
        banner: '',
        upgradesLogged: 1,
      });
      expect(fixed.page).not.toContain('could not bring its database tables up to date');
      const after = await webhook();
      expect(after.status, after.body).toBe(200);
      expect(JSON.parse(after.body)).toMatchObject({ status: 'success', data: { result: 'ignored' } });
    });
  });

  describe(`PrestaShop module: 1.4.1's files over a 1.4.0 shop [PHP ${version}]`, () => {
    const bridges: ShopBridge[] = [];

    afterAll(async () => {
      await Promise.all(bridges.map((bridge) => bridge.stop()));
    });

    // The released 1.4.0 recorded no completed upgrade; these files built as 1.4.0 recorded '1.4.0'.
    for (const marker of [null, '1.4.0'] as const) {
      it(`the first webhook records 1.4.1 (marker ${marker ?? 'absent'}), registers the banner's hook, keeps every checkout and refund`, async () => {
        const bridge = new ShopBridge(
          version,
          copy.mounts,
          `upgrade-140-${version}-${marker ?? 'none'}.sqlite`,
        );
        bridges.push(bridge);
        await bridge.start();
        const before = (await bridge.runJson(`${installAndConfigure(service.url)}
${shopAt140(marker)}
${LEDGER_ROWS_PHP}
echo json_encode([
    'rows' => $ledgerRows(),
    'hooks' => array_map(function ($hook) use ($module) { return $module->isRegisteredInHook($hook); }, ['actionOrderSlipAdd', 'displayAdminAfterHeader']),
]);`)) as { rows: Record<string, unknown[]>; hooks: boolean[] };
        expect(before.hooks).toEqual([true, false]);
        expect(Object.values(before.rows).map((rows) => rows.length)).toEqual([2, 2, 1]);

        // A settlement of a transaction no order of this shop holds: the first request the new files serve.
        const answer = await bridge.request('/module/cryptocheckout/webhook', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            event: 'transaction.settled',
            transaction_code: 'cccccccc-0000-4000-8000-000000000098',
            external_reference: 'XKBKNABJK',
            fiat_amount: 25,
            fiat_currency: 'EUR',
            received_usd: 27.1,
            wallet_address: WALLET,
            wallet_currency: 'USDC',
            wallet_network: 'POLYGON',
            payout_dispatched: true,
            timestamp: Math.floor(Date.now() / 1000),
          }),
        });
        expect(answer.status, answer.body).toBe(200);
        expect(JSON.parse(answer.body)).toMatchObject({ status: 'success', data: { result: 'ignored' } });

        const after = (await bridge.runJson(`${UPGRADE_STATE_PHP}
${LEDGER_ROWS_PHP}
$state['rows'] = $ledgerRows();
// Module Manager's Upgrade afterwards finds nothing to run: ps_module says 1.4.1 already.
$state['upgrade'] = Module::getInstanceByName('cryptocheckout')->runUpgrades();
echo json_encode($state);`)) as Record<string, unknown> & { infoLogged: string[] };
        expect(after).toMatchObject({
          version: '1.4.1',
          schema: '1.4.1',
          legacyTables: 0,
          hooks: [true, true],
          display: 'redirect',
          upgradesLogged: 1,
          errorsLogged: [],
          rows: before.rows,
          upgrade: { success: true, upgraded_to: null, version_fail: null, ran: [] },
        });
        expect(after.infoLogged.filter((message) => message.includes('up to date for version'))).toEqual([
          "Crypto Checkout: The module's tables and hooks are up to date for version 1.4.1 (the shop had 1.4.0).",
        ]);
        expect(bridge.errors).toEqual([]);
      });
    }
  });
}
