import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningServer, startServer } from '@cryptocheckout/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PHP_VERSIONS } from '../../../packages/php-testkit/src/index.js';
import { bootWhmcs, CALLBACK_PATH, php, startBridge, type Whmcs } from './harness/harness.js';

// The module in real PHP against the WHMCS harness and the real reference server: configuration,
// the pay button and endpoint, webhooks delivered over HTTP through the bridge, the cron hook,
// the status widget's endpoint, currency conversion, underpaid, expired and late payments.

const WALLET = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
const SETTINGS = { serviceUrl: '', walletAddress: WALLET, asset: 'USDC', network: 'POLYGON' };

let now = Date.now();
let server: RunningServer;
const serverDir = mkdtempSync(join(tmpdir(), 'whmcs-server-'));

beforeAll(async () => {
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir: serverDir,
    mode: 'sandbox',
    logLevel: 'silent',
    clock: () => new Date(now),
    sweepIntervalMs: 100,
  });
  SETTINGS.serviceUrl = server.url;
});

afterAll(async () => {
  await server?.close();
  rmSync(serverDir, { recursive: true, force: true });
});

async function serverTransaction(code: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${server.url}/api/transaction?transaction_code=${code}`);
  return ((await response.json()) as { data: Record<string, unknown> }).data;
}

async function sandboxPay(code: string, size: 'full' | 'partial'): Promise<void> {
  const response = await fetch(`${server.url}/api/sandbox/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ transaction_code: code, payment_method: 'usdc_polygon', size }),
  });
  expect(response.status, await response.clone().text()).toBeLessThan(300);
}

async function waitFor<T>(probe: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const until = Date.now() + 10_000;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface InvoiceState {
  invoice: { status: string; balance: string; total: string };
  payments: Array<{ transid: string; amountin: string; gateway: string }>;
  gatewaylog: Array<{ result: string; data: string }>;
  notes: Array<{ note: string; sticky: string }>;
  activity: Array<{ description: string }>;
}

type FormFields = Record<string, string>;

function formFields(html: string): FormFields {
  const fields: FormFields = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[match[1] as string] = (match[2] as string).replace(/&amp;/g, '&');
  }
  return fields;
}

