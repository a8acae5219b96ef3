import {
  expectedPriceLine,
  phpString,
  type SandboxService,
  type ServiceProxy,
  startSandboxService,
  startServiceWithoutLockedRate,
  type WebhookDelivery,
} from '@cryptocheckout/php-testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type BridgeResponse,
  installAndConfigure,
  type ModuleCopy,
  PRESTASHOP_PHP_VERSIONS,
  prepareModule,
  ShopBridge,
} from './harness/harness.js';

// The whole payment journey against the real reference server: the buyer places the order
// through the validation controller, the server really POSTs its webhook to the module's webhook
// controller (served by the harness bridge from php-wasm), and the poll, status and return paths
// reconcile what webhooks missed. Two interpreters per PHP version let concurrent webhooks race.
// Times the module keeps are moved back in the database where a test needs time to pass.

const copy: ModuleCopy = await prepareModule();
let service: SandboxService;
/** The reference server answering as a service from before the locked rate (no data.rate). */
let olderService: ServiceProxy;
/** Minutes added to the server's clock, to let checkouts expire. Only ever grows. */
let clockOffsetMinutes = 0;

beforeAll(async () => {
  service = await startSandboxService({
    sweepIntervalMs: 100,
    clock: () => new Date(Date.now() + clockOffsetMinutes * 60_000),
  });
  olderService = await startServiceWithoutLockedRate(service.url);
});

afterAll(async () => {
  await olderService?.close();
  await service?.close();
  copy.remove();
});

/** A row of the kernel's StoredCheckout::toArray(), times in Unix seconds. */
type StoredCheckout = Record<string, string | number | null> & {
  transaction_code: string;
  checkout_url: string;
  created_at: number;
  expires_at: number | null;
};

interface OrderView {
  id_order: number;
  reference: string;
  current_state: number;
  state_name: string;
  history: number[];
  payments: Array<{ amount: string; transaction_id: string; payment_method: string }>;
  /** What the 8.1 back office order page lists under "Messages", oldest first. */
  messages: string[];
  /** What the buyer's order page shows (public messages only). */
  public_messages: string[];
  /** The old Message table, which the 8.1 order page does not show. */
  legacy_messages: string[];
  /** Every checkout of the order, newest first (the kernel's ledger). */
  checkouts: StoredCheckout[];
  /** A run holds the order now (its ledger claim). */
  claimed: boolean;
  states: Record<string, number>;
  orders_for_cart: number;
}

interface PollAnswer {
  status: string;
  data: {
    checked: number;
    cancelled_without_checkout: number[];
    results: Array<{ result: string; transaction_code: string; action: string | null }>;
  };
}

