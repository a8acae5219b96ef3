import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BIP84_DESCRIPTION,
  BIP84_FIRST_ADDRESSES,
  BIP84_ZPUB,
  BITCOIN_ADDRESS,
  type BitcoinWalletService,
  EVENT_DEADLINE_MS,
  expectedPriceLine,
  PHP_VERSIONS,
  REFUSED_BITCOIN_KEY,
  REFUSED_BITCOIN_KEY_REASON,
  type SandboxService,
  type ServiceProxy,
  startBitcoinWalletService,
  startSandboxService,
  startServiceWithoutLockedRate,
} from '@cryptocheckout/php-testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bootWhmcs,
  CALLBACK_PATH,
  php,
  startBridge,
  type Whmcs,
  type WhmcsResponse,
} from './harness/harness.js';
import { RELEASED_PHP } from './released-schemas.js';
import { DUE_SCENARIO_PHP } from './storage-scenarios.js';

// The module in real PHP against the WHMCS harness and the real reference server: configuration,
// the pay button and endpoint, webhooks delivered over HTTP through the bridge, the cron hook,
// the status box and its endpoint, currency conversion, underpaid, expired and late payments,
// runs that fail or die half-way, and the upgrade of an install from before the kernel.

const WALLET = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
const SETTINGS = { serviceUrl: '', walletAddress: WALLET, asset: 'USDC', network: 'POLYGON' };
const AUTOLOAD = "require_once ROOTDIR . '/modules/gateways/cryptocheckout/autoload.php';";

let now = Date.now();
let service: SandboxService;
/** The reference server answering as a service from before the locked rate (no data.rate). */
let olderService: ServiceProxy;
/** A live service with Bitcoin: it derives a key's first addresses and refuses REFUSED_BITCOIN_KEY. */
let bitcoin: BitcoinWalletService;

beforeAll(async () => {
  service = await startSandboxService({ clock: () => new Date(now), sweepIntervalMs: 100 });
  SETTINGS.serviceUrl = service.url;
  olderService = await startServiceWithoutLockedRate(service.url);
  bitcoin = await startBitcoinWalletService();
});

afterAll(async () => {
  await bitcoin?.close();
  await olderService?.close();
  await service?.close();
});