for (const version of PHP_VERSIONS) {
  describe(`WHMCS gateway module [PHP ${version}]`, () => {
    let whmcs: Whmcs;
    let bridge: { url: string; close(): Promise<void> };
    let dbCount = 0;
    const dataDir = mkdtempSync(join(tmpdir(), `whmcs-${version}-`));

    beforeAll(async () => {
      whmcs = await bootWhmcs(version, { dataDir });
      bridge = await startBridge(whmcs);
    });

    afterAll(async () => {
      await bridge?.close();
      whmcs?.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    });

    /** A fresh WHMCS database with the gateway active and one unpaid invoice. */
    async function install(
      options: {
        settings?: Record<string, string>;
        clientCurrency?: string;
        total?: string;
        convertTo?: string;
      } = {},
    ): Promise<number> {
      whmcs.db = `/data/${version}-${++dbCount}.sqlite`;
      const settings = { ...SETTINGS, ...options.settings };
      return whmcs.driver<number>(`
        harness_setup(${php(bridge.url)}, ['USD' => '1.00000', 'EUR' => '0.90000', 'JPY' => '150.00000']);
        $settings = json_decode(${php(JSON.stringify(settings))}, true);
        ${options.convertTo ? `$settings['convertto'] = (string) harness_currency_id(${php(options.convertTo)});` : ''}
        $saved = harness_save_gateway($settings);
        if (!$saved['saved']) { throw new RuntimeException($saved['error']); }
        $client = harness_create_client(${php(options.clientCurrency ?? 'EUR')});
        echo json_encode(harness_create_invoice($client, ${php(options.total ?? '25.00')}));
      `);
    }

    const viewInvoice = (invoiceId: number) =>
      whmcs.driver<string>(`echo json_encode(harness_view_invoice(${invoiceId}));`);
    const invoiceState = (invoiceId: number) =>
      whmcs.driver<InvoiceState>(`echo json_encode(harness_invoice_state(${invoiceId}));`);
    const moduleRows = () =>
      whmcs.driver<Array<Record<string, string>>>(`
        $schema = WHMCS\\Database\\Capsule::schema();
        echo json_encode($schema->hasTable('mod_cryptocheckout_transactions')
          ? WHMCS\\Database\\Capsule::table('mod_cryptocheckout_transactions')->orderBy('id')->get()->all() : []);
      `);
    /** Checkouts created from now on send their webhook where nothing listens. */
    const loseWebhooks = () =>
      whmcs.driver(`
        WHMCS\\Database\\Capsule::table('tblconfiguration')->where('setting', 'SystemURL')->update(['value' => 'http://127.0.0.1:9/']);
        echo json_encode(true);
      `);
    const runCron = () => whmcs.driver(`harness_run_cron(); echo json_encode(true);`);

    /** An unpaid invoice whose checkout settled on the service while its webhook was lost. */
    async function invoiceSettledWithoutWebhook(): Promise<{ invoiceId: number; code: string }> {
      const invoiceId = await install();
      await loseWebhooks();
      const { code } = await startCheckout(invoiceId);
      await sandboxPay(code, 'full');
      await waitFor(
        () => serverTransaction(code),
        (tx) => tx.status === 'settled',
        'settlement',
      );
      return { invoiceId, code };
    }

    function pressPay(fields: FormFields, accept = 'text/html') {
      return whmcs.request({
        method: 'POST',
        query: { action: 'pay' },
        body: new URLSearchParams(fields).toString(),
        contentType: 'application/x-www-form-urlencoded',
        accept,
      });
    }

    /** Renders the invoice and presses its button; returns the checkout the buyer lands on. */
    async function startCheckout(invoiceId: number): Promise<{ code: string; url: string }> {
      const response = await pressPay(formFields(await viewInvoice(invoiceId)), 'application/json');
      expect(response.status, response.body + response.stderr).toBe(200);
      const data = JSON.parse(response.body) as { checkout_url: string; transaction_code: string };
      return { code: data.transaction_code, url: data.checkout_url };
    }

    function postWebhook(body: unknown) {
      return whmcs.request({
        method: 'POST',
        body: typeof body === 'string' ? body : JSON.stringify(body),
        contentType: 'application/json',
      });
    }

    async function settledWebhookBody(code: string): Promise<Record<string, unknown>> {
      const tx = await serverTransaction(code);
      return {
        event: 'transaction.settled',
        transaction_code: code,
        external_reference: tx.external_reference,
        fiat_amount: tx.fiat_amount,
        fiat_currency: tx.fiat_currency,
        received_usd: tx.amount_in_usd,
        wallet_address: tx.wallet_address,
        wallet_currency: tx.wallet_currency,
        wallet_network: tx.wallet_network,
        payout_dispatched: true,
        timestamp: Math.floor(Date.now() / 1000),
      };
    }

    describe('activation and configuration', () => {
      it('declares its metadata and the settings page', async () => {
        whmcs.db = `/data/${version}-config.sqlite`;
        const result = await whmcs.driver<{
          meta: Record<string, unknown>;
          config: Record<string, Record<string, unknown>>;
        }>(`
          harness_load_module();
          echo json_encode(['meta' => cryptocheckout_MetaData(), 'config' => cryptocheckout_config()]);
        `);
        expect(result.meta).toMatchObject({ DisplayName: 'Crypto Checkout', APIVersion: '1.1' });
        expect(result.config.FriendlyName).toEqual({ Type: 'System', Value: 'Crypto Checkout' });
        expect(result.config.serviceUrl?.Type).toBe('text');
        expect(result.config.walletAddress?.Type).toBe('text');
        expect(result.config.network).toMatchObject({ Type: 'dropdown', Default: 'POLYGON' });
        expect(result.config.network?.Options).toMatchObject({ POLYGON: 'Polygon PoS', TRON: 'TRON' });
        expect(result.config.asset).toMatchObject({ Type: 'dropdown', Default: 'USDC' });
        expect(result.config.asset?.Options).toMatchObject({ USDC: 'USDC (recommended)', USDT: 'USDT' });
        expect(Object.keys(result.config.displayMode?.Options as object)).toEqual(['redirect', 'embedded']);
        expect(result.config.debug?.Type).toBe('yesno');
      });

      it('refuses to save settings that cannot take payments, naming the field and the fix', async () => {
        whmcs.db = `/data/${version}-validate.sqlite`;
        const save = (settings: Record<string, string>) =>
          whmcs.driver<{ saved: boolean; error?: string }>(`
            echo json_encode(harness_save_gateway(json_decode(${php(JSON.stringify({ ...SETTINGS, ...settings }))}, true)));
          `);
        const badChecksum = await save({ walletAddress: '0x3C499c542cEF5E3811e1192ce70d8cC03d5c3359' });
        expect(badChecksum.saved).toBe(false);
        expect(badChecksum.error).toMatch(/^Wallet address: .*checksum/i);
        const wrongNetwork = await save({ walletAddress: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' });
        expect(wrongNetwork.error).toMatch(
          /Wallet address: This is a TRON address, but the network is POLYGON/,
        );
        const assetOffNetwork = await save({ asset: 'BTC' });
        expect(assetOffNetwork.error).toMatch(/Settlement asset: BTC is not settled on POLYGON/);
        const withPath = await save({ serviceUrl: `${server.url}/api` });
        expect(withPath.error).toMatch(/Service URL: .*without a path/);
        expect((await save({})).saved).toBe(true);
      });

      it('shows the admin what is wrong with settings saved before', async () => {
        await install();
        const description = await whmcs.driver<string>(`
          WHMCS\\Database\\Capsule::table('tblpaymentgateways')->where('gateway', 'cryptocheckout')->where('setting', 'walletAddress')->update(['value' => '0x<script>']);
          harness_load_module();
          echo json_encode(cryptocheckout_config()['walletAddress']['Description']);
        `);
        expect(description).toContain('Wallet address:');
        expect(description).not.toContain('<script>');
      });
    });

    describe('pay button and pay endpoint', () => {
      it('renders the button without creating a checkout', async () => {
        const invoiceId = await install();
        const html = await viewInvoice(invoiceId);
        await viewInvoice(invoiceId);
        expect(html).toContain(`action="${bridge.url}${CALLBACK_PATH}?action=pay"`);
        expect(html).toContain('>Pay Now</button>');
        expect(html).toContain('data-mode="redirect"');
        expect(html).toContain('modules/gateways/cryptocheckout/assets/invoice.js');
        expect(formFields(html)).toMatchObject({
          invoiceid: String(invoiceId),
          amount: '25.00',
          currency: 'EUR',
        });
        expect(await moduleRows()).toEqual([]);
      });

      it('escapes what it prints, and marks the form for the embedded page when so configured', async () => {
        const invoiceId = await install({ settings: { displayMode: 'embedded' } });
        const html = await whmcs.driver<string>(`
          harness_load_module();
          echo json_encode(cryptocheckout_link(array_merge(harness_link_params(${invoiceId}), ['langpaynow' => '<img src=x onerror=alert(1)>"'])));
        `);
        expect(html).toContain('data-mode="embedded"');
        expect(html).toContain('>&lt;img src=x onerror=alert(1)&gt;&quot;</button>');
        expect(html).not.toContain('<img');
      });

      it('tells the buyer when the gateway is misconfigured, without showing a button', async () => {
        const invoiceId = await install();
        await whmcs.driver(`
          WHMCS\\Database\\Capsule::table('tblpaymentgateways')->where('gateway', 'cryptocheckout')->where('setting', 'walletAddress')->update(['value' => '']);
          echo json_encode(true);
        `);
        const html = await viewInvoice(invoiceId);
        expect(html).toContain('not available');
        expect(html).not.toContain('<form');
      });

      it('prepares one checkout per invoice at a time: a press during another one is refused, not doubled', async () => {
        const invoiceId = await install();
        const fields = formFields(await viewInvoice(invoiceId));
        const held = await whmcs.driver<{ first: string | null; second: string | null }>(`
          require_once ROOTDIR . '/modules/gateways/cryptocheckout/autoload.php';
          $store = new CryptoCheckout\\Whmcs\\TransactionStore();
          echo json_encode(['first' => $store->acquireLock('pay:${invoiceId}', 60), 'second' => $store->acquireLock('pay:${invoiceId}', 60)]);
        `);
        expect(held.first).toMatch(/^\d+:[0-9a-f]{12}$/);
        expect(held.second).toBeNull();
        const refused = await pressPay(fields, 'application/json');
        expect(refused.status).toBe(409);
        expect(JSON.parse(refused.body).error).toMatch(/already being prepared/);
        expect(await moduleRows()).toEqual([]);
        // A lock left behind by a request that died expires and is taken over.
        const takenOver = await whmcs.driver<string | null>(`
          require_once ROOTDIR . '/modules/gateways/cryptocheckout/autoload.php';
          WHMCS\\Database\\Capsule::table('mod_cryptocheckout_settings')->where('setting', 'lock:pay:${invoiceId}')->update(['value' => '1:dead']);
          echo json_encode((new CryptoCheckout\\Whmcs\\TransactionStore())->acquireLock('pay:${invoiceId}', 60));
        `);
        expect(takenOver).toMatch(/^\d+:[0-9a-f]{12}$/);
      });

      it('creates the checkout on the first press and reuses it on the next', async () => {
        const invoiceId = await install();
        const fields = formFields(await viewInvoice(invoiceId));
        const first = await pressPay(fields);
        expect(first.status, first.body + first.stderr).toBe(303);
        const location = first.headers.location as string;
        expect(location.startsWith(`${server.url}/pay/`)).toBe(true);
        const rows = await moduleRows();
        expect(rows).toHaveLength(1);
        const code = rows[0]?.transaction_code as string;
        const tx = await serverTransaction(code);
        expect(tx).toMatchObject({
          fiat_amount: 25,
          fiat_currency: 'EUR',
          external_reference: `whmcs-invoice-${invoiceId}`,
          wallet_address: WALLET,
          wallet_network: 'POLYGON',
          status: 'pending',
        });
        const second = await pressPay(formFields(await viewInvoice(invoiceId)));
        expect(second.headers.location).toBe(location);
        expect(await moduleRows()).toHaveLength(1);
        expect(await viewInvoice(invoiceId)).toContain('>Continue payment</button>');

        const json = await pressPay(fields, 'application/json');
        expect(JSON.parse(json.body)).toMatchObject({
          checkout_url: location,
          transaction_code: code,
          mode: 'redirect',
        });
      });

      it('refuses a tampered or stale button, and invoices that are not Unpaid', async () => {
        const invoiceId = await install();
        const fields = formFields(await viewInvoice(invoiceId));
        const tampered = await pressPay({ ...fields, amount: '1.00' }, 'application/json');
        expect(tampered.status).toBe(403);
        expect(JSON.parse(tampered.body).error).toMatch(/out of date/);
        const stale = await pressPay({ ...fields, token: 'x' });
        expect(stale.status).toBe(403);
        expect(stale.body).toContain('Back to the invoice');
        const get = await whmcs.request({ method: 'GET', query: { action: 'pay' } });
        expect(get.status).toBe(405);

        await whmcs.driver(
          `addInvoicePayment(${invoiceId}, 'bank-1', '', 0, 'banktransfer'); echo json_encode(true);`,
        );
        const paid = await pressPay(fields, 'application/json');
        expect(paid.status).toBe(409);
        expect(JSON.parse(paid.body).error).toBe(`Invoice #${invoiceId} is Paid; there is nothing to pay.`);
        expect(await moduleRows()).toEqual([]);
      });

      it('refuses a button rendered before the invoice changed', async () => {
        const invoiceId = await install({ total: '40.00' });
        const fields = formFields(await viewInvoice(invoiceId));
        await whmcs.driver(
          `addInvoicePayment(${invoiceId}, 'bank-2', '10.00', 0, 'banktransfer'); echo json_encode(true);`,
        );
        const response = await pressPay(fields, 'application/json');
        expect(response.status).toBe(409);
        expect(JSON.parse(response.body).error).toMatch(/changed/);
      });

      it('honours "Convert To For Processing": charges the converted amount, pays the invoice in its own currency', async () => {
        const invoiceId = await install({ clientCurrency: 'EUR', total: '25.00', convertTo: 'USD' });
        const fields = formFields(await viewInvoice(invoiceId));
        expect(fields).toMatchObject({
          amount: '27.78',
          currency: 'USD',
          base_amount: '25.00',
          base_currency: 'EUR',
        });
        const { code } = await startCheckout(invoiceId);
        expect(await serverTransaction(code)).toMatchObject({ fiat_amount: 27.78, fiat_currency: 'USD' });
        await sandboxPay(code, 'full');
        const state = await waitFor(
          () => invoiceState(invoiceId),
          (s) => s.invoice.status === 'Paid',
          'the webhook to pay the invoice',
        );
        expect(state.payments).toEqual([
          expect.objectContaining({ transid: code, amountin: '25.00', gateway: 'cryptocheckout' }),
        ]);
      });
    });

    describe('webhook', () => {
      it('pays the invoice once from the verified lookup, however often the webhook comes', async () => {
        const invoiceId = await install();
        const { code } = await startCheckout(invoiceId);
        await sandboxPay(code, 'full');
        await waitFor(
          () => invoiceState(invoiceId),
          (s) => s.invoice.status === 'Paid',
          'the webhook',
        );
        const body = await settledWebhookBody(code);
        const replays = await Promise.all([postWebhook(body), postWebhook(body), postWebhook(body)]);
        for (const replay of replays) expect(replay.status).toBe(200);
        await runCron();
        const state = await invoiceState(invoiceId);
        expect(state.payments).toHaveLength(1);
        expect(state.payments[0]).toMatchObject({ transid: code, amountin: '25.00' });
        expect(state.gatewaylog.filter((entry) => entry.result === 'Success')).toHaveLength(1);
        expect((await moduleRows())[0]?.state).toBe('paid');
        const status = await pressPay(formFields(await viewInvoice(invoiceId)), 'application/json');
        expect(status.status).toBe(409);
      });

      it('applies the payment once when two checks race with the same stale view of the checkout', async () => {
        const { invoiceId, code } = await invoiceSettledWithoutWebhook();
        // Both "requests" read the row before either acts, as a webhook and the cron would when
        // they arrive together; only the conditional state change decides who applies it.
        const outcomes = await whmcs.driver<Array<{ action: string; state: string }>>(`
          require_once ROOTDIR . '/modules/gateways/cryptocheckout/autoload.php';
          $gateway = new CryptoCheckout\\Whmcs\\Gateway(getGatewayVariables('cryptocheckout'));
          $first = $gateway->store()->findByCode(${php(code)});
          $second = $gateway->store()->findByCode(${php(code)});
          echo json_encode([$gateway->reconciliation()->run($first), $gateway->reconciliation()->run($second)]);
        `);
        expect(outcomes.map((outcome) => outcome.action)).toEqual(['mark_paid', 'mark_paid']);
        expect(outcomes.map((outcome) => outcome.state)).toEqual(['paid', 'paid']);
        const state = await invoiceState(invoiceId);
        expect(state.invoice.status).toBe('Paid');
        expect(state.payments).toHaveLength(1);
        expect(state.gatewaylog.filter((entry) => entry.result === 'Success')).toHaveLength(1);

        // The lock itself: of two changes made from the same observed state, only the first wins.
        const wins = await whmcs.driver<boolean[]>(`
          require_once ROOTDIR . '/modules/gateways/cryptocheckout/autoload.php';
          $store = new CryptoCheckout\\Whmcs\\TransactionStore();
          $row = $store->findByCode(${php(code)});
          echo json_encode([
            $store->transition((int) $row->id, 'paid', 'late_payment_review', 'first'),
            $store->transition((int) $row->id, 'paid', 'late_payment_review', 'second'),
          ]);
        `);
        expect(wins).toEqual([true, false]);
      });

      it('ignores forged and malformed callbacks', async () => {
        const invoiceId = await install();
        const { code } = await startCheckout(invoiceId);
        const forged = await postWebhook({ ...(await settledWebhookBody(code)), received_usd: 1000 });
        expect(forged.status).toBe(200);
        expect(JSON.parse(forged.body)).toEqual({ received: true, state: 'awaiting_payment' });
        const unknown = await postWebhook({
          ...(await settledWebhookBody(code)),
          transaction_code: '3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f',
        });
        expect(unknown.status).toBe(202);
        const malformed = await postWebhook('{"event":"transaction.settled"');
        expect(malformed.status).toBe(400);
        const state = await invoiceState(invoiceId);
        expect(state.invoice.status).toBe('Unpaid');
        expect(state.payments).toEqual([]);
        expect(state.gatewaylog.map((entry) => entry.result)).toEqual([
          'Ignored: unknown transaction',
          'Ignored: invalid webhook',
        ]);
      });
    });

    describe('cron and return visits', () => {
      it('pays the invoice on the cron when the webhook never arrived', async () => {
        const { invoiceId } = await invoiceSettledWithoutWebhook();
        // Give the (lost) webhook time to have arrived, had it been delivered.
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect((await invoiceState(invoiceId)).invoice.status).toBe('Unpaid');
        await runCron();
        const state = await invoiceState(invoiceId);
        expect(state.invoice.status).toBe('Paid');
        expect(state.payments).toHaveLength(1);
        await runCron();
        expect((await invoiceState(invoiceId)).payments).toHaveLength(1);
      });

      it('serves the status widget, and checks the checkout when the buyer returns', async () => {
        const invoiceId = await install();
        const html = await viewInvoice(invoiceId);
        const statusUrl = new URL(
          (/data-status-url="([^"]+)"/.exec(html)?.[1] as string).replace(/&amp;/g, '&'),
        );
        const query = Object.fromEntries(statusUrl.searchParams);
        const status = async () => JSON.parse((await whmcs.request({ method: 'GET', query })).body);
        expect(await status()).toEqual({ invoice_status: 'Unpaid', state: '', message: '', terminal: true });
        const forged = await whmcs.request({
          method: 'GET',
          query: { ...query, invoice: String(invoiceId + 1) },
        });
        expect(forged.status).toBe(403);

        await loseWebhooks();
        const { code } = await startCheckout(invoiceId);
        expect(await status()).toMatchObject({
          invoice_status: 'Unpaid',
          state: 'awaiting_payment',
          terminal: false,
        });
        await sandboxPay(code, 'full');
        await waitFor(
          () => serverTransaction(code),
          (tx) => tx.status === 'settled',
          'settlement',
        );
        await whmcs.driver(`
          WHMCS\\Database\\Capsule::table('mod_cryptocheckout_transactions')->update(['checked_at' => null]);
          echo json_encode(true);
        `);
        expect(await status()).toEqual({
          invoice_status: 'Paid',
          state: 'paid',
          message: 'Payment received. Thank you!',
          terminal: true,
        });
        expect((await invoiceState(invoiceId)).payments).toHaveLength(1);
      });
    });

    describe('underpaid, expired and late payments', () => {
      it('holds an underpaid invoice unpaid with a note for the admin', async () => {
        const invoiceId = await install();
        const { code } = await startCheckout(invoiceId);
        await sandboxPay(code, 'partial');
        await waitFor(
          () => serverTransaction(code),
          (tx) => tx.status === 'underpaid',
          'underpayment',
        );
        await runCron();
        await runCron();
        const state = await invoiceState(invoiceId);
        expect(state.invoice.status).toBe('Unpaid');
        expect(state.payments).toEqual([]);
        expect(state.gatewaylog.filter((entry) => entry.result === 'Underpaid')).toHaveLength(1);
        expect(state.notes).toHaveLength(1);
        expect(state.notes[0]?.note).toMatch(
          new RegExp(`^Invoice #${invoiceId}: Crypto Checkout: received .* USD is still due`),
        );
        expect(state.notes[0]?.sticky).toBe('1');
        expect((await moduleRows())[0]?.state).toBe('underpaid');
        expect(await viewInvoice(invoiceId)).toContain('Part of the payment arrived');

        // The window closes with the partial payment held: no second checkout for the full amount.
        now += 61 * 60 * 1000;
        try {
          await waitFor(
            () => serverTransaction(code),
            (tx) => tx.status === 'expired',
            'expiry',
          );
          await runCron();
          expect((await moduleRows()).map((row) => row.state)).toEqual(['underpaid']);
          const again = await pressPay(formFields(await viewInvoice(invoiceId)), 'application/json');
          expect(again.status).toBe(409);
          expect(JSON.parse(again.body).error).toMatch(/contact us/);
          expect(await moduleRows()).toHaveLength(1);
          expect((await invoiceState(invoiceId)).notes).toHaveLength(1);
        } finally {
          now = Date.now();
        }
      });

      it('releases an expired checkout so a new one can be started, and applies a late payment to an unpaid invoice', async () => {
        const invoiceId = await install();
        const { code } = await startCheckout(invoiceId);
        now += 61 * 60 * 1000;
        try {
          await expireThenPayLate(invoiceId, code);
        } finally {
          now = Date.now();
        }
      });
    });

    async function expireThenPayLate(invoiceId: number, code: string): Promise<void> {
      await waitFor(
        () => serverTransaction(code),
        (tx) => tx.status === 'expired',
        'expiry',
      );
      await runCron();
      let state = await invoiceState(invoiceId);
      expect(state.invoice.status).toBe('Unpaid');
      expect(state.gatewaylog.map((entry) => entry.result)).toContain('Expired');
      expect((await moduleRows())[0]?.state).toBe('cancelled');
      expect(await viewInvoice(invoiceId)).toContain('expired');

      const again = await startCheckout(invoiceId);
      expect(again.code).not.toBe(code);
      expect(await moduleRows()).toHaveLength(2);

      // The buyer pays the first, expired checkout after all: still unpaid, so it is applied.
      await sandboxPay(code, 'full');
      state = await waitFor(
        () => invoiceState(invoiceId),
        (s) => s.invoice.status === 'Paid',
        'the late payment',
      );
      expect(state.payments).toEqual([expect.objectContaining({ transid: code, amountin: '25.00' })]);
      expect(state.gatewaylog.map((entry) => entry.result)).toContain('Success (late payment)');
      expect(state.notes.some((note) => note.note.includes('after the order was cancelled'))).toBe(true);

      // The second checkout, paid too, is only logged for the admin.
      await sandboxPay(again.code, 'full');
      state = await waitFor(
        () => invoiceState(invoiceId),
        (s) => s.gatewaylog.some((entry) => entry.result === 'Late Payment: invoice not unpaid'),
        'the review note',
      );
      expect(state.payments).toHaveLength(1);
      expect(
        state.notes.some((note) => note.note.includes(again.code) && note.note.includes('no longer unpaid')),
      ).toBe(true);
      expect((await moduleRows()).map((row) => row.state)).toEqual(['paid', 'late_payment_review']);
    }
  });
}
