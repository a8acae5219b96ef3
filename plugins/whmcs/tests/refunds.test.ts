import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  closedLoopbackUrl,
  EVENT_DEADLINE_MS,
  PHP_VERSIONS,
  type SandboxService,
  startSandboxService,
} from '@cryptocheckout/php-testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootWhmcs, php, startBridge, type Whmcs } from './harness/harness.js';

// Refunds from WHMCS's own refund action, in real PHP against the WHMCS harness and the real
// reference server: the invoice's Refund tab ("Refund through Gateway") calls cryptocheckout_refund,
// which starts the refund through the kernel with the merchant key; the client gets the claim link
// by WHMCS's e-mail, confirms an address on the service's claim page, the sandbox pays the refund,
// and the refund.paid webhook (over HTTP through the bridge) or the cron records the refund
// transaction on the invoice exactly once. The service down, refusing (422) or no merchant key:
// nothing is recorded and the admin reads why.

const OPERATOR_TOKEN = 'operator-token-for-the-whmcs-refund-tests-0123456789';
const WALLET = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
const BUYER = '0x1111111111111111111111111111111111111111';
const AUTOLOAD = "require_once ROOTDIR . '/modules/gateways/cryptocheckout/autoload.php';";

let service: SandboxService;
let merchantKey: string;