async function waitFor<T>(probe: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const until = Date.now() + EVENT_DEADLINE_MS;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const waitForStatus = (code: string, status: string) =>
  waitFor(
    () => service.transaction(code),
    (tx) => tx.status === status,
    `transaction ${code} to be ${status}`,
  );

/** Lets the service's clock pass the checkouts' expiry; `run` sees it, then the clock is back. */
async function afterExpiry(run: () => Promise<void>): Promise<void> {
  now += 61 * 60 * 1000;
  try {
    await run();
  } finally {
    now = Date.now();
  }
}

interface InvoiceState {
  invoice: { status: string; balance: string; total: string };
  payments: Array<{ transid: string; amountin: string; gateway: string }>;
  gatewaylog: Array<{ result: string; data: string }>;
  notes: Array<{ note: string; sticky: string }>;
  activity: Array<{ description: string }>;
}

interface BuyerStatus {
  state: string;
  message: string;
  terminal: boolean;
  checkout_url: string | null;
}

type FormFields = Record<string, string>;

function unescapeHtml(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#039;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

function formFields(html: string): FormFields {
  const fields: FormFields = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[match[1] as string] = unescapeHtml(match[2] as string);
  }
  return fields;
}

/** The status box's data-config (StatusWidgetMarkup). */
function statusBox(html: string): { statusUrl: string; status: BuyerStatus; openModal: boolean } {
  const config =
    /<section class="cryptocheckout-status" data-cryptocheckout-status data-state="[^"]*" data-config="([^"]*)">/.exec(
      html,
    );
  expect(config, html).not.toBeNull();
  return JSON.parse(unescapeHtml(config?.[1] as string));
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
        harness_setup(${php(bridge.url)}, ['USD' => '1.00000', 'EUR' => '0.90000', 'JPY' => '150.00000', 'PKR' => '280.00000']);
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
    /** The kernel's ledger: every checkout, oldest first, with the state recorded for its invoice. */
    const ledgerRows = () =>
      whmcs.driver<Array<Record<string, string | null>>>(`
        $schema = WHMCS\\Database\\Capsule::schema();
        echo json_encode($schema->hasTable('mod_cryptocheckout_checkouts')
          ? WHMCS\\Database\\Capsule::connection()->select('SELECT c.*, o.recorded_state FROM mod_cryptocheckout_checkouts c JOIN mod_cryptocheckout_orders o ON o.order_id = c.order_id ORDER BY CAST(c.order_id AS INTEGER), c.ordinal') : []);
      `);
    /** Invoices the kernel holds a claim on. */
    const claims = () =>
      whmcs.driver<Array<{ order_id: string; claim_until: string }>>(`
        echo json_encode(WHMCS\\Database\\Capsule::connection()->select('SELECT order_id, claim_until FROM mod_cryptocheckout_orders WHERE claim_token IS NOT NULL'));
      `);
    /** Checkouts created from now on send their webhook where nothing listens. */
    const loseWebhooks = () =>
      whmcs.driver(`
        WHMCS\\Database\\Capsule::table('tblconfiguration')->where('setting', 'SystemURL')->update(['value' => 'http://127.0.0.1:9/']);
        echo json_encode(true);
      `);
    const runCron = () => whmcs.driver(`harness_run_cron(); echo json_encode(true);`);
    /** Moves every recorded check `seconds` into the past, as if that much time had gone by. */
    const ageChecks = (seconds: number) =>
      whmcs.driver(`
        WHMCS\\Database\\Capsule::connection()->affectingStatement('UPDATE mod_cryptocheckout_checkouts SET checked_at = checked_at - ? WHERE checked_at IS NOT NULL', [${seconds}]);
        echo json_encode(true);
      `);
    /** Moves every claim's lease `seconds` into the past. */
    const ageClaims = (seconds: number) =>
      whmcs.driver(`
        WHMCS\\Database\\Capsule::connection()->affectingStatement('UPDATE mod_cryptocheckout_orders SET claim_until = claim_until - ? WHERE claim_token IS NOT NULL', [${seconds}]);
        echo json_encode(true);
      `);

    /** Another request (the webhook's run) holds the invoice, as while it books a payment. */
    const holdInvoice = (invoiceId: number) =>
      whmcs.driver(`
        ${AUTOLOAD}
        (new CryptoCheckout\\Whmcs\\Gateway(getGatewayVariables('cryptocheckout')))->kernel()->ledger()->claim('${invoiceId}', 'run', 'webhook', time());
        echo json_encode(true);
      `);

    /**
     * Sends `send()` until it is answered 429 (at most twice the limit): how many were answered
     * before, and the 429. A window that turned over meanwhile (the limit counts per minute) let
     * more through; the count is exact when the first and the last request fell in one minute.
     */
    async function untilLimited(limit: number, send: () => Promise<WhmcsResponse>) {
      const minute = () => Math.floor(Date.now() / 60_000);
      const first = minute();
      let answered = 0;
      for (let sent = 0; sent <= 2 * limit; sent++) {
        const response = await send();
        if (response.status === 429) return { answered, limited: response, oneWindow: minute() === first };
        answered++;
      }
      throw new Error(`no 429 after ${2 * limit + 1} requests`);
    }

    /** An unpaid invoice whose checkout settled on the service while its webhook was lost. */
    async function invoiceSettledWithoutWebhook(
      settings?: Record<string, string>,
    ): Promise<{ invoiceId: number; code: string }> {
      const invoiceId = await install({ settings });
      await loseWebhooks();
      const { code } = await startCheckout(invoiceId);
      await service.pay(code, 'full');
      await waitForStatus(code, 'settled');
      return { invoiceId, code };
    }

    /**
     * An unpaid invoice whose checkout (created with its webhook lost) expired and was given up by
     * the cron; `then` runs while the service's clock is past the expiry.
     */
    async function expiredWithoutWebhook(
      then: (invoiceId: number, code: string) => Promise<void>,
    ): Promise<{ invoiceId: number; code: string }> {
      const invoiceId = await install();
      await loseWebhooks();
      const { code } = await startCheckout(invoiceId);
      await afterExpiry(async () => {
        await waitForStatus(code, 'expired');
        await runCron();
        await then(invoiceId, code);
      });
      return { invoiceId, code };
    }

    /** Pays the checkout in full on the service and waits for its webhook to pay the invoice. */
    async function payInFull(invoiceId: number, code: string): Promise<InvoiceState> {
      await service.pay(code, 'full');
      return waitFor(
        () => invoiceState(invoiceId),
        (s) => s.invoice.status === 'Paid',
        'the webhook to pay the invoice',
      );
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
      const { data } = JSON.parse(response.body) as {
        data: { checkout_url: string; transaction_code: string };
      };
      return { code: data.transaction_code, url: data.checkout_url };
    }

    function postWebhook(body: unknown) {
      return whmcs.request({
        method: 'POST',
        body: typeof body === 'string' ? body : JSON.stringify(body),
        contentType: 'application/json',
      });
    }

    /**
     * A `transaction.settled` body claiming the full quoted amount, whatever has been paid so far:
     * most of these webhooks arrive for checkouts nothing was paid to, and must not be believed.
     */
    const settledWebhookBody = (code: string) =>
      service.settledWebhookBody(code, (tx) => ({ received_usd: tx.amount_in_usd, payout_dispatched: true }));

    const results = (state: InvoiceState) => state.gatewaylog.map((entry) => entry.result);

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
        expect(Object.keys(result.config.displayMode?.Options as object)).toEqual(['redirect', 'modal']);
        expect(result.config.displayMode?.Default).toBe('redirect');
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
        expect(badChecksum.error).toMatch(/^Wallet address \(POLYGON\): .*checksum/i);
        const wrongNetwork = await save({ walletAddress: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' });
        expect(wrongNetwork.error).toMatch(/Wallet address \(POLYGON\): This is a TRON address/);
        const assetOffNetwork = await save({ asset: 'BTC' });
        expect(assetOffNetwork.error).toMatch(/Settlement asset: BTC is not settled on POLYGON/);
        const query = await save({ serviceUrl: `${service.url}/?key=1` });
        expect(query.error).toMatch(/^Service URL: .*without a query string/);
        expect((await save({ serviceUrl: 'ftp://pay.example.com' })).error).toMatch(/^Service URL:/);
        expect((await save({})).saved).toBe(true);
      });

      it('takes a Solana wallet with USDC, USDT or SOL, says where tokens go, and refuses an address that is not one', async () => {
        whmcs.db = `/data/${version}-solana.sqlite`;
        const solanaWallet = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';
        const config = await whmcs.driver<Record<string, Record<string, unknown>>>(`
          harness_load_module();
          echo json_encode(cryptocheckout_config());
        `);
        expect(config.network?.Options).toMatchObject({ SOLANA: 'Solana' });
        expect(config.asset?.Options).toMatchObject({ USDC: 'USDC (recommended)', USDT: 'USDT', SOL: 'SOL' });
        expect(config.walletAddress?.Description).toContain(
          "On Solana, enter your wallet address, not a token account. Tokens go to your wallet's associated token account; the buyer's wallet creates it when missing, as Solana Pay wallets do.",
        );

        const save = (settings: Record<string, string>) =>
          whmcs.driver<{ saved: boolean; error?: string; wallet?: string }>(`
            ${AUTOLOAD}
            $settings = json_decode(${php(JSON.stringify({ ...SETTINGS, ...settings }))}, true);
            $saved = harness_save_gateway($settings);
            echo json_encode($saved + ['wallet' => CryptoCheckout\\Whmcs\\Settings::fromParams($settings)->walletAddress]);
          `);
        for (const asset of ['USDC', 'USDT', 'SOL']) {
          const saved = await save({ network: 'SOLANA', asset, walletAddress: ` ${solanaWallet} ` });
          expect(saved, asset).toMatchObject({ saved: true, wallet: solanaWallet });
        }
        const badCharacter = await save({
          network: 'SOLANA',
          walletAddress: `${solanaWallet.slice(0, -1)}I`,
        });
        expect(badCharacter.saved).toBe(false);
        expect(badCharacter.error).toMatch(
          /^Wallet address \(SOLANA\): The address contains "I", which never appears in a Solana address/,
        );
        const evm = await save({ network: 'SOLANA', walletAddress: WALLET });
        expect(evm.error).toMatch(
          /^Wallet address \(SOLANA\): This is an EVM address .*, but the network is SOLANA\./,
        );
        const onPolygon = await save({ network: 'POLYGON', walletAddress: solanaWallet });
        expect(onPolygon.error).toMatch(
          /^Wallet address \(POLYGON\): This is a Solana address, but the network is POLYGON\./,
        );

        // An invoice of a Solana merchant opens its checkout for the wallet as saved.
        const invoiceId = await install({
          settings: { network: 'SOLANA', asset: 'USDT', walletAddress: solanaWallet },
        });
        const { code } = await startCheckout(invoiceId);
        expect(await service.transaction(code)).toMatchObject({
          wallet_address: solanaWallet,
          wallet_currency: 'USDT',
          wallet_network: 'SOLANA',
        });
      });

      it("puts a Bitcoin wallet to the service on save: an extended key's first receive addresses shown under the wallet field, a key the service refuses not saved", async () => {
        await install();
        const save = (walletAddress: string, serviceUrl = bitcoin.url) =>
          whmcs.driver<{ saved: boolean; error?: string; description: string; wallet: string }>(`
            $settings = json_decode(${php(JSON.stringify({ ...SETTINGS, serviceUrl, network: 'BITCOIN', asset: 'BTC', walletAddress }))}, true);
            $saved = harness_save_gateway($settings);
            $wallet = WHMCS\\Database\\Capsule::table('tblpaymentgateways')->where('gateway', 'cryptocheckout')->where('setting', 'walletAddress')->value('value');
            echo json_encode($saved + ['description' => cryptocheckout_config()['walletAddress']['Description'], 'wallet' => (string) $wallet]);
          `);
        const notice = (result: string, color: string, message: string) =>
          `<br><span class="cryptocheckout-wallet-check" data-result="${result}" style="color:${color}">${message}</span>`;

        const key = await save(BIP84_ZPUB);
        expect(key).toMatchObject({ saved: true, wallet: BIP84_ZPUB });
        expect(key.description).toContain(
          notice(
            'extended_key',
            '#31708f',
            `Crypto Checkout derives a new address for each order from this key (${BIP84_DESCRIPTION}). Check that your wallet shows these as its first receive addresses: ${BIP84_FIRST_ADDRESSES.join(', ')}. If they differ, the key is not the one your wallet receives on.`,
          ),
        );
        expect(key.description).toContain(
          "On Bitcoin, enter an address or, better, your wallet's extended public key: a zpub (recommended), an xpub or ypub, or a descriptor such as wpkh(…), sh(wpkh(…)) or tr(…). Public keys only: the service can never spend from them.",
        );

        const refused = await save(REFUSED_BITCOIN_KEY);
        expect(refused).toMatchObject({
          saved: false,
          error: `Wallet address (BITCOIN): the Crypto Checkout service refuses it: ${REFUSED_BITCOIN_KEY_REASON}`,
          wallet: BIP84_ZPUB,
        });

        const address = await save(BITCOIN_ADDRESS);
        expect(address.saved).toBe(true);
        expect(address.description).toContain(
          notice(
            'address',
            '#31708f',
            'Buyers pay this Bitcoin address exact amounts, with a few satoshis added to each so that every payment is matched to its order. An extended public key (zpub) also takes part payments and top-ups.',
          ),
        );

        // An older service (404) does not stop the save; the field says why no addresses are shown.
        const older = await save(BIP84_ZPUB, `${bitcoin.url}/older`);
        expect(older).toMatchObject({ saved: true, wallet: BIP84_ZPUB });
        expect(older.description).toContain(
          notice(
            'unavailable',
            '#8a6d3b',
            `The first receive addresses of this key could not be shown: the service at ${bitcoin.url}/older does not know this check (HTTP 404): it runs a version from before Bitcoin extended public keys. The key is saved; save the settings again once the service answers, to compare the addresses with your wallet.`,
          ),
        );
      });

      it("reads the service URL by the kernel's rules: blanks and a trailing /api dropped, a path prefix kept", async () => {
        whmcs.db = `/data/${version}-url.sqlite`;
        const read = await whmcs.driver<Array<{ url: string; usable: boolean; wallet: string }>>(`
          ${AUTOLOAD}
          $out = [];
          foreach ([" https://pay.example.com/api/ ", 'https://pay.example.com/cc/api', 'https://pay.example.com/cc/'] as $url) {
            $settings = CryptoCheckout\\Whmcs\\Settings::fromParams(['serviceUrl' => $url, 'walletAddress' => "\\u{00A0}" . strtolower(${php(WALLET)}) . ' ', 'asset' => 'usdc', 'network' => 'polygon']);
            $out[] = ['url' => $settings->serviceUrl, 'usable' => $settings->errors === [], 'wallet' => $settings->walletAddress];
          }
          echo json_encode($out);
        `);
        expect(read).toEqual([
          { url: 'https://pay.example.com', usable: true, wallet: WALLET },
          { url: 'https://pay.example.com/cc', usable: true, wallet: WALLET },
          { url: 'https://pay.example.com/cc', usable: true, wallet: WALLET },
        ]);

        // Saved with /api, as admins often copy it from the service's docs: checkouts still work.
        const invoiceId = await install({ settings: { serviceUrl: `${service.url}/api/` } });
        const { code } = await startCheckout(invoiceId);
        expect(await service.transaction(code)).toMatchObject({ status: 'pending' });
        expect((await ledgerRows())[0]?.service_url).toBe(service.url);
      });

      it('shows the admin what is wrong with settings saved before', async () => {
        await install();
        const description = await whmcs.driver<string>(`
          WHMCS\\Database\\Capsule::table('tblpaymentgateways')->where('gateway', 'cryptocheckout')->where('setting', 'walletAddress')->update(['value' => '0x<script>']);
          harness_load_module();
          echo json_encode(cryptocheckout_config()['walletAddress']['Description']);
        `);
        expect(description).toContain('Wallet address (POLYGON):');
        expect(description).not.toContain('<script>');
      });
    });

    describe('pay button and pay endpoint', () => {
      it('renders the button and the status box without creating a checkout', async () => {
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
        const box = statusBox(html);
        expect(box.status).toEqual({
          state: 'awaiting_payment',
          message: '',
          terminal: true,
          checkout_url: null,
        });
        expect(box.openModal).toBe(false);
        expect(new URL(box.statusUrl).searchParams.get('action')).toBe('status');
        expect(html).not.toContain('cryptocheckout-status__pay');
        expect(await ledgerRows()).toEqual([]);
      });

      it('escapes what it prints, and marks the form for the modal page when so configured', async () => {
        const invoiceId = await install({ settings: { displayMode: 'modal' } });
        const html = await whmcs.driver<string>(`
          harness_load_module();
          echo json_encode(cryptocheckout_link(array_merge(harness_link_params(${invoiceId}), ['langpaynow' => '<img src=x onerror=alert(1)>"'])));
        `);
        expect(html).toContain('data-mode="modal"');
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

      it('prepares one checkout per invoice at a time: a press while another request holds the invoice is refused, a dead one is taken over', async () => {
        const invoiceId = await install();
        const fields = formFields(await viewInvoice(invoiceId));
        // Another request holds the invoice for the whole wait (the clock jumps instead of sleeping).
        const refused = await whmcs.driver<{
          status: number;
          body: { error: { code: string; message: string } };
        }>(`
          ${AUTOLOAD}
          $clock = new class implements CryptoCheckout\\Whmcs\\Vendor\\Client\\Kernel\\Clock {
            private $now;
            public function __construct() { $this->now = time(); }
            public function now(): int { return $this->now; }
            public function sleep(int $microseconds): void { $this->now++; }
          };
          $gateway = new CryptoCheckout\\Whmcs\\Gateway(getGatewayVariables('cryptocheckout'), $clock);
          $gateway->kernel()->ledger()->claim('${invoiceId}', 'open_checkout', '-', time());
          $response = CryptoCheckout\\Whmcs\\PayButton::press($gateway, 'POST', json_decode(${php(JSON.stringify(fields))}, true), 'application/json');
          echo json_encode(['status' => $response->status, 'body' => json_decode($response->body, true)]);
        `);
        expect(refused.status).toBe(409);
        expect(refused.body.error).toMatchObject({
          code: 'busy',
          message: expect.stringMatching(/being prepared in another window/),
        });
        expect(await ledgerRows()).toEqual([]);

        // A claim left by a request that died is taken over after its lease.
        await ageClaims(61);
        const { code } = await startCheckout(invoiceId);
        expect((await ledgerRows()).map((row) => row.transaction_code)).toEqual([code]);
        expect(await claims()).toEqual([]);
      });

      it('creates the checkout on the first press and reuses it on the next', async () => {
        const invoiceId = await install();
        const fields = formFields(await viewInvoice(invoiceId));
        const first = await pressPay(fields);
        expect(first.status, first.body + first.stderr).toBe(303);
        const location = first.headers.location as string;
        expect(location.startsWith(`${service.url}/pay/`)).toBe(true);
        const rows = await ledgerRows();
        expect(rows).toHaveLength(1);
        const code = rows[0]?.transaction_code as string;
        expect(await service.transaction(code)).toMatchObject({
          fiat_amount: 25,
          fiat_currency: 'EUR',
          external_reference: `Invoice #${invoiceId}`,
          wallet_address: WALLET,
          wallet_network: 'POLYGON',
          status: 'pending',
        });
        const second = await pressPay(formFields(await viewInvoice(invoiceId)));
        expect(second.headers.location).toBe(location);
        expect(await ledgerRows()).toHaveLength(1);
        const html = await viewInvoice(invoiceId);
        expect(html).toContain('>Continue payment</button>');
        expect(statusBox(html).status).toMatchObject({
          state: 'awaiting_payment',
          terminal: false,
          checkout_url: location,
        });
        expect(html).toContain(`class="button cryptocheckout-status__pay" href="${location}"`);

        const json = await pressPay(fields, 'application/json');
        expect(JSON.parse(json.body).data).toMatchObject({
          checkout_url: location,
          transaction_code: code,
          mode: 'redirect',
        });
      });

      it("opens no checkout for a settlement the service does not offer: a short sentence for the client, the service's reason in the Gateway Log", async () => {
        // The reference server lists no rail for USDC on BNB Smart Chain, though it offers others:
        // its payment page would offer the client nothing to pay with.
        const invoiceId = await install({ settings: { network: 'BSC' } });
        const response = await pressPay(formFields(await viewInvoice(invoiceId)), 'application/json');
        expect(response.status, response.body + response.stderr).toBe(502);
        expect(JSON.parse(response.body).error).toMatchObject({
          code: 'settlement_unavailable',
          message:
            'Payment in USDC on BNB Smart Chain is not available right now. Please try again later or choose another payment method.',
        });
        expect(await ledgerRows()).toEqual([]);
        const failed = (await invoiceState(invoiceId)).gatewaylog.filter(
          (entry) => entry.result === 'Checkout Failed',
        );
        expect(failed).toHaveLength(1);
        expect(failed[0]?.data).toContain(
          'The service does not offer payment in USDC on BNB Smart Chain for 25.00 EUR: The service lists no payment option for USDC on BNB Smart Chain.',
        );
      });

      it('refuses a tampered or stale button, and invoices that are not Unpaid', async () => {
        const invoiceId = await install();
        const fields = formFields(await viewInvoice(invoiceId));
        const tampered = await pressPay({ ...fields, amount: '1.00' }, 'application/json');
        expect(tampered.status).toBe(403);
        expect(JSON.parse(tampered.body).error).toMatchObject({
          code: 'forbidden',
          message: expect.stringMatching(/out of date/),
        });
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
        expect(JSON.parse(paid.body).error.message).toBe(
          `Invoice #${invoiceId} is Paid; there is nothing to pay.`,
        );
        expect(await ledgerRows()).toEqual([]);
      });

      it('refuses a button rendered before the invoice changed', async () => {
        const invoiceId = await install({ total: '40.00' });
        const fields = formFields(await viewInvoice(invoiceId));
        await whmcs.driver(
          `addInvoicePayment(${invoiceId}, 'bank-2', '10.00', 0, 'banktransfer'); echo json_encode(true);`,
        );
        const response = await pressPay(fields, 'application/json');
        expect(response.status).toBe(409);
        expect(JSON.parse(response.body).error.message).toMatch(/changed/);
      });

      // "Convert To For Processing": the client is charged the converted amount, rounded half up to
      // the currency's decimals (WHMCS hands over two whatever the currency: 17.87 USD × 150 =
      // "2680.50" JPY); the invoice is paid in its own currency, even one the service does not take.
      it.each([
        { invoice: ['25.00', 'EUR'], convertTo: 'USD', charged: ['27.78', 'USD'], booked: '25.00' },
        { invoice: ['5000.00', 'PKR'], convertTo: 'USD', charged: ['17.86', 'USD'], booked: '5000.00' },
        { invoice: ['17.87', 'USD'], convertTo: 'JPY', charged: ['2681', 'JPY'], booked: '17.87' },
      ])('honours "Convert To For Processing": $invoice.1 invoice charged in $convertTo, paid in $invoice.1', async ({
        invoice: [total, clientCurrency],
        convertTo,
        charged: [amount, currency],
        booked,
      }) => {
        const invoiceId = await install({ clientCurrency, total, convertTo });
        const html = await viewInvoice(invoiceId);
        expect(html).not.toContain('cannot be taken');
        expect(formFields(html)).toMatchObject({
          amount,
          currency,
          base_amount: String(Number(total)),
          base_currency: clientCurrency,
        });
        const { code } = await startCheckout(invoiceId);
        expect(await service.transaction(code)).toMatchObject({
          fiat_amount: Number(amount),
          fiat_currency: currency,
        });
        expect((await ledgerRows())[0]).toMatchObject({
          fiat_currency: currency,
          order_amount: String(Number(total)),
          order_currency: clientCurrency,
        });
        const state = await payInFull(invoiceId, code);
        expect(state.payments).toEqual([
          expect.objectContaining({ transid: code, amountin: booked, gateway: 'cryptocheckout' }),
        ]);
      });

      it('rounds a converted amount WHMCS passes as a float (2680.5 JPY) the same way', async () => {
        const invoiceId = await install({ clientCurrency: 'USD', total: '17.87', convertTo: 'JPY' });
        const html = await whmcs.driver<string>(`
          harness_load_module();
          $params = harness_link_params(${invoiceId});
          $params['amount'] = 2680.5;
          echo json_encode(cryptocheckout_link($params));
        `);
        expect(formFields(html)).toMatchObject({ amount: '2681', currency: 'JPY', base_amount: '17.87' });
      });

      it('shows the client the invoice number they know on the payment page', async () => {
        const invoiceId = await install();
        await whmcs.driver(
          `WHMCS\\Database\\Capsule::table('tblinvoices')->where('id', ${invoiceId})->update(['invoicenum' => '2026-0042']); echo json_encode(true);`,
        );
        const { code } = await startCheckout(invoiceId);
        expect(await service.transaction(code)).toMatchObject({ external_reference: 'Invoice #2026-0042' });
      });

      it('pays the invoice instead of opening a second checkout when the expired one was paid at the service (webhook lost)', async () => {
        const { invoiceId, code } = await expiredWithoutWebhook(async (invoice, expired) => {
          expect((await ledgerRows())[0]).toMatchObject({
            applied_action: 'cancel_expired',
            recorded_state: 'cancelled',
          });
          const fields = formFields(await viewInvoice(invoice));
          // The client pays the old checkout after all; its webhook never arrives.
          await service.pay(expired, 'full');
          await waitForStatus(expired, 'settled');
          const pressed = await pressPay(fields, 'application/json');
          expect(pressed.status, pressed.body + pressed.stderr).toBe(200);
          expect(JSON.parse(pressed.body)).toEqual({
            status: 'success',
            data: {
              invoice_url: expect.stringMatching(new RegExp(`/viewinvoice\\.php\\?id=${invoice}$`)),
              paid: true,
            },
          });
        });
        const state = await invoiceState(invoiceId);
        expect(state.invoice.status).toBe('Paid');
        expect(state.payments).toEqual([expect.objectContaining({ transid: code, amountin: '25.00' })]);
        expect(await ledgerRows()).toHaveLength(1);
      });
    });

    describe('webhook', () => {
      it('pays the invoice once from the verified lookup, however often the webhook comes', async () => {
        const invoiceId = await install();
        const { code } = await startCheckout(invoiceId);
        const fields = formFields(await viewInvoice(invoiceId));
        await service.pay(code, 'full');
        await waitFor(
          () => invoiceState(invoiceId),
          (s) => s.invoice.status === 'Paid',
          'the webhook',
        );
        const body = await settledWebhookBody(code);
        const replays = await Promise.all([postWebhook(body), postWebhook(body), postWebhook(body)]);
        for (const replay of replays) {
          expect(replay.status, replay.body + replay.stderr).toBe(200);
          expect(JSON.parse(replay.body)).toEqual({ status: 'success', data: { result: 'unchanged' } });
        }
        await runCron();
        const state = await invoiceState(invoiceId);
        expect(state.payments).toHaveLength(1);
        expect(state.payments[0]).toMatchObject({ transid: code, amountin: '25.00' });
        expect(results(state).filter((result) => result === 'Success')).toHaveLength(1);
        // The payment's Gateway Log entry carries the rate the checkout locked; no other entry does.
        const line = expectedPriceLine(await service.transaction(code));
        expect(
          state.gatewaylog
            .filter((entry) => entry.data.includes('Priced'))
            .map((entry) => [
              entry.result,
              entry.data.split('\n').filter((row) => row.startsWith('price => ')),
            ]),
        ).toEqual([['Success', [`price => ${line}`]]]);
        expect((await ledgerRows())[0]).toMatchObject({
          recorded_state: 'paid',
          resolution: 'booked',
          applied_action: 'mark_paid',
        });
        // The paid invoice offers no button; one rendered before is refused.
        expect(formFields(await viewInvoice(invoiceId))).toEqual({});
        const again = await pressPay(fields, 'application/json');
        expect(again.status).toBe(409);
      });

      it('ignores forged and malformed callbacks, in the service envelope', async () => {
        const invoiceId = await install();
        const { code } = await startCheckout(invoiceId);
        const forged = await postWebhook({ ...(await settledWebhookBody(code)), received_usd: 1000 });
        expect(forged.status).toBe(200);
        expect(JSON.parse(forged.body)).toEqual({ status: 'success', data: { result: 'unchanged' } });
        const unknown = await postWebhook({
          ...(await settledWebhookBody(code)),
          transaction_code: '3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f',
        });
        expect(unknown.status).toBe(200);
        expect(JSON.parse(unknown.body)).toEqual({ status: 'success', data: { result: 'ignored' } });
        const malformed = await postWebhook('{"event":"transaction.settled"');
        expect(malformed.status).toBe(400);
        expect(JSON.parse(malformed.body)).toMatchObject({
          status: 'error',
          error: { code: 'invalid_request' },
        });
        const get = await whmcs.request({ method: 'GET' });
        expect(get.status).toBe(405);
        expect(get.headers.allow).toBe('POST');
        const state = await invoiceState(invoiceId);
        expect(state.invoice.status).toBe('Unpaid');
        expect(state.payments).toEqual([]);
        expect(state.gatewaylog.map((entry) => [entry.result, entry.data.split('\n')[0]])).toEqual([
          ['Warning', 'message => Webhook for a transaction no order of this shop holds; ignored.'],
          ['Warning', expect.stringMatching(/^message => Webhook refused: /)],
        ]);
      });

      it('answers 503 when the service cannot be asked, and records the attempt', async () => {
        const invoiceId = await install();
        const { code } = await startCheckout(invoiceId);
        await whmcs.driver(`
          WHMCS\\Database\\Capsule::connection()->affectingStatement("UPDATE mod_cryptocheckout_checkouts SET service_url = 'http://127.0.0.1:9', checked_at = NULL");
          echo json_encode(true);
        `);
        const response = await postWebhook(await settledWebhookBody(code));
        expect(response.status).toBe(503);
        expect(JSON.parse(response.body)).toMatchObject({ status: 'error', error: { code: 'unavailable' } });
        expect((await ledgerRows())[0]?.checked_at).not.toBeNull();
        const state = await invoiceState(invoiceId);
        expect(state.payments).toEqual([]);
        expect(
          state.gatewaylog.some((entry) => entry.data.includes('Looking up the transaction failed')),
        ).toBe(true);
      });

      it('logs a webhook whose lookup does not match the invoice as an error in the Gateway Log', async () => {
        const invoiceId = await install();
        await loseWebhooks();
        const { code } = await startCheckout(invoiceId);
        await service.pay(code, 'full');
        await waitForStatus(code, 'settled');
        // What the ledger holds for the checkout no longer matches the service's record.
        await whmcs.driver(`
          WHMCS\\Database\\Capsule::connection()->affectingStatement("UPDATE mod_cryptocheckout_checkouts SET fiat_amount = '99.00'");
          echo json_encode(true);
        `);
        const response = await postWebhook(await settledWebhookBody(code));
        expect(response.status).toBe(200);
        const state = await invoiceState(invoiceId);
        expect(state.invoice.status).toBe('Unpaid');
        expect(state.payments).toEqual([]);
        const errors = state.gatewaylog.filter((entry) => entry.result === 'Error');
        expect(errors).toHaveLength(1);
        expect(errors[0]?.data).toMatch(
          /^message => Crypto Checkout: ignored a transaction whose amount does not match this order\.\n/,
        );
        expect(errors[0]?.data).toContain('action => reject_mismatch');
        expect(state.notes.map((note) => note.note)).toEqual([expect.stringContaining('does not match')]);
      });

      it('throttles webhooks per client IP: 429 with Retry-After once 60 came in a minute', async () => {
        await install();
        const webhook = (clientIp: string) =>
          whmcs.request({ method: 'POST', body: '{}', contentType: 'application/json', clientIp });
        const { answered, limited, oneWindow } = await untilLimited(60, () => webhook('203.0.113.7'));
        if (oneWindow) expect(answered).toBe(60);
        else expect(answered).toBeGreaterThan(60);
        expect(JSON.parse(limited.body)).toMatchObject({ status: 'error', error: { code: 'rate_limited' } });
        const retryAfter = Number(limited.headers['retry-after']);
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(60);
        // Another client is not held back.
        expect((await webhook('203.0.113.8')).status).toBe(400);
      });

      it("runs WHMCS's checkCbInvoiceID for the invoice of a known code", async () => {
        const invoiceId = await install();
        const { code } = await startCheckout(invoiceId);
        await whmcs.driver(
          `WHMCS\\Database\\Capsule::table('tblinvoices')->where('id', ${invoiceId})->delete(); echo json_encode(true);`,
        );
        const response = await postWebhook(await settledWebhookBody(code));
        expect(response.status).toBe(200);
        expect(response.body).not.toContain('"status"');
        const log = await whmcs.driver<Array<{ result: string }>>(
          `echo json_encode(WHMCS\\Database\\Capsule::table('tblgatewaylog')->get()->all());`,
        );
        expect(log.map((entry) => entry.result)).toEqual(['Invoice ID Not Found']);
      });
    });

    describe('claims, failures and crashes', () => {
      it("claims an invoice through the module's database atomically, and a held claim keeps the cron away", async () => {
        const { invoiceId } = await invoiceSettledWithoutWebhook();
        const claimed = await whmcs.driver<unknown[]>(`
          ${AUTOLOAD}
          $ledger = (new CryptoCheckout\\Whmcs\\Gateway(getGatewayVariables('cryptocheckout')))->kernel()->ledger();
          $first = $ledger->claim('77', 'run', 'x', time());
          $second = $ledger->claim('77', 'run', 'x', time());
          $held = $ledger->isClaimed('77', time());
          $ledger->release($first);
          $third = $ledger->claim('77', 'run', 'x', time());
          $ledger->release($third);
          echo json_encode([$first !== null, $second, $held, $third !== null, $ledger->isClaimed('77', time())]);
        `);
        expect(claimed).toEqual([true, null, true, true, false]);

        await whmcs.driver(`
          ${AUTOLOAD}
          (new CryptoCheckout\\Whmcs\\Gateway(getGatewayVariables('cryptocheckout')))->kernel()->ledger()->claim('${invoiceId}', 'mark_paid', 'x', time());
          echo json_encode(true);
        `);
        await runCron();
        expect((await invoiceState(invoiceId)).payments).toEqual([]);
        await whmcs.driver(
          `WHMCS\\Database\\Capsule::connection()->affectingStatement('UPDATE mod_cryptocheckout_orders SET claim_token = NULL, claim_until = NULL WHERE order_id = ?', ['${invoiceId}']); echo json_encode(true);`,
        );
        await runCron();
        expect((await invoiceState(invoiceId)).payments).toHaveLength(1);
      });

      it('completes a run that failed right after addInvoicePayment on the next cron, with exactly one payment', async () => {
        const { invoiceId, code } = await invoiceSettledWithoutWebhook();
        // The Gateway Log write that follows the booking fails once.
        await whmcs.driver(
          `harness_fail_once('logTransaction', 'Success'); harness_run_cron(); echo json_encode(true);`,
        );
        let state = await invoiceState(invoiceId);
        expect(state.payments).toEqual([expect.objectContaining({ transid: code, amountin: '25.00' })]);
        expect(state.invoice.status).toBe('Paid');
        expect(await claims()).toEqual([]);

        await ageChecks(61);
        await runCron();
        state = await invoiceState(invoiceId);
        expect(state.invoice.status).toBe('Paid');
        expect(state.payments).toHaveLength(1);
        expect(results(state).filter((result) => result === 'Success')).toHaveLength(1);
        expect((await ledgerRows())[0]).toMatchObject({ resolution: 'booked', applied_action: 'mark_paid' });
        await ageChecks(3600);
        await runCron();
        expect((await invoiceState(invoiceId)).payments).toHaveLength(1);
      });

      it('completes a run whose process died right after addInvoicePayment once its claim has lapsed', async () => {
        const { invoiceId, code } = await invoiceSettledWithoutWebhook();
        await expect(
          whmcs.driver(
            `harness_fail_once('addInvoicePayment', ${php(code)}, 'fatal'); harness_run_cron(); echo json_encode(true);`,
          ),
        ).rejects.toThrow(/process died/);
        let state = await invoiceState(invoiceId);
        expect(state.payments).toHaveLength(1);
        expect(await claims()).toEqual([expect.objectContaining({ order_id: String(invoiceId) })]);

        // Within the lease the claim still stands for a live run: the cron leaves the invoice alone.
        await ageChecks(61);
        await runCron();
        expect(await claims()).toHaveLength(1);
        expect((await ledgerRows())[0]?.resolution).toBeNull();

        await ageClaims(61);
        await runCron();
        state = await invoiceState(invoiceId);
        expect(state.invoice.status).toBe('Paid');
        expect(state.payments).toEqual([expect.objectContaining({ transid: code, amountin: '25.00' })]);
        expect(await claims()).toEqual([]);
        expect((await ledgerRows())[0]).toMatchObject({ resolution: 'booked' });
        expect(
          state.gatewaylog.some((entry) => entry.data.includes('Completing the work of an interrupted run')),
        ).toBe(true);
      });
    });

    describe('cron and return visits', () => {
      it('pays the invoice on the cron when the webhook never arrived (from a service that sends no locked rate)', async () => {
        const { invoiceId } = await invoiceSettledWithoutWebhook({ serviceUrl: olderService.url });
        // Give the (lost) webhook time to have arrived, had it been delivered.
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect((await invoiceState(invoiceId)).invoice.status).toBe('Unpaid');
        await runCron();
        const state = await invoiceState(invoiceId);
        expect(state.invoice.status).toBe('Paid');
        expect(state.payments).toHaveLength(1);
        // Booked without a price: the lookup had no rate.
        expect(results(state)).toEqual(['Success']);
        expect(state.gatewaylog[0]?.data).not.toContain('price =>');
        expect(olderService.lookups).toBeGreaterThan(0);
        await ageChecks(3600);
        await runCron();
        expect((await invoiceState(invoiceId)).payments).toHaveLength(1);
      });

      it("selects due checkouts through the module's database in the order of the kernel reference (PollPolicy::select)", async () => {
        await install();
        const picked = await whmcs.driver<{ port: string[][]; reference: string[][] }>(`
          ${AUTOLOAD}
          use CryptoCheckout\\Whmcs\\Vendor\\Client\\Kernel\\PollPolicy;
          use CryptoCheckout\\Whmcs\\Vendor\\Client\\Kernel\\StoredCheckout;
          $ledger = (new CryptoCheckout\\Whmcs\\Gateway(getGatewayVariables('cryptocheckout')))->kernel()->ledger();
          $now = time();
          ${DUE_SCENARIO_PHP}
          $policy = new PollPolicy(7);
          echo json_encode(['port' => $ledger->due($policy, $now), 'reference' => $policy->select($entries, $now)]);
        `);
        expect(picked.port).toHaveLength(7);
        expect(picked.port).toEqual(picked.reference);
      });

      it('serves the status box its BuyerStatus, and checks the checkouts when the client looks at the invoice', async () => {
        const invoiceId = await install();
        const statusUrl = new URL(statusBox(await viewInvoice(invoiceId)).statusUrl);
        const query = Object.fromEntries(statusUrl.searchParams);
        const status = async () => {
          const response = await whmcs.request({ method: 'GET', query });
          expect(response.status, response.body + response.stderr).toBe(200);
          return JSON.parse(response.body) as { status: string; data: BuyerStatus };
        };
        // Before the first checkout the page has nothing to report, and the endpoint says so.
        const before = await whmcs.request({ method: 'GET', query });
        expect(before.status).toBe(404);
        expect(JSON.parse(before.body)).toMatchObject({ status: 'error', error: { code: 'not_found' } });
        const forged = await whmcs.request({
          method: 'GET',
          query: { ...query, invoice: String(invoiceId + 1) },
        });
        expect(forged.status).toBe(403);
        expect(JSON.parse(forged.body)).toMatchObject({
          status: 'error',
          error: { code: 'forbidden', field: 'token' },
        });

        await loseWebhooks();
        const { code, url } = await startCheckout(invoiceId);
        expect((await status()).data).toEqual({
          state: 'awaiting_payment',
          message: 'Waiting for your payment. This page updates by itself.',
          terminal: false,
          checkout_url: url,
        });
        await service.pay(code, 'full');
        await waitForStatus(code, 'settled');
        await ageChecks(10);
        expect((await status()).data).toEqual({
          state: 'paid',
          message: 'Payment received. Thank you!',
          terminal: true,
          checkout_url: null,
        });
        expect((await invoiceState(invoiceId)).payments).toHaveLength(1);
      });

      it('throttles the status box per client IP and invoice: 429 with Retry-After once 30 came in a minute', async () => {
        const invoiceId = await install();
        await startCheckout(invoiceId);
        const query = Object.fromEntries(
          new URL(statusBox(await viewInvoice(invoiceId)).statusUrl).searchParams,
        );
        const ask = (clientIp: string, invoiceQuery = query) =>
          whmcs.request({ method: 'GET', query: invoiceQuery, clientIp });
        const { answered, limited, oneWindow } = await untilLimited(30, () => ask('203.0.113.7'));
        if (oneWindow) expect(answered).toBe(30);
        else expect(answered).toBeGreaterThan(30);
        expect(JSON.parse(limited.body)).toMatchObject({ status: 'error', error: { code: 'rate_limited' } });
        const retryAfter = Number(limited.headers['retry-after']);
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(60);
        // Another client, or the same client's other invoice, is not held back.
        expect((await ask('203.0.113.8')).status).toBe(200);
        const other = await whmcs.driver<number>(`echo json_encode(harness_create_invoice(1, '10.00'));`);
        await startCheckout(other);
        const otherQuery = Object.fromEntries(
          new URL(statusBox(await viewInvoice(other)).statusUrl).searchParams,
        );
        expect((await ask('203.0.113.7', otherQuery)).status).toBe(200);
      });

      it.each([
        ['in time', false],
        ['after the checkout expired', true],
      ] as const)('tells a client who looks while the payment is being booked (%s) that it is confirming, never that the window closed', async (_when, late) => {
        const invoiceId = await install();
        await loseWebhooks();
        const { code } = await startCheckout(invoiceId);
        const query = Object.fromEntries(
          new URL(statusBox(await viewInvoice(invoiceId)).statusUrl).searchParams,
        );
        const look = async () => {
          const response = await whmcs.request({ method: 'GET', query });
          expect(response.status, response.body + response.stderr).toBe(200);
          return (JSON.parse(response.body) as { data: BuyerStatus }).data;
        };
        const confirming = {
          state: 'awaiting_payment',
          message: 'Payment received. Confirming it with the shop; this page updates by itself.',
          terminal: false,
          checkout_url: null,
        };
        const whileBooking = async () => {
          // The webhook's run holds the invoice while it books the payment the service settled.
          await holdInvoice(invoiceId);
          await service.pay(code, 'full');
          await waitForStatus(code, 'settled');
          await ageChecks(10);
          expect(await look()).toEqual(confirming);
          await ageChecks(10);
          const page = await viewInvoice(invoiceId);
          expect(statusBox(page).status).toEqual(confirming);
          // No button to start another payment while this one is confirmed.
          expect(page).not.toContain('<form');
          // The claim ends (the run completed elsewhere or died): the next look books it.
          await ageClaims(61);
          await ageChecks(10);
          expect(await look()).toMatchObject({ state: 'paid', terminal: true });
          expect((await invoiceState(invoiceId)).payments).toEqual([
            expect.objectContaining({ transid: code }),
          ]);
        };
        if (late) {
          await afterExpiry(async () => {
            await waitForStatus(code, 'expired');
            await ageChecks(61);
            await runCron();
            expect(await look()).toMatchObject({
              terminal: true,
              message: expect.stringContaining('window has closed'),
            });
            await whileBooking();
          });
        } else {
          await whileBooking();
        }
      });

      it('marks an invoice Paid again when an admin saved it back to Unpaid after its payment was booked', async () => {
        const invoiceId = await install();
        const { code } = await startCheckout(invoiceId);
        await payInFull(invoiceId, code);
        await whmcs.driver(
          `WHMCS\\Database\\Capsule::table('tblinvoices')->where('id', ${invoiceId})->update(['status' => 'Unpaid']); echo json_encode(true);`,
        );
        await ageChecks(10);
        expect(statusBox(await viewInvoice(invoiceId)).status).toMatchObject({
          state: 'paid',
          terminal: true,
        });
        const state = await invoiceState(invoiceId);
        expect(state.invoice.status).toBe('Paid');
        expect(state.payments).toHaveLength(1);
        expect(results(state)).toEqual(['Success', 'Set Back to Paid']);
        expect(state.notes.map((note) => note.note)).toEqual([expect.stringContaining('set back to paid')]);
      });
    });

    describe('underpaid, expired and late payments', () => {
      it('holds an underpaid invoice unpaid with a note for the admin', async () => {
        const invoiceId = await install();
        const { code } = await startCheckout(invoiceId);
        await service.pay(code, 'partial');
        await waitForStatus(code, 'underpaid');
        await runCron();
        await ageChecks(61);
        await runCron();
        const state = await invoiceState(invoiceId);
        expect(state.invoice.status).toBe('Unpaid');
        expect(state.payments).toEqual([]);
        expect(results(state).filter((result) => result === 'Underpaid')).toHaveLength(1);
        expect(state.notes).toHaveLength(1);
        expect(state.notes[0]?.note).toMatch(
          new RegExp(`^Invoice #${invoiceId}: Crypto Checkout: received .* USD is still due`),
        );
        expect(state.notes[0]?.sticky).toBe('1');
        expect((await ledgerRows())[0]?.recorded_state).toBe('underpaid');
        const whileOpen = await viewInvoice(invoiceId);
        expect(statusBox(whileOpen).status).toMatchObject({ state: 'underpaid', terminal: false });
        expect(whileOpen).toContain('>Continue payment</button>');
        const fields = formFields(whileOpen);

        // The window closes with the partial payment held: no second checkout for the full amount.
        await afterExpiry(async () => {
          await waitForStatus(code, 'expired');
          await ageChecks(61);
          await runCron();
          expect((await ledgerRows()).map((row) => row.recorded_state)).toEqual(['underpaid']);
          // The page offers no button now; one rendered while the window was open is refused.
          const closed = await viewInvoice(invoiceId);
          expect(statusBox(closed).status).toMatchObject({
            state: 'underpaid',
            terminal: true,
            checkout_url: null,
          });
          expect(closed).not.toContain('<form');
          const again = await pressPay(fields, 'application/json');
          expect(again.status).toBe(409);
          // Paid in part while the window was open: never described as late.
          expect(JSON.parse(again.body).error).toEqual({
            code: 'held',
            message:
              'Part of the payment for this order has arrived and its payment window has closed. The shop will contact you to settle the rest.',
          });
          expect(await ledgerRows()).toHaveLength(1);
          expect((await invoiceState(invoiceId)).notes).toHaveLength(1);
        });
      });

      it("books an overpayment at the checkout's rate: WHMCS credits the excess to the client, and the admin gets a note", async () => {
        const invoiceId = await install();
        const { code } = await startCheckout(invoiceId);
        await service.pay(code, 'over');
        const state = await waitFor(
          () => invoiceState(invoiceId),
          (s) => s.invoice.status === 'Paid',
          'the webhook to pay the invoice',
        );
        const tx = await service.transaction(code);
        const cents = (usd: unknown) =>
          BigInt(
            String(usd)
              .replace('.', '')
              .replace(/^0+(?=\d)/, ''),
          );
        const [received, due] = [
          cents(Number(tx.received_usd).toFixed(2)),
          cents(Number(tx.amount_in_usd).toFixed(2)),
        ];
        expect(received > due).toBe(true);
        // 25.00 EUR × received ÷ due, half up, in cents.
        const booked = (2500n * received * 2n + due) / (2n * due);
        const text = (value: bigint) => `${value / 100n}.${String(value % 100n).padStart(2, '0')}`;
        expect(state.payments).toEqual([expect.objectContaining({ transid: code, amountin: text(booked) })]);
        expect(results(state)).toEqual(['Success (overpaid)']);
        const client = await whmcs.driver<{ credit: string }>(
          `echo json_encode(WHMCS\\Database\\Capsule::table('tblclients')->first());`,
        );
        expect(client.credit).toBe(text(booked - 2500n));
        expect(state.notes.map((note) => note.note)).toEqual([
          expect.stringMatching(
            new RegExp(
              `^Invoice #${invoiceId}: .*transaction ${code} paid .* USD where .* USD was due.* ${text(booked - 2500n).replace('.', '\\.')} EUR above the invoice amount to the client's credit balance`,
            ),
          ),
        ]);
      });

      it('pays the invoice on the cron when a checkout it had given up as expired is paid late and the webhook is lost', async () => {
        const { invoiceId, code } = await expiredWithoutWebhook(async (invoice, expired) => {
          expect(results(await invoiceState(invoice))).toEqual(['Expired']);
          await service.pay(expired, 'full');
          await waitForStatus(expired, 'settled');
          await ageChecks(11 * 60);
          await runCron();
        });
        const state = await invoiceState(invoiceId);
        expect(state.invoice.status).toBe('Paid');
        expect(state.payments).toEqual([expect.objectContaining({ transid: code, amountin: '25.00' })]);
        expect(results(state)).toEqual(['Expired', 'Success (late payment)']);
        expect(state.notes.map((note) => note.note)).toEqual([
          expect.stringMatching(
            new RegExp(`^Invoice #${invoiceId}: .*transaction ${code}\\), after the checkout had expired`),
          ),
        ]);
        expect((await ledgerRows())[0]).toMatchObject({ resolution: 'booked', last_status: 'settled' });
      });

      it('never books a payment on an invoice cancelled meanwhile: the admin is asked to review it', async () => {
        const invoiceId = await install();
        const { code } = await startCheckout(invoiceId);
        await whmcs.driver(
          `WHMCS\\Database\\Capsule::table('tblinvoices')->where('id', ${invoiceId})->update(['status' => 'Cancelled']); echo json_encode(true);`,
        );
        await service.pay(code, 'full');
        const state = await waitFor(
          () => invoiceState(invoiceId),
          (s) => results(s).includes('Paid on Cancelled Invoice'),
          'the review note',
        );
        // Paid in time, on an invoice cancelled meanwhile: not a late payment.
        expect(results(state)).toEqual(['Paid on Cancelled Invoice']);
        expect(state.invoice.status).toBe('Cancelled');
        expect(state.payments).toEqual([]);
        expect(state.notes.map((note) => note.note)).toEqual([
          expect.stringContaining('after the order was cancelled'),
        ]);
        expect((await ledgerRows())[0]).toMatchObject({
          recorded_state: 'late_payment_review',
          resolution: 'flagged',
        });
      });

      it('lets a new checkout start after expiry, books a late payment on the old one, and flags a second payment', async () => {
        const invoiceId = await install();
        const { code } = await startCheckout(invoiceId);
        await afterExpiry(async () => {
          await waitForStatus(code, 'expired');
          await runCron();
          await runCron();
          let state = await invoiceState(invoiceId);
          expect(state.invoice.status).toBe('Unpaid');
          expect(results(state)).toEqual(['Expired']);
          expect((await ledgerRows())[0]?.recorded_state).toBe('cancelled');
          expect(statusBox(await viewInvoice(invoiceId)).status).toMatchObject({
            state: 'awaiting_payment',
            terminal: true,
            checkout_url: null,
            message: expect.stringContaining('payment window has closed'),
          });

          const again = await startCheckout(invoiceId);
          expect(again.code).not.toBe(code);
          expect(await ledgerRows()).toHaveLength(2);

          // The client pays the first, expired checkout after all: still unpaid, so it is booked.
          await service.pay(code, 'full');
          state = await waitFor(
            () => invoiceState(invoiceId),
            (s) => s.invoice.status === 'Paid',
            'the late payment',
          );
          expect(state.payments).toEqual([expect.objectContaining({ transid: code, amountin: '25.00' })]);
          expect(results(state)).toContain('Success (late payment)');

          // The second checkout, paid too, is only reported to the admin.
          await service.pay(again.code, 'full');
          state = await waitFor(
            () => invoiceState(invoiceId),
            (s) => results(s).includes('Extra Payment'),
            'the extra payment note',
          );
          expect(state.payments).toHaveLength(1);
          expect(
            state.notes.some((note) => note.note.includes(again.code) && note.note.includes('already paid')),
          ).toBe(true);
          expect((await ledgerRows()).map((row) => [row.resolution, row.applied_action])).toEqual([
            ['booked', 'mark_paid'],
            ['flagged', 'flag_extra_payment'],
          ]);
        });
      });
    });

    describe('upgrade in place from the released schemas', () => {
      /** A checkout made on the service directly, as an earlier version of the module made it. */
      async function serviceCheckout(): Promise<{ code: string; expiresAt: string }> {
        const created = await fetch(`${service.url}/api/checkout`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            fiat_amount: '25.00',
            fiat_currency: 'EUR',
            external_reference: 'whmcs-invoice',
            customer: { wallet_address: WALLET, crypto_currency: 'USDC', crypto_currency_network: 'POLYGON' },
          }),
        });
        const { data } = (await created.json()) as { data: { transaction_code: string; expires_at: string } };
        return { code: data.transaction_code, expiresAt: data.expires_at };
      }

      /** The old tables and the ledger, whole. */
      const tables = () =>
        whmcs.driver<Record<string, unknown[]>>(`
          $out = [];
          foreach (['mod_cryptocheckout_transactions', 'mod_cryptocheckout_settings', 'mod_cryptocheckout_checkouts', 'mod_cryptocheckout_orders', 'mod_cryptocheckout_state'] as $table) {
            $out[$table] = WHMCS\\Database\\Capsule::schema()->hasTable($table) ? WHMCS\\Database\\Capsule::connection()->select('SELECT * FROM ' . $table) : null;
          }
          echo json_encode($out);
        `);

      const OLD_KEY = 'f00d'.repeat(16);

      /**
       * A WHMCS with five invoices whose checkouts release `schema` recorded: A open (pending on
       * the service), B given up as expired by the old module but paid at the service since (its
       * webhook lost), C paid, D underpaid, E paid after the invoice was cancelled (held for review);
       * the old signing key, a claim or lock the old module left, and display mode "embedded".
       */
      async function releasedInstall(schema: 1 | 2) {
        const a = await install();
        const checkouts = {
          a: await serviceCheckout(),
          b: await serviceCheckout(),
          c: await serviceCheckout(),
          d: await serviceCheckout(),
          e: await serviceCheckout(),
        };
        await service.pay(checkouts.b.code, 'full');
        await service.pay(checkouts.c.code, 'full');
        await service.pay(checkouts.d.code, 'partial');
        await service.pay(checkouts.e.code, 'full');
        await waitForStatus(checkouts.d.code, 'underpaid');
        const ids = await whmcs.driver<Record<string, number>>(`
          ${RELEASED_PHP}
          $client = (int) WHMCS\\Database\\Capsule::table('tblinvoices')->where('id', ${a})->value('userid');
          $ids = ['a' => ${a}];
          foreach (['b', 'c', 'd', 'e'] as $name) {
            $ids[$name] = harness_create_invoice($client, '25.00');
          }
          $codes = json_decode(${php(JSON.stringify(checkouts))}, true);
          addInvoicePayment($ids['c'], $codes['c']['code'], '', 0, 'cryptocheckout');
          WHMCS\\Database\\Capsule::table('tblinvoices')->where('id', $ids['e'])->update(['status' => 'Cancelled']);
          WHMCS\\Database\\Capsule::table('tblpaymentgateways')->where('gateway', 'cryptocheckout')->where('setting', 'displayMode')->update(['value' => 'embedded']);
          released_schema(${schema});
          $states = ['a' => 'awaiting_payment', 'b' => 'cancelled', 'c' => 'paid', 'd' => 'underpaid', 'e' => 'late_payment_review'];
          foreach ($states as $name => $state) {
            // Last checked ten minutes ago, as the old module's cron would have.
            $fields = ['checkout_url' => ${php(service.url)} . '/pay/' . $codes[$name]['code'], 'checked_at' => gmdate('Y-m-d H:i:s', time() - 600)];
            if (${schema} === 2) {
              $fields += ['service_url' => ${php(service.url)}, 'received_usd' => $name === 'd' ? '13.89' : null];
            }
            WHMCS\\Database\\Capsule::table('mod_cryptocheckout_transactions')->insert(released_row(${schema}, $ids[$name], $codes[$name]['code'], $state, strtotime($codes[$name]['expiresAt']), $fields));
          }
          WHMCS\\Database\\Capsule::table('mod_cryptocheckout_settings')->insert(['setting' => 'signing_key', 'value' => ${php(OLD_KEY)}]);
          WHMCS\\Database\\Capsule::table('mod_cryptocheckout_settings')->insert(['setting' => ${schema === 1 ? `'lock:pay:' . $ids['a']` : `'claim:' . $ids['a']`}, 'value' => '1']);
          echo json_encode($ids);
        `);
        return {
          ids,
          codes: Object.fromEntries(Object.entries(checkouts).map(([name, c]) => [name, c.code])),
        };
      }

      it.each([
        1, 2,
      ] as const)('moves every checkout of a schema %i install into the ledger on first use: open ones still watched, paid ones paid, the signing key and display mode kept, the old tables untouched; a second run changes nothing', async (schema) => {
        const { ids, codes } = await releasedInstall(schema);
        const before = await tables();
        // A pay button the old module rendered for invoice A, signed with its key.
        const oldButton = await whmcs.driver<FormFields>(`
            $fields = ['invoiceid' => '${ids.a}', 'amount' => '25.00', 'currency' => 'EUR', 'base_amount' => '25', 'base_currency' => 'EUR', 'issued' => (string) time()];
            echo json_encode($fields + ['token' => hash_hmac('sha256', "pay\\n" . implode("\\n", $fields), ${php(OLD_KEY)})]);
          `);

        // The first use after the upgrade is whatever request comes first: here the cron.
        await runCron();
        const after = await tables();
        expect(after.mod_cryptocheckout_transactions).toEqual(before.mod_cryptocheckout_transactions);
        expect(after.mod_cryptocheckout_settings).toEqual(before.mod_cryptocheckout_settings);
        const rows = await ledgerRows();
        expect(
          rows.map((row) => [row.order_id, row.transaction_code, row.order_amount, row.order_currency]),
        ).toEqual(['a', 'b', 'c', 'd', 'e'].map((name) => [String(ids[name]), codes[name], '25.00', 'EUR']));
        expect(rows.map((row) => [row.applied_action, row.resolution, row.recorded_state])).toEqual([
          [null, null, null],
          // Paid at the service since the old module gave it up: booked by this first poll.
          ['mark_paid', 'booked', 'paid'],
          ['mark_paid', 'booked', 'paid'],
          ['hold_underpaid', null, 'underpaid'],
          ['hold_late_payment', 'flagged', 'late_payment_review'],
        ]);
        // Every open checkout is watched through its late window.
        for (const row of [rows[0], rows[3]]) {
          expect(Number(row?.watch_until)).toBeGreaterThan(Date.now() / 1000 + 24 * 3600);
        }
        const paid = await invoiceState(ids.b as number);
        expect(paid.invoice.status).toBe('Paid');
        expect(paid.payments).toEqual([expect.objectContaining({ transid: codes.b, amountin: '25.00' })]);
        expect(results(paid)).toEqual(['Upgraded', 'Success']);
        expect(paid.gatewaylog[0]?.data).toBe(
          'message => Moved 5 checkouts from mod_cryptocheckout_transactions into the Crypto Checkout ledger; the old tables are kept as they were.',
        );
        expect((await invoiceState(ids.c as number)).payments).toHaveLength(1);
        expect(statusBox(await viewInvoice(ids.d as number)).status).toMatchObject({
          state: 'underpaid',
          terminal: false,
        });
        expect(
          await whmcs.driver(
            `echo json_encode(WHMCS\\Database\\Capsule::table('tblpaymentgateways')->where('gateway', 'cryptocheckout')->where('setting', 'displayMode')->value('value'));`,
          ),
        ).toBe('modal');

        // The button rendered before the upgrade still verifies, and continues the same checkout.
        const pressed = await pressPay(oldButton, 'application/json');
        expect(pressed.status, pressed.body + pressed.stderr).toBe(200);
        expect(JSON.parse(pressed.body).data).toMatchObject({ transaction_code: codes.a, mode: 'modal' });

        // Run again from the start (the marker removed): nothing is added or changed.
        const ledger = await tables();
        await whmcs.driver(`
            ${AUTOLOAD}
            WHMCS\\Database\\Capsule::connection()->affectingStatement("DELETE FROM mod_cryptocheckout_state WHERE state_key = 'whmcs_upgraded_at'");
            (new CryptoCheckout\\Whmcs\\Gateway(getGatewayVariables('cryptocheckout')))->kernel();
            echo json_encode(true);
          `);
        const again = await tables();
        for (const table of [
          'mod_cryptocheckout_transactions',
          'mod_cryptocheckout_settings',
          'mod_cryptocheckout_checkouts',
          'mod_cryptocheckout_orders',
        ]) {
          expect(again[table], table).toEqual(ledger[table]);
        }
        expect(
          results(await invoiceState(ids.a as number)).filter((result) => result === 'Upgraded'),
        ).toHaveLength(1);
      });

      it('imports a checkout the released version wrote after the upgrade (a request still on its files) when its webhook comes, and books its payment', async () => {
        const { ids } = await releasedInstall(2);
        await runCron();
        const late = await serviceCheckout();
        const invoice = await whmcs.driver<number>(`
          ${RELEASED_PHP}
          $client = (int) WHMCS\\Database\\Capsule::table('tblinvoices')->where('id', ${ids.a})->value('userid');
          $invoice = harness_create_invoice($client, '25.00');
          WHMCS\\Database\\Capsule::table('mod_cryptocheckout_transactions')->insert(released_row(2, $invoice, ${php(late.code)}, 'awaiting_payment', strtotime(${php(late.expiresAt)}), ['service_url' => ${php(service.url)}, 'checkout_url' => ${php(service.url)} . '/pay/' . ${php(late.code)}, 'checked_at' => gmdate('Y-m-d H:i:s', time() - 60)]));
          echo json_encode($invoice);
        `);
        expect((await ledgerRows()).map((row) => row.transaction_code)).not.toContain(late.code);
        await service.pay(late.code, 'full');
        const response = await postWebhook(await settledWebhookBody(late.code));
        expect(response.status, response.body + response.stderr).toBe(200);
        const paid = await invoiceState(invoice);
        expect(JSON.parse(response.body).data).toEqual({ result: 'applied' });
        expect(paid.invoice.status).toBe('Paid');
        expect(paid.payments).toEqual([expect.objectContaining({ transid: late.code, amountin: '25.00' })]);
        expect((await ledgerRows()).filter((row) => row.transaction_code === late.code)).toEqual([
          expect.objectContaining({ order_id: String(invoice), resolution: 'booked' }),
        ]);
      });

      it('leaves the old tables as they were when the first use fails, says so, and completes on the next request', async () => {
        const { ids, codes } = await releasedInstall(2);
        const before = await tables();
        const failed = await whmcs.driver<string>(`
          harness_before_sql('INSERT IGNORE INTO mod_cryptocheckout_checkouts', function () {
            throw new PDOException('SQLSTATE[HY000]: General error: 5 database is locked');
          });
          echo json_encode(harness_view_invoice(${ids.a}));
        `);
        expect(failed).toContain('Crypto payments are not available right now.');
        const after = await tables();
        expect(after.mod_cryptocheckout_transactions).toEqual(before.mod_cryptocheckout_transactions);
        expect(after.mod_cryptocheckout_settings).toEqual(before.mod_cryptocheckout_settings);
        expect(after.mod_cryptocheckout_state).not.toContainEqual(
          expect.objectContaining({ state_key: 'whmcs_upgraded_at' }),
        );
        const log = (await invoiceState(ids.a as number)).gatewaylog;
        expect(log.map((entry) => entry.result)).toEqual(['Error']);
        expect(log[0]?.data).toBe(
          "message => Moving the module's records into the Crypto Checkout ledger failed: SQLSTATE[HY000]: General error: 5 database is locked. The tables mod_cryptocheckout_transactions and mod_cryptocheckout_settings are left as they were; the next request tries again.",
        );
        // Meanwhile a webhook is answered 503 (the service's retries and the poll try again).
        const webhook = await whmcs.request({
          method: 'POST',
          body: JSON.stringify(await settledWebhookBody(codes.b as string)),
          contentType: 'application/json',
          failSql: 'INSERT IGNORE INTO mod_cryptocheckout_checkouts',
        });
        expect(webhook.status).toBe(503);
        expect(JSON.parse(webhook.body)).toMatchObject({ status: 'error', error: { code: 'unavailable' } });

        await runCron();
        expect((await ledgerRows()).map((row) => row.transaction_code)).toEqual(
          ['a', 'b', 'c', 'd', 'e'].map((name) => codes[name]),
        );
        expect((await invoiceState(ids.b as number)).invoice.status).toBe('Paid');
      });

      it('lets another request run the whole first use at the same moment: every checkout once, one key', async () => {
        const { codes } = await releasedInstall(1);
        const keys = await whmcs.driver<string[]>(`
          ${AUTOLOAD}
          $other = null;
          harness_before_sql('CREATE TABLE IF NOT EXISTS mod_cryptocheckout_orders', function () use (&$other) {
            // The other request runs the whole first use while this one is creating the tables.
            $other = (new CryptoCheckout\\Whmcs\\Gateway(getGatewayVariables('cryptocheckout')))->sign('status', ['1']);
          });
          $mine = (new CryptoCheckout\\Whmcs\\Gateway(getGatewayVariables('cryptocheckout')))->sign('status', ['1']);
          echo json_encode([$other, $mine, hash_hmac('sha256', "status\\n1", ${php(OLD_KEY)})]);
        `);
        expect(new Set(keys).size).toBe(1);
        expect((await ledgerRows()).map((row) => row.transaction_code)).toEqual(
          ['a', 'b', 'c', 'd', 'e'].map((name) => codes[name]),
        );
      });
    });
  });
}