/** Waits until the server has tried to deliver the webhook of `code`, and returns the delivery. */
async function deliveredWebhook(code: string): Promise<WebhookDelivery> {
  for (let i = 0; i < 200; i++) {
    const done = (await service.deliveries(code)).find((delivery) => delivery.attempts.length > 0);
    if (done) return done;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no webhook attempt for ${code}`);
}

/** What the status endpoint answers for an order whose checkout `code` can still be paid. */
function awaitingStatus(code: string) {
  return {
    status: 'success',
    data: {
      state: 'awaiting_payment',
      message: 'Waiting for your payment. This page updates by itself.',
      terminal: false,
      checkout_url: `${service.url}/pay/${code}`,
    },
  };
}

async function transactionStatus(code: string): Promise<string> {
  return (await service.transaction(code)).status;
}

for (const version of PRESTASHOP_PHP_VERSIONS) {
  describe(`PrestaShop checkout flow [PHP ${version}]`, () => {
    const bridge = new ShopBridge(version, copy.mounts, `flow-${version}.sqlite`, 2);

    beforeAll(async () => {
      await bridge.start();
      await bridge.runJson(`${installAndConfigure(service.url)} echo json_encode(true);`);
    });

    afterAll(async () => {
      await bridge.stop();
    });

    afterEach(() => {
      bridge.offline.clear();
    });

    const view = (idOrder: number) =>
      bridge.runJson(`
$module = Module::getInstanceByName('cryptocheckout');
$order = new Order(${idOrder});
$state = new OrderState((int) $order->current_state, 1);
$payments = array_map(function ($p) { return ['amount' => $p->amount, 'transaction_id' => $p->transaction_id, 'payment_method' => $p->payment_method]; }, $order->getOrderPayments());
echo json_encode([
    'id_order' => (int) $order->id,
    'reference' => $order->reference,
    'current_state' => (int) $order->current_state,
    'state_name' => $state->name,
    'history' => HarnessShop::stateHistory($order->id),
    'payments' => $payments,
    'messages' => array_reverse(array_column(HarnessShop::orderPageMessages($order->id), 'message')),
    'public_messages' => array_column(CustomerMessage::getMessagesByOrderId($order->id, false), 'message'),
    'legacy_messages' => array_column(Message::getMessagesByOrderId($order->id, true), 'message'),
    'checkouts' => array_map(function ($checkout) { return $checkout->toArray(); }, $module->kernel()->checkouts((string) $order->id)),
    'claimed' => $module->kernel()->ledger()->isClaimed((string) $order->id, time()),
    'states' => [
        'awaiting' => (int) Configuration::get('CRYPTOCHECKOUT_OS_AWAITING'),
        'underpaid' => (int) Configuration::get('CRYPTOCHECKOUT_OS_UNDERPAID'),
        'review' => (int) Configuration::get('CRYPTOCHECKOUT_OS_REVIEW'),
        'payment' => (int) Configuration::get('PS_OS_PAYMENT'),
        'canceled' => (int) Configuration::get('PS_OS_CANCELED'),
    ],
    'orders_for_cart' => (int) Db::getInstance()->getValue('SELECT COUNT(*) FROM ps_orders WHERE id_cart = ' . (int) $order->id_cart),
]);`) as Promise<OrderView>;

    const config = (key: string, value: string) =>
      bridge.runJson(`Configuration::updateValue(${phpString(key)}, ${phpString(value)}); echo 'true';`);

    /** Rewrites the ledger's checkout columns of an order (SQL expressions), as if time had passed. */
    const rewriteCheckouts = (idOrder: number, sets: Record<string, string>) =>
      bridge.runJson(`
Db::getInstance()->execute('UPDATE ps_cryptocheckout_checkouts SET ' . ${phpString(
        Object.entries(sets)
          .map(([column, expression]) => `${column} = ${expression}`)
          .join(', '),
      )} . " WHERE order_id = '${idOrder}'");
echo 'true';`);

    /**
     * Puts a claim on the order in the ledger, as a run that is changing it holds one: ending in
     * `seconds` (in the past: a run that died), for `action` on `code`.
     */
    const holdClaim = (idOrder: number, code: string, seconds: number, action = 'run') =>
      bridge.runJson(`
Db::getInstance()->execute("INSERT IGNORE INTO ps_cryptocheckout_orders (order_id) VALUES ('${idOrder}')");
Db::getInstance()->execute("UPDATE ps_cryptocheckout_orders SET claim_token = 'other-request', claim_action = '${action}', claim_code = '${code}', claim_until = " . (time() + ${seconds}) . " WHERE order_id = '${idOrder}'");
echo 'true';`);

    /** The last check of the order's checkouts was `seconds` ago. */
    const ageLastCheck = (idOrder: number, seconds: number) =>
      rewriteCheckouts(idOrder, { checked_at: `checked_at - ${seconds}` });

    /** A buyer with a cart submits the payment option; returns the cart, the order and the answer. */
    async function placeOrder(total = '25.00', iso = 'EUR') {
      const cart = (await bridge.runJson(
        `echo json_encode(HarnessShop::createCart(${phpString(total)}, ${phpString(iso)}));`,
      )) as { id_cart: number; secure_key: string };
      const response = await bridge.request('/module/cryptocheckout/validation', {
        method: 'POST',
        cart: cart.id_cart,
      });
      const idOrder = Number(
        await bridge.runJson(`echo json_encode(Order::getIdByCartId(${cart.id_cart}));`),
      );
      return { cart, response, idOrder };
    }

    /** Places an order that reaches the payment page, and returns its transaction code. */
    async function placePaidLaterOrder(total = '25.00') {
      const placed = await placeOrder(total);
      expect(placed.response.status).toBe(302);
      const order = await view(placed.idOrder);
      expect(order.checkouts).toHaveLength(1);
      return { ...placed, order, code: order.checkouts[0]!.transaction_code };
    }

    const pollPath = async () => {
      const token = await bridge.runJson(
        `echo json_encode(Configuration::get('CRYPTOCHECKOUT_POLL_TOKEN'));`,
      );
      return `/module/cryptocheckout/poll?token=${encodeURIComponent(String(token))}`;
    };

    /** Runs the cron poll and returns its answer. */
    async function poll(): Promise<PollAnswer> {
      const answer = await bridge.request(await pollPath());
      expect(answer.status, answer.body).toBe(200);
      return JSON.parse(answer.body) as PollAnswer;
    }

    /**
     * A minute after the last check, the cron poll pays the order of `code` once: returns the order.
     */
    async function pollPays(idOrder: number, code: string): Promise<OrderView> {
      await ageLastCheck(idOrder, 120);
      const polled = await poll();
      expect(polled.data.results).toContainEqual(
        expect.objectContaining({ transaction_code: code, result: 'applied', action: 'mark_paid' }),
      );
      const order = await view(idOrder);
      expect(order.current_state).toBe(order.states.payment);
      expect(order.payments).toHaveLength(1);
      expect(order.claimed).toBe(false);
      return order;
    }

    const confirmationPage = async (idOrder: number) => {
      const order = (await bridge.runJson(
        `$o = new Order(${idOrder}); echo json_encode(['id_cart' => (int) $o->id_cart, 'key' => $o->secure_key]);`,
      )) as { id_cart: number; key: string };
      return bridge.request(
        `/index.php?controller=order-confirmation&id_cart=${order.id_cart}&id_module=1&id_order=${idOrder}&key=${encodeURIComponent(order.key)}`,
      );
    };

    it('creates the order awaiting payment, then its checkout, and redirects the buyer to it', async () => {
      const { response, idOrder } = await placeOrder('25.00');
      const order = await view(idOrder);
      expect(order.current_state).toBe(order.states.awaiting);
      expect(order.state_name).toBe('Awaiting crypto payment');
      expect(order.payments).toEqual([]);
      expect(order.checkouts).toHaveLength(1);
      const checkout = order.checkouts[0]!;
      expect(checkout).toMatchObject({
        service_url: service.url,
        fiat_amount: '25.00',
        fiat_currency: 'EUR',
        wallet_address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
        wallet_currency: 'USDC',
        wallet_network: 'POLYGON',
        last_status: 'pending',
        checked_at: null,
        applied_action: null,
        resolution: null,
      });
      expect(checkout.expires_at).toBeGreaterThan(checkout.created_at);
      expect(checkout.watch_until).toBe((checkout.expires_at ?? 0) + 25 * 3600);
      expect(order.claimed).toBe(false);
      expect(response.status).toBe(302);
      expect(response.headers.location).toBe(checkout.checkout_url);
      expect(checkout.checkout_url).toBe(`${service.url}/pay/${checkout.transaction_code}`);

      expect(await service.transaction(checkout.transaction_code)).toMatchObject({
        status: 'pending',
        external_reference: order.reference,
        fiat_amount: 25,
        fiat_currency: 'EUR',
        wallet_address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
      });
    });

    it('reuses the order and its checkout when the buyer submits the same cart again', async () => {
      const first = await placePaidLaterOrder();
      const again = await bridge.request('/module/cryptocheckout/validation', {
        method: 'POST',
        cart: first.cart.id_cart,
      });
      expect(again.status).toBe(302);
      expect(again.headers.location).toBe(first.order.checkouts[0]?.checkout_url);
      const order = await view(first.idOrder);
      expect(order.orders_for_cart).toBe(1);
      expect(order.checkouts.map((checkout) => checkout.transaction_code)).toEqual([first.code]);
    });

    it('refuses to place an order the payment option would not have offered', async () => {
      const { response, idOrder } = await placeOrder('10.00', 'XOF');
      expect(response.status).toBe(500);
      expect(response.body).toContain('This payment method is not available.');
      expect(idOrder).toBe(0);
      const anonymous = await bridge.request('/module/cryptocheckout/validation', { method: 'POST' });
      expect(anonymous.status).toBe(302);
      expect(anonymous.headers.location).toContain('controller=order&step=1');
    });

    it('keeps answering the status widget while the service is down', async () => {
      const { idOrder, cart, code } = await placePaidLaterOrder('6.00');
      // Lookups go to the service the checkout was created at.
      await rewriteCheckouts(idOrder, { service_url: "'http://127.0.0.1:9'" });
      const answer = await bridge.request(
        `/module/cryptocheckout/status?id_order=${idOrder}&key=${encodeURIComponent(cart.secure_key)}`,
      );
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toEqual(awaitingStatus(code));
      const order = await view(idOrder);
      expect(order.checkouts[0]?.checked_at).not.toBeNull();
      expect(order.checkouts[0]?.last_status).toBe('pending');
    });

    it('sends amounts with the currency decimals (JPY has none)', async () => {
      const { idOrder } = await placeOrder('1500', 'JPY');
      const order = await view(idOrder);
      expect(order.checkouts[0]).toMatchObject({ fiat_amount: '1500', fiat_currency: 'JPY' });
    });

    it('marks the order paid once when the server delivers its webhook', async () => {
      await config('CRYPTOCHECKOUT_DEBUG', '1');
      const { idOrder, code } = await placePaidLaterOrder('25.00');
      await service.pay(code, 'full');
      const delivery = await deliveredWebhook(code);
      expect(delivery.attempts[0]?.http_status).toBe(200);
      const order = await view(idOrder);
      expect(order.current_state).toBe(order.states.payment);
      expect(order.payments).toHaveLength(1);
      expect(order.payments[0]).toMatchObject({ transaction_id: code, payment_method: 'Crypto Checkout' });
      expect(Number(order.payments[0]?.amount)).toBe(25);
      expect(order.history).toEqual([order.states.awaiting, order.states.payment]);
      expect(order.checkouts[0]).toMatchObject({
        last_status: 'settled',
        applied_action: 'mark_paid',
        resolution: 'booked',
      });
      expect(order.claimed).toBe(false);
      // The payment's note ends with the rate the checkout locked.
      const line = expectedPriceLine(await service.transaction(code));
      expect(order.messages.at(-1)).toMatch(
        new RegExp(
          `^Crypto Checkout: payment of [\\d.]+ USD settled \\(transaction ${code}\\)\\. Priced at `,
        ),
      );
      expect(order.messages.at(-1)?.endsWith(` ${line}`)).toBe(true);
      // A webhook the service confirmed shows on the configuration page.
      const panel = String(
        await bridge.runJson(
          `HarnessShop::actAsEmployee(); echo json_encode(Module::getInstanceByName('cryptocheckout')->getContent());`,
        ),
      );
      expect(panel).toMatch(/data-cryptocheckout-last-webhook>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d</);
      await config('CRYPTOCHECKOUT_DEBUG', '0');
      // With debug logging on, each step went to PrestaShop's log, tied to the order.
      const trace = (await bridge.runJson(
        `echo json_encode(array_column(Db::getInstance()->executeS('SELECT message FROM ps_log WHERE object_type = \\'Order\\' AND object_id = ${idOrder} AND severity = 1 ORDER BY id_log'), 'message'));`,
      )) as string[];
      expect(trace).toContain(
        `Crypto Checkout: Checkout ${code} created for 25.00 EUR. [transaction ${code}]`,
      );
      expect(trace.at(-1)).toMatch(
        new RegExp(
          `^Crypto Checkout: payment of [\\d.]+ USD settled \\(transaction ${code}\\)\\. \\[transaction ${code}, trigger webhook, action mark_paid, reason \\w+\\]$`,
        ),
      );

      // The same webhook again changes nothing.
      const replay = await bridge.request('/module/cryptocheckout/webhook', {
        method: 'POST',
        body: delivery.body,
      });
      expect(replay.status).toBe(200);
      expect(JSON.parse(replay.body)).toEqual({ status: 'success', data: { result: 'unchanged' } });
      const after = await view(idOrder);
      expect(after.payments).toHaveLength(1);
      expect(after.history).toEqual(order.history);

      // The buyer's confirmation page shows it, in the status box every platform renders.
      const page = await confirmationPage(idOrder);
      expect(page.body).toContain(
        '<section class="cryptocheckout-status" data-cryptocheckout-status data-state="paid"',
      );
      expect(page.body).toContain('Payment received. Thank you!');
      expect(page.body).not.toContain('cryptocheckout-status__pay');
      expect(page.body).not.toContain('data-cryptocheckout-retry');
      expect(page.body).toContain('scripts: modules-cryptocheckout-front');
    });

    it('pays once however many copies of the webhook race', async () => {
      bridge.offline.add('/module/cryptocheckout/webhook');
      const { idOrder, code } = await placePaidLaterOrder('42.50');
      await service.pay(code, 'full');
      const missed = await deliveredWebhook(code);
      expect(missed.attempts[0]?.http_status).toBe(503);
      bridge.offline.delete('/module/cryptocheckout/webhook');

      const answers = await Promise.all(
        Array.from({ length: 4 }, () =>
          bridge.request('/module/cryptocheckout/webhook', { method: 'POST', body: missed.body }),
        ),
      );
      const results = answers.map(
        (answer) => (JSON.parse(answer.body) as { data: { result: string } }).data.result,
      );
      expect(answers.every((answer) => answer.status === 200)).toBe(true);
      expect(results.filter((result) => result === 'applied')).toHaveLength(1);
      for (const result of results) expect(['applied', 'busy', 'unchanged']).toContain(result);

      const order = await view(idOrder);
      expect(order.payments).toHaveLength(1);
      expect(order.history.filter((state) => state === order.states.payment)).toHaveLength(1);
      expect(order.messages.filter((message) => message.includes('settled'))).toHaveLength(1);
      // The price line once, in the payment's note.
      const line = expectedPriceLine(await service.transaction(code));
      expect(order.messages.filter((message) => message.includes('Priced'))).toEqual([
        expect.stringContaining(`settled (transaction ${code}). ${line}`),
      ]);
      expect(order.claimed).toBe(false);
    });

    it('ignores a forged webhook: the lookup says the transaction is still pending', async () => {
      const { idOrder, code } = await placePaidLaterOrder('19.99');
      const lastWebhook = () =>
        bridge.runJson(
          `echo json_encode(Module::getInstanceByName('cryptocheckout')->kernel()->lastVerifiedWebhook());`,
        );
      const verifiedBefore = await lastWebhook();
      const forged = {
        event: 'transaction.settled',
        transaction_code: code,
        external_reference: 'forged',
        fiat_amount: 19.99,
        fiat_currency: 'EUR',
        received_usd: 1000,
        wallet_address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
        wallet_currency: 'USDC',
        wallet_network: 'POLYGON',
        payout_dispatched: true,
        timestamp: Math.floor(Date.now() / 1000),
      };
      const answer = await bridge.request('/module/cryptocheckout/webhook', {
        method: 'POST',
        body: JSON.stringify(forged),
      });
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toEqual({ status: 'success', data: { result: 'unchanged' } });
      const order = await view(idOrder);
      expect(order.current_state).toBe(order.states.awaiting);
      expect(order.payments).toEqual([]);
      expect(order.checkouts[0]?.last_status).toBe('pending');
      // Only verified events count as "last webhook received".
      expect(await lastWebhook()).toEqual(verifiedBefore);

      const unknown = await bridge.request('/module/cryptocheckout/webhook', {
        method: 'POST',
        body: JSON.stringify({ ...forged, transaction_code: '00000000-0000-4000-8000-000000000000' }),
      });
      expect(unknown.status).toBe(200);
      expect(JSON.parse(unknown.body)).toEqual({ status: 'success', data: { result: 'ignored' } });

      const broken = await bridge.request('/module/cryptocheckout/webhook', {
        method: 'POST',
        body: '{"event":',
      });
      expect(broken.status).toBe(400);
      expect(JSON.parse(broken.body)).toMatchObject({
        status: 'error',
        error: { code: 'invalid_request', field: 'body' },
      });

      const wrongField = await bridge.request('/module/cryptocheckout/webhook', {
        method: 'POST',
        body: JSON.stringify({ ...forged, received_usd: 'lots' }),
      });
      expect(wrongField.status).toBe(400);
      expect(JSON.parse(wrongField.body)).toMatchObject({ error: { field: 'received_usd' } });

      const oversized = await bridge.request('/module/cryptocheckout/webhook', {
        method: 'POST',
        body: JSON.stringify({ ...forged, padding: 'x'.repeat(70_000) }),
      });
      expect(oversized.status).toBe(413);
      expect(JSON.parse(oversized.body)).toMatchObject({
        error: { code: 'payload_too_large', field: 'body' },
      });

      const get = await bridge.request('/module/cryptocheckout/webhook');
      expect(get.status).toBe(405);
      expect(get.headers.allow).toBe('POST');
      expect(JSON.parse(get.body)).toMatchObject({ error: { code: 'method_not_allowed' } });
    });

    it('answers 503 when the service cannot confirm the webhook, and the poll pays later', async () => {
      bridge.offline.add('/module/cryptocheckout/webhook');
      const { idOrder, code } = await placePaidLaterOrder('14.00');
      await service.pay(code, 'full');
      const delivery = await deliveredWebhook(code);
      bridge.offline.delete('/module/cryptocheckout/webhook');
      await rewriteCheckouts(idOrder, { service_url: "'http://127.0.0.1:9'" });
      const answer = await bridge.request('/module/cryptocheckout/webhook', {
        method: 'POST',
        body: delivery.body,
      });
      expect(answer.status).toBe(503);
      expect(JSON.parse(answer.body)).toMatchObject({ status: 'error', error: { code: 'unavailable' } });
      expect((await view(idOrder)).payments).toEqual([]);

      await rewriteCheckouts(idOrder, { service_url: `'${service.url}'` });
      await pollPays(idOrder, code);
    });

    it('completes a payment that was booked when the state change failed (crash between the two)', async () => {
      const { idOrder, code } = await placePaidLaterOrder('33.00');
      // The next state change of any order fails once, after the payment is booked.
      await bridge.runJson(`harness_fail_once('Order::setCurrentState'); echo 'true';`);
      await service.pay(code, 'full');
      const delivery = await deliveredWebhook(code);
      // The service is told the webhook was not handled; nothing is half-claimed.
      expect(delivery.attempts[0]?.http_status).toBe(503);
      const broken = await view(idOrder);
      expect(broken.current_state).toBe(broken.states.awaiting);
      expect(broken.payments).toHaveLength(1);
      expect(broken.claimed).toBe(false);
      expect(broken.checkouts[0]?.resolution).toBeNull();

      // A minute later the scheduled poll finishes the work, without booking the payment again.
      const order = await pollPays(idOrder, code);
      expect(order.state_name).toBe('Payment accepted');
      expect(order.payments[0]?.transaction_id).toBe(code);
      expect(order.history).toEqual([order.states.awaiting, order.states.payment]);
      expect(order.checkouts[0]).toMatchObject({ applied_action: 'mark_paid', resolution: 'booked' });
    });

    it('finishes the work of a run that died holding the claim, once its lease is over', async () => {
      const { idOrder, code } = await placePaidLaterOrder('34.00');
      bridge.offline.add('/module/cryptocheckout/webhook');
      await service.pay(code, 'full');
      await deliveredWebhook(code);
      bridge.offline.delete('/module/cryptocheckout/webhook');
      // A run booked the payment and died (killed process) before it changed the order's state.
      await bridge.runJson(`
$order = new Order(${idOrder});
$order->addOrderPayment('34.00', 'Crypto Checkout', ${phpString(code)});
echo 'true';`);
      await holdClaim(idOrder, code, 30, 'mark_paid');
      // While the lease runs, others leave the order alone.
      const early = await poll();
      expect(early.data.results).toContainEqual(
        expect.objectContaining({ transaction_code: code, result: 'busy' }),
      );
      expect((await view(idOrder)).current_state).toBe((await view(idOrder)).states.awaiting);

      await holdClaim(idOrder, code, -1, 'mark_paid');
      await pollPays(idOrder, code);
    });

    it('holds a lookup that does not match the order for the merchant (amount changed on the shop side)', async () => {
      const { idOrder, code } = await placePaidLaterOrder('30.00');
      await rewriteCheckouts(idOrder, { fiat_amount: "'31.00'" });
      await service.pay(code, 'full');
      await deliveredWebhook(code);
      const order = await view(idOrder);
      expect(order.current_state).toBe(order.states.awaiting);
      expect(order.payments).toEqual([]);
      expect(order.checkouts[0]).toMatchObject({ applied_action: 'reject_mismatch', resolution: 'flagged' });
      expect(order.messages.at(-1)).toBe(
        'Crypto Checkout: ignored a transaction whose amount does not match this order.',
      );
      // Logged as an error (PrestaShopLogger severity 3), which the merchant's log shows as one.
      const logged = await bridge.runJson(
        `echo json_encode(Db::getInstance()->getValue("SELECT message FROM ps_log WHERE object_id = ${idOrder} AND severity = 3 AND message LIKE '%does not match%' ORDER BY id_log DESC"));`,
      );
      expect(String(logged)).toContain(
        'Crypto Checkout: ignored a transaction whose amount does not match this order. [transaction',
      );
    });

    it('catches a missed webhook with the scheduled poll (from a service that sends no locked rate)', async () => {
      bridge.offline.add('/module/cryptocheckout/webhook');
      // The checkout is made through a service from before the locked rate, which it keeps asking.
      await config('CRYPTOCHECKOUT_SERVICE_URL', olderService.url);
      const placed = await placePaidLaterOrder('12.00').finally(() =>
        config('CRYPTOCHECKOUT_SERVICE_URL', service.url),
      );
      const { idOrder, code } = placed;
      await service.pay(code, 'full');
      expect((await deliveredWebhook(code)).attempts[0]?.http_status).toBe(503);
      bridge.offline.delete('/module/cryptocheckout/webhook');
      expect((await view(idOrder)).current_state).toBe((await view(idOrder)).states.awaiting);

      const forbidden = await bridge.request('/module/cryptocheckout/poll?token=wrong');
      expect(forbidden.status).toBe(403);
      expect(JSON.parse(forbidden.body)).toMatchObject({ error: { code: 'forbidden', field: 'token' } });

      const polled = await poll();
      expect(polled.status).toBe('success');
      expect(polled.data.checked).toBe(polled.data.results.length);
      expect(polled.data.results).toContainEqual(
        expect.objectContaining({ transaction_code: code, result: 'applied', action: 'mark_paid' }),
      );
      const order = await view(idOrder);
      expect(order.current_state).toBe(order.states.payment);
      expect(order.payments).toHaveLength(1);
      // Booked without a price line: the lookup had no rate.
      expect(olderService.lookups).toBeGreaterThan(0);
      expect(order.messages.filter((message) => message.includes(`settled (transaction ${code})`))).toEqual([
        expect.stringMatching(/USD settled \(transaction [0-9a-f-]+\)\.$/),
      ]);
      expect(order.messages.filter((message) => message.includes('Priced'))).toEqual([]);
      const lastPoll = await bridge.runJson(
        `echo json_encode(Configuration::get('CRYPTOCHECKOUT_LAST_POLL'));`,
      );
      expect(String(lastPoll)).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    });

    it('checks the payment when the buyer returns, and answers the status widget', async () => {
      bridge.offline.add('/module/cryptocheckout/webhook');
      const { idOrder, code, cart } = await placePaidLaterOrder('8.00');
      const key = encodeURIComponent(cart.secure_key);
      const before = await bridge.request(`/module/cryptocheckout/status?id_order=${idOrder}&key=${key}`);
      expect(JSON.parse(before.body)).toEqual(awaitingStatus(code));
      const pending = await confirmationPage(idOrder);
      expect(pending.body).toContain('data-state="awaiting_payment"');
      expect(pending.body).toContain(
        `<a class="button cryptocheckout-status__pay" href="${service.url}/pay/${code}">Pay now</a>`,
      );
      // The box carries what the front script needs: the status URL and the same status shape.
      const box = JSON.parse(
        (/data-config="([^"]*)"/.exec(pending.body)?.[1] ?? '{}')
          .replaceAll('&quot;', '"')
          .replaceAll('&amp;', '&'),
      ) as { statusUrl: string; status: unknown; openModal: boolean; labels: Record<string, string> };
      expect(box.statusUrl).toBe(
        `${bridge.url}/module/cryptocheckout/status?id_order=${idOrder}&key=${cart.secure_key}`,
      );
      expect(box.status).toEqual(JSON.parse(before.body).data);
      expect(box.openModal).toBe(false);
      expect(box.labels).toMatchObject({ title: 'Crypto payment', pay: 'Pay now' });

      await service.pay(code, 'full');
      await deliveredWebhook(code);
      bridge.offline.delete('/module/cryptocheckout/webhook');
      // Buyer pages check at most every few seconds; this return comes later.
      await ageLastCheck(idOrder, 10);
      const page = await confirmationPage(idOrder);
      expect(page.body).toContain('Payment received. Thank you!');
      const order = await view(idOrder);
      expect(order.current_state).toBe(order.states.payment);
      const after = await bridge.request(`/module/cryptocheckout/status?id_order=${idOrder}&key=${key}`);
      expect(JSON.parse(after.body)).toMatchObject({
        data: { state: 'paid', terminal: true, checkout_url: null },
      });

      const wrongKey = await bridge.request(`/module/cryptocheckout/status?id_order=${idOrder}&key=nope`);
      expect(wrongKey.status).toBe(404);
      expect(JSON.parse(wrongKey.body)).toMatchObject({ status: 'error', error: { code: 'not_found' } });
    });

    it('holds an underpaid order with a note, then completes it when topped up', async () => {
      const { idOrder, code } = await placePaidLaterOrder('40.00');
      await service.pay(code, 'partial');
      expect(await transactionStatus(code)).toBe('underpaid');
      await poll();
      const held = await view(idOrder);
      expect(held.current_state).toBe(held.states.underpaid);
      expect(held.state_name).toBe('Crypto payment underpaid');
      expect(held.payments).toEqual([]);
      expect(held.messages.at(-1)).toMatch(
        /^Crypto Checkout: received [\d.]+ USD of [\d.]+ USD; [\d.]+ USD is still due\./,
      );
      // The note is where PrestaShop 8.1's order page lists messages, private to the shop.
      expect(held.legacy_messages).toEqual([]);
      expect(held.public_messages).toEqual([]);

      // The merchant's panel says it in words, with the amount received.
      const panel = String(
        await bridge.runJson(
          `HarnessShop::actAsEmployee(); echo json_encode(Hook::exec('displayAdminOrderMainBottom', ['id_order' => ${idOrder}]));`,
        ),
      );
      expect(panel).toMatch(/data-cryptocheckout-state>Part paid</);
      expect(panel).toMatch(/data-cryptocheckout-received>\d+\.\d{2} USD</);
      expect(panel).toContain('Order on hold for the rest');
      expect(panel).not.toMatch(/>\s*(underpaid|hold_underpaid)\b/);

      // The buyer is offered the same payment page to pay the rest, on the guest tracking page too
      // (whose status box refreshes itself).
      const guest = await bridge.request(
        `/index.php?controller=guest-tracking&order_reference=${held.reference}&email=ada%40example.com`,
      );
      expect(guest.status).toBe(200);
      expect(guest.body).toContain('data-state="underpaid"');
      expect(guest.body).toContain('Part of the payment has arrived. Pay the rest on the payment page.');
      expect(guest.body).toContain(`href="${service.url}/pay/${code}"`);
      expect(guest.body).toContain('scripts: modules-cryptocheckout-front');
      expect(guest.body).not.toContain('data-cryptocheckout-retry');

      // Polling again leaves it alone.
      await ageLastCheck(idOrder, 120);
      await poll();
      expect((await view(idOrder)).history).toEqual(held.history);

      await service.pay(code, 'full');
      await deliveredWebhook(code);
      const paid = await view(idOrder);
      expect(paid.current_state).toBe(paid.states.payment);
      expect(paid.payments).toHaveLength(1);
      expect(paid.history).toEqual([paid.states.awaiting, paid.states.underpaid, paid.states.payment]);
    });

    it('stops polling an underpaid checkout once its watch window is over', async () => {
      const { idOrder, code } = await placePaidLaterOrder('41.00');
      await service.pay(code, 'partial');
      await poll();
      expect((await view(idOrder)).current_state).toBe((await view(idOrder)).states.underpaid);

      // Still inside its window (the buyer may top up; a late payment still settles): polled.
      await ageLastCheck(idOrder, 700);
      expect((await poll()).data.results.map((result) => result.transaction_code)).toContain(code);

      // Expired two days ago, past the late window: never looked at again.
      await rewriteCheckouts(idOrder, {
        created_at: 'created_at - 3 * 86400',
        expires_at: `${Math.floor(Date.now() / 1000) - 2 * 86400}`,
        watch_until: `${Math.floor(Date.now() / 1000) - 2 * 86400 + 25 * 3600}`,
        checked_at: 'checked_at - 86400',
      });
      expect((await poll()).data.results.map((result) => result.transaction_code)).not.toContain(code);
      const order = await view(idOrder);
      expect(order.current_state).toBe(order.states.underpaid);
      expect(order.checkouts[0]?.resolution).toBeNull();

      // The merchant's panel says the window closed and how much came; the buyer is told the shop
      // will be in touch, and is not offered a new payment for the whole amount.
      const panel = String(
        await bridge.runJson(
          `HarnessShop::actAsEmployee(); echo json_encode(Hook::exec('displayAdminOrderMainBottom', ['id_order' => ${idOrder}]));`,
        ),
      );
      expect(panel).toMatch(/data-cryptocheckout-state>Part paid — window closed</);
      expect(panel).toContain('Order on hold; no longer watched');
      const page = await confirmationPage(idOrder);
      expect(page.body).toContain('The shop will contact you about the rest.');
      expect(page.body).not.toContain('data-cryptocheckout-retry');
      expect(page.body).not.toContain('/pay/');
    });

    it('cancels an order that never got a checkout a day after it was placed', async () => {
      await config('CRYPTOCHECKOUT_SERVICE_URL', 'http://127.0.0.1:9');
      const stale = await placeOrder('16.00');
      const recent = await placeOrder('17.00');
      await config('CRYPTOCHECKOUT_SERVICE_URL', service.url);
      expect((await view(stale.idOrder)).checkouts).toEqual([]);
      await bridge.runJson(
        `Db::getInstance()->execute("UPDATE ps_orders SET date_add = '" . date('Y-m-d H:i:s', time() - 86400 - 60) . "' WHERE id_order = ${stale.idOrder}"); echo 'true';`,
      );

      const polled = await poll();
      expect(polled.data.cancelled_without_checkout).toEqual([stale.idOrder]);
      const cancelled = await view(stale.idOrder);
      expect(cancelled.current_state).toBe(cancelled.states.canceled);
      expect(cancelled.messages.at(-1)).toContain('no checkout was ever created for this order');
      expect(cancelled.claimed).toBe(false);
      // Placed less than a day ago: the buyer may still use the retry link.
      const waiting = await view(recent.idOrder);
      expect(waiting.current_state).toBe(waiting.states.awaiting);

      // The retry link of the cancelled order creates nothing and shows where the order stands.
      const retried = await bridge.request(
        `/module/cryptocheckout/validation?id_order=${stale.idOrder}&key=${encodeURIComponent(String(await bridge.runJson(`echo json_encode((new Order(${stale.idOrder}))->secure_key);`)))}`,
      );
      expect(retried.status).toBe(302);
      expect(retried.headers.location).toContain('controller=order-confirmation');
      expect((await view(stale.idOrder)).checkouts).toEqual([]);
      expect((await poll()).data.cancelled_without_checkout).toEqual([]);
    });

    it('keeps the order and offers a retry when the service is down at checkout', async () => {
      await config('CRYPTOCHECKOUT_SERVICE_URL', 'http://127.0.0.1:9');
      const { idOrder, response } = await placeOrder('15.00');
      await config('CRYPTOCHECKOUT_SERVICE_URL', service.url);
      expect(response.status).toBe(200);
      // The kernel's StartProblem says why, in the buyer's words.
      expect(response.body).toContain(
        'The crypto payment service is not reachable right now. Your order is saved: please try again in a few minutes',
      );
      const retry = /data-cryptocheckout-retry href="([^"]+)"/
        .exec(response.body)?.[1]
        ?.replaceAll('&amp;', '&');
      expect(retry).toBeDefined();
      const order = await view(idOrder);
      expect(order.current_state).toBe(order.states.awaiting);
      expect(order.checkouts).toEqual([]);
      const logged = await bridge.runJson(
        `echo json_encode(Db::getInstance()->getValue("SELECT message FROM ps_log WHERE object_id = ${idOrder} AND severity = 3"));`,
      );
      expect(String(logged)).toContain('Crypto Checkout: Creating the checkout failed: NetworkException:');

      // The confirmation page offers the same retry while the order has no checkout (and no
      // status box: there is no payment to show).
      const page = await confirmationPage(idOrder);
      expect(page.body).not.toContain('data-cryptocheckout-status');
      expect(page.body).toContain(`data-cryptocheckout-retry href="${retry!.replaceAll('&', '&amp;')}"`);

      // Following the retry link creates the checkout for the same order.
      const retried = await bridge.request(new URL(retry!).pathname + new URL(retry!).search);
      expect(retried.status).toBe(302);
      const after = await view(idOrder);
      expect(after.checkouts).toHaveLength(1);
      expect(retried.headers.location).toBe(after.checkouts[0]?.checkout_url);
      expect(after.orders_for_cart).toBe(1);
      // A forged key is turned away.
      const forged = await bridge.request(`/module/cryptocheckout/validation?id_order=${idOrder}&key=forged`);
      expect(forged.status).toBe(302);
      expect(forged.headers.location).toContain('controller=history');
    });

    it('keeps every checkout of an order: a replaced one stays payable and pays the order', async () => {
      const first = await placePaidLaterOrder('27.00');
      // The merchant moves to another wallet; the buyer comes back through the retry link.
      const otherWallet = String(
        await bridge.runJson(
          `Module::getInstanceByName('cryptocheckout'); echo json_encode(CryptoCheckout\\PrestaShop\\Vendor\\Client\\Wallet\\AddressValidator::validate('POLYGON', '0x71c7656ec7ab88b098defb751b7401b5f6d8976f')['address']);`,
        ),
      );
      await config('CRYPTOCHECKOUT_WALLET_ADDRESS', otherWallet);
      const key = encodeURIComponent(first.cart.secure_key);
      const retried = await bridge.request(
        `/module/cryptocheckout/validation?id_order=${first.idOrder}&key=${key}`,
      );
      await config('CRYPTOCHECKOUT_WALLET_ADDRESS', '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359');
      const replaced = await view(first.idOrder);
      expect(replaced.checkouts).toHaveLength(2);
      const [newest, older] = replaced.checkouts;
      expect(older?.transaction_code).toBe(first.code);
      expect(newest?.wallet_address).toBe(otherWallet);
      expect(retried.status).toBe(302);
      expect(retried.headers.location).toBe(newest?.checkout_url);

      // The buyer pays the first checkout from a tab left open: its webhook finds the order by
      // that code, and the order is paid once.
      await service.pay(first.code, 'full');
      expect((await deliveredWebhook(first.code)).attempts[0]?.http_status).toBe(200);
      const order = await view(first.idOrder);
      expect(order.current_state).toBe(order.states.payment);
      expect(order.payments.map((payment) => payment.transaction_id)).toEqual([first.code]);
      expect(order.checkouts.find((checkout) => checkout.transaction_code === first.code)?.resolution).toBe(
        'booked',
      );
    });

    it('shows the checkout over the shop in modal mode', async () => {
      await config('CRYPTOCHECKOUT_DISPLAY_MODE', 'modal');
      const { response, idOrder } = await placeOrder('9.00');
      await config('CRYPTOCHECKOUT_DISPLAY_MODE', 'redirect');
      expect(response.status).toBe(200);
      const order = await view(idOrder);
      expect(response.body).toContain('data-cryptocheckout-embed');
      expect(response.body).toContain(`data-checkout-url="${order.checkouts[0]?.checkout_url}"`);
      expect(response.body).toContain('data-return-url="');
    });

    it('shows every checkout and the notes on the back office order page', async () => {
      const { idOrder, code } = await placePaidLaterOrder('5.00');
      const html = String(
        await bridge.runJson(
          `HarnessShop::actAsEmployee(); echo json_encode(Hook::exec('displayAdminOrderMainBottom', ['id_order' => ${idOrder}]));`,
        ),
      );
      expect(html).toContain(`data-cryptocheckout-transaction="${code}"`);
      expect(html).toContain('5.00 EUR');
      expect(html).toContain('Watched');
      expect(html).not.toContain('data-cryptocheckout-notes');

      // The customer's order page shows the status box, asking the service at most once every
      // few seconds (Runner::BUYER_CHECK_SECONDS): showing it again right away does not ask again.
      const detail = () =>
        bridge.runJson(
          `echo json_encode(Hook::exec('displayOrderDetail', ['order' => new Order(${idOrder})]));`,
        );
      const shown = String(await detail());
      expect(shown).toContain('data-cryptocheckout-status');
      expect(shown).toContain('data-state="awaiting_payment"');
      expect(shown).toContain(`/pay/${code}`);
      const checkedAt = (await view(idOrder)).checkouts[0]?.checked_at;
      expect(checkedAt).not.toBeNull();
      await detail();
      expect((await view(idOrder)).checkouts[0]?.checked_at).toBe(checkedAt);
    });

    it('cancels an expired order, then holds a late payment for review instead of accepting it', async () => {
      const { idOrder, code } = await placePaidLaterOrder('22.00');
      clockOffsetMinutes += 61;
      for (let i = 0; i < 100 && (await transactionStatus(code)) !== 'expired'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(await transactionStatus(code)).toBe('expired');
      await poll();
      const cancelled = await view(idOrder);
      expect(cancelled.current_state).toBe(cancelled.states.canceled);
      expect(cancelled.checkouts[0]).toMatchObject({ applied_action: 'cancel_expired', resolution: null });
      expect(cancelled.messages.at(-1)).toBe(
        `Crypto Checkout: the checkout ${code} expired without payment.`,
      );

      await service.pay(code, 'full');
      const delivery = await deliveredWebhook(code);
      expect(delivery.attempts[0]?.http_status).toBe(200);
      const late = await view(idOrder);
      expect(late.current_state).toBe(late.states.review);
      expect(late.state_name).toBe('Crypto payment to review');
      expect(late.payments).toEqual([]);
      expect(late.history).not.toContain(late.states.payment);
      expect(late.messages.at(-1)).toContain(
        'after the order was cancelled. Review it before fulfilling or refunding.',
      );
      // One message: the hold's note is the owner's notice too.
      expect(
        late.messages.filter((message) => message.includes('after the order was cancelled.')),
      ).toHaveLength(1);
      expect(late.checkouts[0]).toMatchObject({ applied_action: 'hold_late_payment', resolution: 'flagged' });

      // Neither the poll nor the return page turn it into a paid order later.
      await ageLastCheck(idOrder, 3600);
      await poll();
      await confirmationPage(idOrder);
      expect((await view(idOrder)).history).toEqual(late.history);

      // The merchant sees the note on the order page.
      const panel = String(
        await bridge.runJson(
          `HarnessShop::actAsEmployee(); echo json_encode(Hook::exec('displayAdminOrderMainBottom', ['id_order' => ${idOrder}]));`,
        ),
      );
      expect(panel).toContain('data-cryptocheckout-notes');
      expect(panel).toContain('after the order was cancelled. Review it before fulfilling or refunding.');
      // Labels and amounts, not the service's or the kernel's codes.
      expect(panel).toContain('Late payment — review');
      expect(panel).toContain('Handed to you for review');
      expect(panel).toMatch(/data-cryptocheckout-received>\d+\.\d{2} USD</);
      expect(panel).not.toMatch(/>\s*(settled|expired|late_payment_review|hold_late_payment|flagged)\b/);
    });

    it('treats an order the merchant cancelled by hand like a cancelled one', async () => {
      const { idOrder, code } = await placePaidLaterOrder('11.00');
      await bridge.runJson(
        `(new Order(${idOrder}))->setCurrentState((int) Configuration::get('PS_OS_CANCELED'), 1); echo 'true';`,
      );
      await service.pay(code, 'full');
      await deliveredWebhook(code);
      const order = await view(idOrder);
      expect(order.current_state).toBe(order.states.review);
      expect(order.payments).toEqual([]);
    });

    it('flags a crypto payment on an order the merchant had marked paid, instead of booking it twice', async () => {
      const { idOrder, code } = await placePaidLaterOrder('13.00');
      // Paid another way: the merchant sets "Payment accepted", and PrestaShop books that payment.
      await bridge.runJson(
        `(new Order(${idOrder}))->setCurrentState((int) Configuration::get('PS_OS_PAYMENT'), 1); echo 'true';`,
      );
      const byHand = await view(idOrder);
      expect(byHand.payments).toHaveLength(1);

      await service.pay(code, 'full');
      expect((await deliveredWebhook(code)).attempts[0]?.http_status).toBe(200);
      const order = await view(idOrder);
      expect(order.current_state).toBe(order.states.payment);
      expect(order.payments).toEqual(byHand.payments);
      expect(order.history).toEqual(byHand.history);
      expect(order.checkouts[0]).toMatchObject({
        applied_action: 'flag_extra_payment',
        resolution: 'flagged',
      });
      expect(order.messages.at(-1)).toContain(`transaction ${code} received`);
      expect(order.messages.at(-1)).toContain('the order was already paid');
    });

    it('tells the buyer a payment is being confirmed, never "closed" nor offers a new payment, while a webhook books it', async () => {
      bridge.offline.add('/module/cryptocheckout/webhook');
      const { idOrder, code, cart } = await placePaidLaterOrder('18.00');
      await service.pay(code, 'full');
      const delivery = await deliveredWebhook(code);
      bridge.offline.delete('/module/cryptocheckout/webhook');
      const statusPath = `/module/cryptocheckout/status?id_order=${idOrder}&key=${encodeURIComponent(cart.secure_key)}`;
      // As the shop last saw it, the payment window closed a minute ago; the payment arrived just
      // before, and the webhook's request holds the order while it books it.
      const now = Math.floor(Date.now() / 1000);
      await rewriteCheckouts(idOrder, { expires_at: `${now - 60}`, checked_at: `${now - 120}` });
      await holdClaim(idOrder, code, 30);
      const confirming = {
        state: 'awaiting_payment',
        message: 'Payment received. Confirming it with the shop; this page updates by itself.',
        terminal: false,
        checkout_url: null,
      };
      const answer = await bridge.request(statusPath);
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body).data).toEqual(confirming);
      const page = await confirmationPage(idOrder);
      expect(page.body).toContain('Payment received. Confirming it with the shop');
      expect(page.body).not.toContain('The payment window has closed');
      expect(page.body).not.toContain('data-cryptocheckout-retry');
      expect((await view(idOrder)).current_state).toBe((await view(idOrder)).states.awaiting);

      // The webhook's request ends; the same webhook and the buyer's status requests now race.
      await holdClaim(idOrder, code, -1);
      const raced = await Promise.all([
        bridge.request('/module/cryptocheckout/webhook', { method: 'POST', body: delivery.body }),
        ...Array.from({ length: 3 }, () => bridge.request(statusPath)),
      ]);
      expect(raced[0]!.status).toBe(200);
      for (const status of raced.slice(1)) {
        const data = (JSON.parse(status.body) as { data: Record<string, unknown> }).data;
        if (data.state === 'paid') expect(data.terminal).toBe(true);
        else expect(data).toEqual(confirming);
      }
      await ageLastCheck(idOrder, 10);
      expect(JSON.parse((await bridge.request(statusPath)).body).data).toMatchObject({
        state: 'paid',
        terminal: true,
      });
      const order = await view(idOrder);
      expect(order.current_state).toBe(order.states.payment);
      expect(order.payments).toHaveLength(1);
      expect(order.history).toEqual([order.states.awaiting, order.states.payment]);
    });

    /**
     * Sends `count` requests as one client (X-Forwarded-For from the loopback proxy, read by
     * PrestaShop's Tools::getRemoteAddr()); when they did not all fall in one minute window (the
     * kernel counts per window), again as another client, so the count checked is one window's.
     */
    async function burst(count: number, send: (client: string) => Promise<BridgeResponse>) {
      for (let attempt = 1; ; attempt++) {
        const client = `203.0.113.${(++clients % 250) + 1}`;
        const window = Math.floor(Date.now() / 60_000);
        const answers: BridgeResponse[] = [];
        for (let i = 0; i < count; i++) answers.push(await send(client));
        if (Math.floor(Date.now() / 60_000) === window || attempt === 3) return answers;
      }
    }
    let clients = 0;

    it('throttles the webhook and the status endpoint per client: 429 with Retry-After, other clients still served', async () => {
      const { idOrder, cart } = await placePaidLaterOrder('7.00');
      const unknown = JSON.stringify({
        event: 'transaction.settled',
        transaction_code: '00000000-0000-4000-8000-000000000000',
        external_reference: 'X',
        fiat_amount: 7,
        fiat_currency: 'EUR',
        received_usd: 8,
        wallet_address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
        wallet_currency: 'USDC',
        wallet_network: 'POLYGON',
        payout_dispatched: true,
        timestamp: 1_790_000_000,
      });
      const webhook = (client: string) =>
        bridge.request('/module/cryptocheckout/webhook', {
          method: 'POST',
          body: unknown,
          headers: { 'x-forwarded-for': client },
        });
      const status = (client: string) =>
        bridge.request(
          `/module/cryptocheckout/status?id_order=${idOrder}&key=${encodeURIComponent(cart.secure_key)}`,
          {
            headers: { 'x-forwarded-for': client },
          },
        );
      for (const [send, limit] of [
        [webhook, 60],
        [status, 30],
      ] as const) {
        const answers = await burst(limit + 1, send);
        expect(answers.slice(0, limit).map((answer) => answer.status)).toEqual(Array(limit).fill(200));
        const limited = answers[limit]!;
        expect(limited.status).toBe(429);
        expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
        expect(JSON.parse(limited.body)).toMatchObject({ status: 'error', error: { code: 'rate_limited' } });
        expect((await send('198.51.100.7')).status).toBe(200);
      }
    });

    it('wrote nothing to stderr', () => {
      expect(bridge.errors).toEqual([]);
    });
  });
}