beforeAll(async () => {
  service = await startSandboxService({ operatorToken: OPERATOR_TOKEN });
  const response = await fetch(`${service.url}/api/operator/merchant-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ label: 'whmcs.example', wallet_addresses: [WALLET] }),
  });
  const body = (await response.json()) as { data?: { key?: string } };
  if (response.status !== 201) throw new Error(`issuing the merchant key: ${JSON.stringify(body)}`);
  merchantKey = String(body.data?.key);
});

afterAll(async () => {
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

async function serviceCall<T>(path: string, body?: unknown): Promise<{ status: number; data: T }> {
  const response = await fetch(`${service.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const parsed = (await response.json()) as { data: T };
  return { status: response.status, data: parsed.data };
}

interface ServiceRefund {
  refund_id: string;
  status: string;
  reference: string | null;
  amount: string;
  tx_id: string | null;
}

/** The client confirms an address on the claim page, as its form posts without JavaScript. */
async function confirmClaim(claimUrl: string): Promise<void> {
  const post = (fields: Record<string, string>) =>
    fetch(claimUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
      redirect: 'manual',
    });
  const review = await post({ step: 'check', address: BUYER, address_again: BUYER });
  expect(review.status).toBe(200);
  const confirmed = await post({ step: 'confirm', address: BUYER, confirmed: 'yes' });
  expect(confirmed.status).toBe(303);
}

interface Transaction {
  id: string;
  transid: string;
  amountin: string;
  amountout: string;
  refundid: string;
  gateway: string;
  description: string;
}

interface InvoiceState {
  invoice: { status: string; balance: string; invoiceid: string };
  payments: Transaction[];
  emails: Array<{ userid: string; subject: string; message: string; to: string }>;
  gatewaylog: Array<{ result: string; data: string }>;
  notes: Array<{ note: string; sticky: string }>;
  activity: Array<{ description: string }>;
}

interface RefundAnswer {
  result: string;
  infobox: string;
}

const unescapeHtml = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#039;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

for (const version of PHP_VERSIONS) {
  describe(`WHMCS refunds [PHP ${version}]`, () => {
    let whmcs: Whmcs;
    let bridge: { url: string; close(): Promise<void> };
    let dbCount = 0;
    const dataDir = mkdtempSync(join(tmpdir(), `whmcs-refunds-${version}-`));

    beforeAll(async () => {
      whmcs = await bootWhmcs(version, { dataDir });
      bridge = await startBridge(whmcs);
    });

    afterAll(async () => {
      await bridge?.close();
      whmcs?.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    });

    /** A fresh WHMCS with the gateway active (the merchant key set unless told) and one unpaid invoice. */
    async function install(
      options: { key?: string; total?: string; clientCurrency?: string; convertTo?: string } = {},
    ): Promise<number> {
      whmcs.db = `/data/${version}-${++dbCount}.sqlite`;
      const settings = {
        serviceUrl: service.url,
        walletAddress: WALLET,
        asset: 'USDC',
        network: 'POLYGON',
        merchantKey: options.key ?? merchantKey,
      };
      return whmcs.driver<number>(`
        harness_setup(${php(bridge.url)}, ['USD' => '1.00000', 'PKR' => '280.00000']);
        $settings = json_decode(${php(JSON.stringify(settings))}, true);
        ${options.convertTo ? `$settings['convertto'] = (string) harness_currency_id(${php(options.convertTo)});` : ''}
        $saved = harness_save_gateway($settings);
        if (!$saved['saved']) { throw new RuntimeException($saved['error']); }
        echo json_encode(harness_create_invoice(harness_create_client(${php(options.clientCurrency ?? 'USD')}), ${php(options.total ?? '25.00')}));
      `);
    }

    const invoiceState = (invoiceId: number) =>
      whmcs.driver<InvoiceState>(`echo json_encode(harness_invoice_state(${invoiceId}));`);
    const refundRows = () =>
      whmcs.driver<Array<Record<string, string | number | null>>>(`
        $schema = WHMCS\\Database\\Capsule::schema();
        echo json_encode($schema->hasTable('mod_cryptocheckout_refunds') ? WHMCS\\Database\\Capsule::connection()->select('SELECT * FROM mod_cryptocheckout_refunds ORDER BY created_at') : []);
      `);
    const adminPage = (invoiceId: number) =>
      whmcs.driver<string>(`echo json_encode(harness_admin_invoice(${invoiceId}));`);
    const runCron = () => whmcs.driver(`harness_run_cron(); echo json_encode(true);`);
    const refund = (paymentId: string, amount: string) =>
      whmcs.driver<RefundAnswer>(
        `echo json_encode(harness_refund_payment(${Number(paymentId)}, ${php(amount)}));`,
      );
    /** Moves every recorded check `seconds` into the past, as if that much time had gone by. */
    const age = (seconds: number) =>
      whmcs.driver(`
        $db = WHMCS\\Database\\Capsule::connection();
        $db->affectingStatement('UPDATE mod_cryptocheckout_checkouts SET checked_at = checked_at - ? WHERE checked_at IS NOT NULL', [${seconds}]);
        $db->affectingStatement('UPDATE mod_cryptocheckout_refunds SET checked_at = checked_at - ? WHERE checked_at IS NOT NULL', [${seconds}]);
        echo json_encode(true);
      `);
    /** Checkouts created from now on send their webhooks (settled, refund.paid) where nothing listens. */
    const loseWebhooks = () =>
      whmcs.driver(`
        WHMCS\\Database\\Capsule::table('tblconfiguration')->where('setting', 'SystemURL')->update(['value' => 'http://127.0.0.1:9/']);
        echo json_encode(true);
      `);
    const refundTransactions = (state: InvoiceState) =>
      state.payments.filter((payment) => Number(payment.amountout) > 0);

    /** Presses Pay Now, pays the checkout in full on the service and waits until the invoice is Paid (webhook, else cron). */
    async function payInvoice(invoiceId: number): Promise<{ code: string; paymentId: string }> {
      const html = await whmcs.driver<string>(`echo json_encode(harness_view_invoice(${invoiceId}));`);
      const fields = Object.fromEntries(
        [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((match) => [
          match[1] as string,
          unescapeHtml(match[2] as string),
        ]),
      );
      const pressed = await whmcs.request({
        method: 'POST',
        query: { action: 'pay' },
        body: new URLSearchParams(fields).toString(),
        contentType: 'application/x-www-form-urlencoded',
        accept: 'application/json',
      });
      expect(pressed.status, pressed.body + pressed.stderr).toBe(200);
      const code = (JSON.parse(pressed.body) as { data: { transaction_code: string } }).data.transaction_code;
      await service.pay(code, 'full');
      const state = await waitFor(
        async () => {
          const current = await invoiceState(invoiceId);
          if (current.invoice.status !== 'Paid') await runCron();
          return current;
        },
        (s) => s.invoice.status === 'Paid',
        'the invoice to be paid',
      );
      // A later poll confirms the booking, so the checkouts are quiet while refunds are checked.
      await age(120);
      await runCron();
      return { code, paymentId: String(state.payments[0]?.id) };
    }

    /** The refund of the latest request: the claim link from the client's e-mail, the service's refund. */
    async function requested(invoiceId: number): Promise<{ claimUrl: string; refundId: string }> {
      const state = await invoiceState(invoiceId);
      const mail = state.emails.at(-1);
      const claimUrl = unescapeHtml(/<a href="([^"]+)">/.exec(mail?.message ?? '')?.[1] ?? '');
      const rows = await refundRows();
      return { claimUrl, refundId: String(rows.at(-1)?.refund_id) };
    }

    /** The client confirms, a cron sees it, the merchant's wallet pays (sandbox). */
    async function confirmAndPay(claimUrl: string, refundId: string): Promise<ServiceRefund> {
      await confirmClaim(claimUrl);
      await age(15 * 60);
      await runCron();
      const paid = await serviceCall<ServiceRefund>('/api/sandbox/refunds/pay', { refund_id: refundId });
      expect(paid.status).toBe(200);
      expect(paid.data.status).toBe('paid');
      return paid.data;
    }

    describe('settings', () => {
      it('has a password field for the merchant key and refuses a key with a blank inside', async () => {
        await install();
        const result = await whmcs.driver<{
          field: Record<string, string>;
          save: { saved: boolean; error?: string };
        }>(`
          harness_load_module();
          $field = cryptocheckout_config()['merchantKey'];
          $save = harness_save_gateway(['serviceUrl' => ${php(service.url)}, 'walletAddress' => ${php(WALLET)}, 'merchantKey' => 'ccm_abc def']);
          echo json_encode(['field' => $field, 'save' => $save]);
        `);
        expect(result.field).toMatchObject({ FriendlyName: 'Merchant key', Type: 'password' });
        expect(result.save).toEqual({
          saved: false,
          error: expect.stringMatching(/^Merchant key: it must be one word without spaces/),
        });
      });
    });

    describe('a refund from the Refund tab', () => {
      it('emails the claim link, records nothing until paid, then records the refund transaction once from the webhook', async () => {
        const invoiceId = await install();
        const { code, paymentId } = await payInvoice(invoiceId);

        const answer = await refund(paymentId, '10.00');
        // Not "success": WHMCS would record a refund transaction for money still in the wallet.
        expect(answer).toEqual({ result: 'declined', infobox: 'Refund Failed' });
        let state = await invoiceState(invoiceId);
        expect(refundTransactions(state)).toEqual([]);
        expect(state.invoice.status).toBe('Paid');
        const logged = state.gatewaylog.at(-1);
        expect(logged?.result).toBe('Refund Declined');
        expect(logged?.data).toMatch(
          /^result => Refund requested, not paid yet: Refund of 10 USDC requested; the buyer was sent the claim link\. WHMCS records the refund transaction once it is paid\.\n/,
        );
        expect(logged?.data).toContain(`reference => whmcs-invoice-${invoiceId}-refund-1`);
        expect(logged?.data).toContain('claim_link_emailed => yes');

        // The client's e-mail, sent by WHMCS, carries the claim link.
        expect(state.emails).toHaveLength(1);
        expect(state.emails[0]).toMatchObject({
          to: 'ada@example.com',
          subject: `Your refund for invoice #${invoiceId}`,
        });
        expect(state.emails[0]?.message).toContain('10 USDC on Polygon PoS');
        const { claimUrl, refundId } = await requested(invoiceId);
        expect(claimUrl).toMatch(new RegExp(`^${service.url}/refund/[A-Za-z0-9_-]{43}$`));
        const atService = await serviceCall<ServiceRefund>(`/api/refund?refund_id=${refundId}`);
        expect(atService.data).toMatchObject({
          status: 'awaiting_address',
          reference: `whmcs-invoice-${invoiceId}-refund-1`,
          amount: '10',
        });
        expect(state.notes.map((note) => note.note)).toContain(
          `Invoice #${invoiceId}: Crypto Checkout: Refund of 10 USDC requested; the buyer was sent the claim link.`,
        );
        let page = await adminPage(invoiceId);
        expect(page).toContain('Refund 10 USDC: waiting for the buyer&apos;s address');
        expect(page).toContain('Last refund request (');
        expect(page).toContain('Refund requested, not paid yet: Refund of 10 USDC requested');

        const paid = await confirmAndPay(claimUrl, refundId);
        // The cron saw the confirmed address before the payment: the admin was told what to send.
        state = await invoiceState(invoiceId);
        const confirmedNote = state.notes.find((note) =>
          note.note.includes('The buyer confirmed the address'),
        );
        expect(confirmedNote?.note).toMatch(/send 10 USDC on Polygon PoS to 0x1111/);
        expect(Number(confirmedNote?.sticky)).toBe(1);

        // The service's refund.paid webhook reaches the callback file through the bridge.
        state = await waitFor(
          () => invoiceState(invoiceId),
          (s) => refundTransactions(s).length > 0,
          'the refund.paid webhook to record the refund',
        );
        const [recorded] = refundTransactions(state);
        expect(String(recorded?.refundid)).toBe(paymentId);
        expect(recorded).toMatchObject({
          transid: paid.tx_id,
          amountout: '10.00',
          amountin: '0.00',
          gateway: 'cryptocheckout',
          description: `Refund of Transaction ID ${code} (Crypto Checkout refund ${refundId}: 10 USDC)`,
        });
        // A partial refund: the invoice stays Paid, as with WHMCS's own refunds.
        expect(state.invoice.status).toBe('Paid');
        expect(state.gatewaylog.map((entry) => entry.result)).toContain('Refund Recorded');
        expect(state.notes.at(-1)?.note).toMatch(
          new RegExp(
            `^Invoice #${invoiceId}: Crypto Checkout: the refund of 10 USDC was paid \\(transaction .+\\) and is recorded on the invoice as a refund of 10\\.00 USD\\.$`,
          ),
        );
        expect(state.activity.map((entry) => entry.description)).toContain(
          `Refunded Invoice Payment - Invoice ID: ${invoiceId} - Transaction ID: ${paymentId}`,
        );
        page = await adminPage(invoiceId);
        expect(page).toContain('Refund 10 USDC: paid');
        expect(page).toContain(`Paid — ${paid.tx_id}`);

        // The cron and the webhook again: still one refund transaction.
        await age(3600);
        await runCron();
        const replay = await whmcs.request({
          method: 'POST',
          body: JSON.stringify({
            event: 'refund.paid',
            refund_id: refundId,
            transaction_code: code,
            external_reference: `Invoice #${invoiceId}`,
            reference: `whmcs-invoice-${invoiceId}-refund-1`,
            amount: '10',
            asset: 'USDC',
            network: 'POLYGON',
            address: BUYER,
            tx_id: paid.tx_id,
            timestamp: Math.floor(Date.now() / 1000),
          }),
          contentType: 'application/json',
        });
        expect(replay.status, replay.body + replay.stderr).toBe(200);
        expect(JSON.parse(replay.body)).toEqual({ status: 'success', data: { result: 'unchanged' } });
        expect(refundTransactions(await invoiceState(invoiceId))).toHaveLength(1);
        expect((await refundRows())[0]).toMatchObject({ status: 'paid', recorded_at: expect.anything() });
      });

      it('records the refund on the cron when the webhook is lost, once however the webhook and the cron interleave, and marks a full refund Refunded', async () => {
        const invoiceId = await install();
        await loseWebhooks();
        const { code, paymentId } = await payInvoice(invoiceId);
        expect((await refund(paymentId, '15.00')).result).toBe('declined');
        const first = await requested(invoiceId);
        expect((await refund(paymentId, '10.00')).result).toBe('declined');
        const second = await requested(invoiceId);
        expect(second.refundId).not.toBe(first.refundId);
        expect((await refundRows()).map((row) => row.platform_refund_id)).toEqual([
          `whmcs-invoice-${invoiceId}-refund-1`,
          `whmcs-invoice-${invoiceId}-refund-2`,
        ]);
        await confirmClaim(first.claimUrl);
        await confirmClaim(second.claimUrl);
        await age(15 * 60);
        await runCron();
        expect((await refundRows()).map((row) => row.status)).toEqual([
          'awaiting_payment',
          'awaiting_payment',
        ]);

        const webhookBody = (refundId: string, txId: string | null) =>
          JSON.stringify({
            event: 'refund.paid',
            refund_id: refundId,
            transaction_code: code,
            external_reference: `Invoice #${invoiceId}`,
            reference: null,
            amount: '1',
            asset: 'USDC',
            network: 'POLYGON',
            address: BUYER,
            tx_id: txId,
            timestamp: 1,
          });
        /** Runs `first` with `interloper` (a whole request) run right before `first` claims the invoice. */
        const interleaved = (first: string, interloper: string) =>
          whmcs.driver<Array<[number, string | null]>>(`
            ${AUTOLOAD}
            $answers = [];
            $webhook = static function (string $body) use (&$answers): void {
                $answer = (new CryptoCheckout\\Whmcs\\Gateway(getGatewayVariables('cryptocheckout')))->answer([], [], ['REQUEST_METHOD' => 'POST', 'REMOTE_ADDR' => '127.0.0.1'], $body);
                $answers[] = [$answer->status, json_decode($answer->body, true)['data']['result'] ?? null];
            };
            harness_before_sql('SET claim_token = ?', static function () use ($webhook): void { ${interloper} });
            ${first}
            echo json_encode($answers);
          `);
        // Nothing arrives by webhook here, so the entry points are made to meet at the worst
        // moment: the cron has looked the paid refund up and is about to claim the invoice when a
        // whole webhook request records it…
        const paidFirst = (
          await serviceCall<ServiceRefund>('/api/sandbox/refunds/pay', { refund_id: first.refundId })
        ).data;
        await age(300);
        expect(
          await interleaved(
            'harness_run_cron();',
            `$webhook(${php(webhookBody(first.refundId, paidFirst.tx_id))});`,
          ),
        ).toEqual([[200, 'recorded']]);
        // …and the webhook has looked the other one up when a whole cron run records it.
        const paidSecond = (
          await serviceCall<ServiceRefund>('/api/sandbox/refunds/pay', { refund_id: second.refundId })
        ).data;
        await age(300);
        expect(
          await interleaved(
            `$webhook(${php(webhookBody(second.refundId, paidSecond.tx_id))});`,
            'harness_run_cron();',
          ),
        ).toEqual([[200, 'unchanged']]);

        const state = await invoiceState(invoiceId);
        expect(
          refundTransactions(state).map((row) => [row.transid, row.amountout, String(row.refundid)]),
        ).toEqual([
          [paidFirst.tx_id, '15.00', paymentId],
          [paidSecond.tx_id, '10.00', paymentId],
        ]);
        // 25.00 paid, 25.00 refunded: WHMCS's own rule marks the invoice Refunded.
        expect(state.invoice.status).toBe('Refunded');
        expect((await refundRows()).map((row) => row.status)).toEqual(['paid', 'paid']);
        await age(3600);
        await runCron();
        expect(refundTransactions(await invoiceState(invoiceId))).toHaveLength(2);
      });

      it('never records a paid refund twice when the run that recorded it failed before it could say so', async () => {
        const invoiceId = await install();
        await loseWebhooks();
        const { paymentId } = await payInvoice(invoiceId);
        await refund(paymentId, '5.00');
        const { claimUrl, refundId } = await requested(invoiceId);
        await confirmAndPay(claimUrl, refundId);
        await age(300);
        const failed = await whmcs.driver<{ message: string }>(`
          harness_before_sql('UPDATE mod_cryptocheckout_refunds SET status', static function (): void {
              throw new PDOException('SQLSTATE[HY000]: General error: 5 database is locked (harness)');
          });
          harness_run_cron();
          echo json_encode(['message' => (string) WHMCS\\Database\\Capsule::table('tblgatewaylog')->where('result', 'Error')->value('data')]);
        `);
        expect(failed.message).toContain("Applying the refund's status failed");
        expect(refundTransactions(await invoiceState(invoiceId))).toHaveLength(1);
        expect((await refundRows())[0]).toMatchObject({ recorded_at: null });
        await runCron();
        expect(refundTransactions(await invoiceState(invoiceId))).toHaveLength(1);
        expect((await refundRows())[0]).toMatchObject({ status: 'paid', recorded_at: expect.anything() });
      });

      it("records the refund in the invoice's currency when the gateway converts for processing", async () => {
        const invoiceId = await install({ clientCurrency: 'PKR', total: '7000.00', convertTo: 'USD' });
        await loseWebhooks();
        const { paymentId } = await payInvoice(invoiceId);
        expect((await invoiceState(invoiceId)).payments[0]).toMatchObject({ amountin: '7000.00' });
        // WHMCS converts the 2800.00 PKR asked to 10.00 USD, the checkout's currency.
        expect((await refund(paymentId, '2800.00')).result).toBe('declined');
        const { claimUrl, refundId } = await requested(invoiceId);
        expect((await refundRows())[0]).toMatchObject({
          fiat_amount: '10',
          fiat_currency: 'USD',
          amount: '10',
        });
        await confirmAndPay(claimUrl, refundId);
        await age(300);
        await runCron();
        expect(refundTransactions(await invoiceState(invoiceId)).map((row) => row.amountout)).toEqual([
          '2800.00',
        ]);
      });
    });

    describe('when no refund can be started', () => {
      /** Nothing refunded anywhere: no refund at the service or in the ledger, no e-mail, no refund transaction. */
      async function expectNothingRefunded(invoiceId: number, code: string) {
        const state = await invoiceState(invoiceId);
        expect(refundTransactions(state)).toEqual([]);
        expect(state.invoice.status).toBe('Paid');
        expect(state.emails).toEqual([]);
        expect(await refundRows()).toEqual([]);
        const atService = await serviceCall<{ refunds: unknown[] }>(`/api/refunds?transaction_code=${code}`);
        expect(atService.data.refunds).toEqual([]);
        return state;
      }

      it('says where to set the merchant key when none is set', async () => {
        const invoiceId = await install({ key: '' });
        const { code, paymentId } = await payInvoice(invoiceId);
        expect(await refund(paymentId, '10.00')).toEqual({ result: 'error', infobox: 'Refund Failed' });
        const state = await expectNothingRefunded(invoiceId, code);
        expect(state.gatewaylog.at(-1)).toMatchObject({
          result: 'Refund Error',
          data: expect.stringMatching(
            /^result => Not refunded: No merchant key is set: enter the merchant key your Crypto Checkout operator gave you in the payment settings\. Nothing was refunded\.\n.*problem => no_credential/s,
          ),
        });
        expect(await adminPage(invoiceId)).toContain('Not refunded: No merchant key is set');
      });

      it('says the service could not be reached, and a retry later gets the refund', async () => {
        const invoiceId = await install();
        const { code, paymentId } = await payInvoice(invoiceId);
        const closed = await closedLoopbackUrl();
        await whmcs.driver(`
          WHMCS\\Database\\Capsule::table('mod_cryptocheckout_checkouts')->where('transaction_code', ${php(code)})->update(['service_url' => ${php(closed)}]);
          echo json_encode(true);
        `);
        expect((await refund(paymentId, '10.00')).result).toBe('error');
        const state = await expectNothingRefunded(invoiceId, code);
        expect(state.gatewaylog.at(-1)).toMatchObject({
          result: 'Refund Error',
          data: expect.stringMatching(
            /^result => Not refunded: The Crypto Checkout service could not be reached \(.+\)\. Nothing was refunded; try again in a few minutes\./,
          ),
        });
        expect(await adminPage(invoiceId)).toContain(
          'Not refunded: The Crypto Checkout service could not be reached',
        );

        await whmcs.driver(`
          WHMCS\\Database\\Capsule::table('mod_cryptocheckout_checkouts')->where('transaction_code', ${php(code)})->update(['service_url' => ${php(service.url)}]);
          echo json_encode(true);
        `);
        expect((await refund(paymentId, '10.00')).result).toBe('declined');
        expect((await refundRows()).map((row) => row.platform_refund_id)).toEqual([
          `whmcs-invoice-${invoiceId}-refund-1`,
        ]);
      });

      it("passes on the service's refusal (422: more than is left to refund)", async () => {
        const invoiceId = await install();
        const { code, paymentId } = await payInvoice(invoiceId);
        expect((await refund(paymentId, '20.00')).result).toBe('declined');
        // WHMCS has recorded no refund yet, so it lets the admin ask for 10.00 more; the service refuses.
        expect((await refund(paymentId, '10.00')).result).toBe('error');
        const state = await invoiceState(invoiceId);
        expect(refundTransactions(state)).toEqual([]);
        expect(state.emails).toHaveLength(1);
        expect(state.gatewaylog.at(-1)).toMatchObject({
          result: 'Refund Error',
          data: expect.stringMatching(
            /^result => Not refunded: The Crypto Checkout service refused the refund: .*\n(.*\n)*problem => refused\nservice_error => unprocessable\nfield => amount/,
          ),
        });
        expect((await refundRows()).map((row) => row.fiat_amount)).toEqual(['20']);
        const atService = await serviceCall<{ refunds: unknown[] }>(`/api/refunds?transaction_code=${code}`);
        expect(atService.data.refunds).toHaveLength(1);
        expect(await adminPage(invoiceId)).toContain(
          'Not refunded: The Crypto Checkout service refused the refund',
        );
      });

      it('shows the admin the claim link when WHMCS could not send the e-mail', async () => {
        const invoiceId = await install();
        const { paymentId } = await payInvoice(invoiceId);
        const answer = await whmcs.driver<RefundAnswer>(`
          harness_fail_once('SendEmail', 'invoice');
          echo json_encode(harness_refund_payment(${Number(paymentId)}, '10.00'));
        `);
        expect(answer.result).toBe('declined');
        const state = await invoiceState(invoiceId);
        expect(state.emails).toEqual([]);
        expect(state.gatewaylog.map((entry) => entry.result)).toEqual(
          expect.arrayContaining(['Refund E-mail Not Sent', 'Refund Declined']),
        );
        expect(state.gatewaylog.at(-1)?.data).toContain('claim_link_emailed => no');
        // The admin has to pass the link on: the note stays on top of the client's profile.
        const note = state.notes.find((entry) => entry.note.includes('the claim link could not be sent'));
        expect(Number(note?.sticky)).toBe(1);
        const [row] = await refundRows();
        const page = await adminPage(invoiceId);
        expect(page).toContain('The buyer was not sent the claim link; send it to them yourself:');
        expect(page).toContain(`href="${String(row?.claim_url)}"`);
      });
    });
  });
}
