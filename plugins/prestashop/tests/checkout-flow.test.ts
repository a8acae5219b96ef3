import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningServer, startServer } from '@cryptocheckout/server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PHP_VERSIONS, phpString } from '../../../packages/php-testkit/src/index.js';
import { installAndConfigure, type ModuleCopy, prepareModule, ShopBridge } from './harness/harness.js';

// The whole payment journey against the real reference server: the buyer places the order
// through the validation controller, the server really POSTs its webhook to the module's webhook
// controller (served by the harness bridge from php-wasm), and the poll, status and return paths
// reconcile what webhooks missed. Two interpreters per PHP version let concurrent webhooks race.

const copy: ModuleCopy = await prepareModule();
const serverData = mkdtempSync(join(tmpdir(), 'cc-prestashop-flow-'));
let server: RunningServer;
/** Minutes added to the server's clock, to let checkouts expire. Only ever grows. */
let clockOffsetMinutes = 0;

beforeAll(async () => {
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir: serverData,
    mode: 'sandbox',
    logLevel: 'silent',
    sweepIntervalMs: 100,
    clock: () => new Date(Date.now() + clockOffsetMinutes * 60_000),
  });
});

afterAll(async () => {
  await server?.close();
  copy.remove();
  rmSync(serverData, { recursive: true, force: true });
});

interface OrderView {
  id_order: number;
  reference: string;
  current_state: number;
  state_name: string;
  history: number[];
  payments: Array<{ amount: string; transaction_id: string; payment_method: string }>;
  messages: string[];
  row: Record<string, string | null> | null;
  states: Record<string, number>;
  orders_for_cart: number;
}

async function sandboxPay(code: string, size: 'full' | 'partial'): Promise<void> {
  const response = await fetch(`${server.url}/api/sandbox/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ transaction_code: code, payment_method: 'usdc_polygon', size }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
}

interface Delivery {
  body: string;
  state: string;
  attempts: Array<{ http_status: number | null }>;
}

/** Waits until the server has tried to deliver the webhook of `code`, and returns the delivery. */
async function deliveredWebhook(code: string): Promise<Delivery> {
  for (let i = 0; i < 200; i++) {
    const response = await fetch(`${server.url}/api/sandbox/webhooks?transaction_code=${code}`);
    const deliveries = ((await response.json()) as { data: { deliveries: Delivery[] } }).data.deliveries;
    const done = deliveries.find((delivery) => delivery.attempts.length > 0);
    if (done) return done;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no webhook attempt for ${code}`);
}

async function transactionStatus(code: string): Promise<string> {
  const response = await fetch(`${server.url}/api/transaction?transaction_code=${code}`);
  return ((await response.json()) as { data: { status: string } }).data.status;
}

for (const version of PHP_VERSIONS) {
  describe(`PrestaShop checkout flow [PHP ${version}]`, () => {
    const bridge = new ShopBridge(version, copy.mounts, `flow-${version}.sqlite`, 2);

    beforeAll(async () => {
      await bridge.start();
      await bridge.runJson(`${installAndConfigure(server.url)} echo json_encode(true);`);
    });

    afterAll(async () => {
      await bridge.stop();
    });

    afterEach(() => {
      bridge.offline.clear();
    });

    const view = (idOrder: number) =>
      bridge.runJson(`
Module::getInstanceByName('cryptocheckout');
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
    'messages' => array_column(Message::getMessagesByOrderId($order->id, true), 'message'),
    'row' => (new CryptoCheckout\\PrestaShop\\TransactionRepository())->findByOrder((int) $order->id),
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
      return { ...placed, order, code: String(order.row?.transaction_code) };
    }

    const pollPath = async () => {
      const token = await bridge.runJson(
        `echo json_encode(Configuration::get('CRYPTOCHECKOUT_POLL_TOKEN'));`,
      );
      return `/module/cryptocheckout/poll?token=${encodeURIComponent(String(token))}`;
    };

    it('creates the order awaiting payment, then its checkout, and redirects the buyer to it', async () => {
      const { response, idOrder, cart } = await placeOrder('25.00');
      const order = await view(idOrder);
      expect(order.current_state).toBe(order.states.awaiting);
      expect(order.state_name).toBe('Awaiting crypto payment');
      expect(order.payments).toEqual([]);
      const row = order.row!;
      expect(row).toMatchObject({
        id_cart: String(cart.id_cart),
        fiat_amount: '25.00',
        fiat_currency: 'EUR',
        wallet_address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
        wallet_currency: 'USDC',
        wallet_network: 'POLYGON',
        state: 'awaiting_payment',
      });
      expect(response.status).toBe(302);
      expect(response.headers.location).toBe(row.checkout_url);
      expect(row.checkout_url).toBe(`${server.url}/pay/${row.transaction_code}`);

      const lookup = await fetch(`${server.url}/api/transaction?transaction_code=${row.transaction_code}`);
      const data = ((await lookup.json()) as { data: Record<string, unknown> }).data;
      expect(data).toMatchObject({
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
      expect(again.headers.location).toBe(first.order.row?.checkout_url);
      const order = await view(first.idOrder);
      expect(order.orders_for_cart).toBe(1);
      expect(order.row?.transaction_code).toBe(first.code);
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
      const { idOrder, cart } = await placePaidLaterOrder('6.00');
      await bridge.runJson(
        `Db::getInstance()->update('cryptocheckout_transaction', ['last_checked' => null], 'id_order = ${idOrder}', 0, true); echo 'true';`,
      );
      await config('CRYPTOCHECKOUT_SERVICE_URL', 'http://127.0.0.1:9');
      const answer = await bridge.request(
        `/module/cryptocheckout/status?id_order=${idOrder}&key=${encodeURIComponent(cart.secure_key)}`,
      );
      await config('CRYPTOCHECKOUT_SERVICE_URL', server.url);
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ data: { state: 'awaiting_payment', final: false } });
      const order = await view(idOrder);
      expect(order.row?.last_checked).not.toBeNull();
    });

    it('sends amounts with the currency decimals (JPY has none)', async () => {
      const { idOrder } = await placeOrder('1500', 'JPY');
      const order = await view(idOrder);
      expect(order.row).toMatchObject({ fiat_amount: '1500', fiat_currency: 'JPY' });
    });

    it('marks the order paid once when the server delivers its webhook', async () => {
      await config('CRYPTOCHECKOUT_DEBUG', '1');
      const { idOrder, code } = await placePaidLaterOrder('25.00');
      await sandboxPay(code, 'full');
      const delivery = await deliveredWebhook(code);
      expect(delivery.attempts[0]?.http_status).toBe(200);
      const order = await view(idOrder);
      expect(order.current_state).toBe(order.states.payment);
      expect(order.payments).toHaveLength(1);
      expect(order.payments[0]).toMatchObject({ transaction_id: code, payment_method: 'Crypto Checkout' });
      expect(Number(order.payments[0]?.amount)).toBe(25);
      expect(order.history).toEqual([order.states.awaiting, order.states.payment]);
      expect(order.row?.state).toBe('paid');
      expect(order.messages.at(-1)).toMatch(/^Crypto Checkout: payment of [\d.]+ USD settled/);
      await config('CRYPTOCHECKOUT_DEBUG', '0');
      // With debug logging on, each step went to PrestaShop's log.
      const trace = (await bridge.runJson(
        `echo json_encode(array_column(Db::getInstance()->executeS('SELECT message FROM ps_log WHERE object_id = ${idOrder} AND severity = 1 ORDER BY id_log'), 'message'));`,
      )) as string[];
      expect(trace).toEqual([
        `Crypto Checkout: order ${idOrder}: checkout ${code} created`,
        `Crypto Checkout: order ${idOrder}: mark_paid (settled)`,
        `Crypto Checkout: order ${idOrder} moved to paid`,
      ]);

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

      // The buyer's confirmation page shows it.
      const page = await bridge.request(
        `/index.php?controller=order-confirmation&id_cart=${order.row?.id_cart}&id_module=1&id_order=${idOrder}&key=${encodeURIComponent(await secureKey(idOrder))}`,
      );
      expect(page.body).toContain('Payment received. Thank you!');
      expect(page.body).toContain('data-state="paid"');
      expect(page.body).not.toContain('data-cryptocheckout-pay');
      expect(page.body).toContain('scripts: modules-cryptocheckout-front');
    });

    async function secureKey(idOrder: number): Promise<string> {
      return String(await bridge.runJson(`echo json_encode((new Order(${idOrder}))->secure_key);`));
    }

    it('pays once however many copies of the webhook race', async () => {
      bridge.offline.add('/module/cryptocheckout/webhook');
      const { idOrder, code } = await placePaidLaterOrder('42.50');
      await sandboxPay(code, 'full');
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
      // Two requests ran side by side: the one that lost the conditional state change saw the order
      // still awaiting payment, decided "paid" as well, and was stopped by the guard.
      expect(results).toContain('lost_race');
      for (const result of results) expect(['applied', 'lost_race', 'unchanged']).toContain(result);

      const order = await view(idOrder);
      expect(order.payments).toHaveLength(1);
      expect(order.history.filter((state) => state === order.states.payment)).toHaveLength(1);
      expect(order.messages.filter((message) => message.includes('settled'))).toHaveLength(1);
    });

    it('ignores a forged webhook: the lookup says the transaction is still pending', async () => {
      const { idOrder, code } = await placePaidLaterOrder('19.99');
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
      const order = await view(idOrder);
      expect(order.current_state).toBe(order.states.awaiting);
      expect(order.payments).toEqual([]);
      expect(order.row?.last_status).toBe('pending');

      const unknown = await bridge.request('/module/cryptocheckout/webhook', {
        method: 'POST',
        body: JSON.stringify({ ...forged, transaction_code: '00000000-0000-4000-8000-000000000000' }),
      });
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

      const get = await bridge.request('/module/cryptocheckout/webhook');
      expect(get.status).toBe(405);
      expect(get.headers.allow).toBe('POST');
    });

    it('ignores a lookup that does not match the order (amount changed on the shop side)', async () => {
      const { idOrder, code } = await placePaidLaterOrder('30.00');
      await bridge.runJson(
        `Db::getInstance()->update('cryptocheckout_transaction', ['fiat_amount' => '31.00'], 'id_order = ${idOrder}'); echo 'true';`,
      );
      await sandboxPay(code, 'full');
      await deliveredWebhook(code);
      const order = await view(idOrder);
      expect(order.current_state).toBe(order.states.awaiting);
      expect(order.payments).toEqual([]);
      const logged = await bridge.runJson(
        `echo json_encode(Db::getInstance()->getValue("SELECT message FROM ps_log WHERE object_id = ${idOrder} AND severity = 3 ORDER BY id_log DESC"));`,
      );
      expect(String(logged)).toBe(
        'Crypto Checkout: ignored a transaction whose amount does not match this order. (fiat_amount)',
      );
    });

    it('catches a missed webhook with the scheduled poll', async () => {
      bridge.offline.add('/module/cryptocheckout/webhook');
      const { idOrder, code } = await placePaidLaterOrder('12.00');
      await sandboxPay(code, 'full');
      expect((await deliveredWebhook(code)).attempts[0]?.http_status).toBe(503);
      bridge.offline.delete('/module/cryptocheckout/webhook');
      expect((await view(idOrder)).current_state).toBe((await view(idOrder)).states.awaiting);

      const forbidden = await bridge.request('/module/cryptocheckout/poll?token=wrong');
      expect(forbidden.status).toBe(403);

      const poll = await bridge.request(await pollPath());
      expect(poll.status).toBe(200);
      const summary = JSON.parse(poll.body) as {
        data: { orders: Array<{ id_order: number; result: string; action: string }> };
      };
      expect(summary.data.orders).toContainEqual({
        id_order: idOrder,
        result: 'applied',
        action: 'mark_paid',
      });
      const order = await view(idOrder);
      expect(order.current_state).toBe(order.states.payment);
      expect(order.payments).toHaveLength(1);
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
      expect(JSON.parse(before.body)).toEqual({
        status: 'success',
        data: {
          state: 'awaiting_payment',
          label: 'Waiting for your crypto payment to be confirmed.',
          final: false,
        },
      });
      const pending = await bridge.request(
        `/index.php?controller=order-confirmation&id_cart=${cart.id_cart}&id_module=1&id_order=${idOrder}&key=${key}`,
      );
      expect(pending.body).toContain('data-cryptocheckout-pay');
      expect(pending.body).toContain(`/pay/${code}`);

      await sandboxPay(code, 'full');
      await deliveredWebhook(code);
      bridge.offline.delete('/module/cryptocheckout/webhook');
      const page = await bridge.request(
        `/index.php?controller=order-confirmation&id_cart=${cart.id_cart}&id_module=1&id_order=${idOrder}&key=${key}`,
      );
      expect(page.body).toContain('Payment received. Thank you!');
      const order = await view(idOrder);
      expect(order.current_state).toBe(order.states.payment);
      const after = await bridge.request(`/module/cryptocheckout/status?id_order=${idOrder}&key=${key}`);
      expect(JSON.parse(after.body)).toMatchObject({ data: { state: 'paid', final: true } });

      const wrongKey = await bridge.request(`/module/cryptocheckout/status?id_order=${idOrder}&key=nope`);
      expect(wrongKey.status).toBe(404);
    });

    it('holds an underpaid order with a note, then completes it when topped up', async () => {
      const { idOrder, code } = await placePaidLaterOrder('40.00');
      await sandboxPay(code, 'partial');
      expect(await transactionStatus(code)).toBe('underpaid');
      await bridge.request(await pollPath());
      const held = await view(idOrder);
      expect(held.current_state).toBe(held.states.underpaid);
      expect(held.state_name).toBe('Crypto payment underpaid');
      expect(held.payments).toEqual([]);
      expect(held.messages.at(-1)).toMatch(
        /^Crypto Checkout: received [\d.]+ USD of [\d.]+ USD; [\d.]+ USD is still due\./,
      );

      // Polling again leaves it alone.
      await bridge.request(await pollPath());
      expect((await view(idOrder)).history).toEqual(held.history);

      await sandboxPay(code, 'full');
      await deliveredWebhook(code);
      const paid = await view(idOrder);
      expect(paid.current_state).toBe(paid.states.payment);
      expect(paid.payments).toHaveLength(1);
      expect(paid.history).toEqual([paid.states.awaiting, paid.states.underpaid, paid.states.payment]);
    });

    it('keeps the order and offers a retry when the service is down at checkout', async () => {
      await config('CRYPTOCHECKOUT_SERVICE_URL', 'http://127.0.0.1:9');
      const { idOrder, response, cart } = await placeOrder('15.00');
      await config('CRYPTOCHECKOUT_SERVICE_URL', server.url);
      expect(response.status).toBe(200);
      expect(response.body).toContain('The crypto payment service cannot be reached right now');
      const retry = /data-cryptocheckout-retry href="([^"]+)"/
        .exec(response.body)?.[1]
        ?.replaceAll('&amp;', '&');
      expect(retry).toBeDefined();
      const order = await view(idOrder);
      expect(order.current_state).toBe(order.states.awaiting);
      expect(order.row).toMatchObject({
        transaction_code: null,
        state: 'awaiting_payment',
        fiat_amount: '15.00',
      });
      const logged = await bridge.runJson(
        `echo json_encode(Db::getInstance()->getValue("SELECT message FROM ps_log WHERE object_id = ${idOrder} AND severity = 3"));`,
      );
      expect(String(logged)).toContain(`creating the checkout of order ${idOrder} failed`);

      // Following the retry link creates the checkout for the same order.
      const retried = await bridge.request(new URL(retry!).pathname + new URL(retry!).search);
      expect(retried.status).toBe(302);
      const after = await view(idOrder);
      expect(retried.headers.location).toBe(after.row?.checkout_url);
      expect(after.orders_for_cart).toBe(1);
      // A forged key is turned away.
      const forged = await bridge.request(`/module/cryptocheckout/validation?id_order=${idOrder}&key=forged`);
      expect(forged.status).toBe(302);
      expect(forged.headers.location).toContain('controller=history');
      expect(cart.id_cart).toBeGreaterThan(0);
    });

    it('shows the checkout over the shop in embedded mode', async () => {
      await config('CRYPTOCHECKOUT_DISPLAY_MODE', 'embedded');
      const { response, idOrder } = await placeOrder('9.00');
      await config('CRYPTOCHECKOUT_DISPLAY_MODE', 'redirect');
      expect(response.status).toBe(200);
      const order = await view(idOrder);
      expect(response.body).toContain('data-cryptocheckout-embed');
      expect(response.body).toContain(`data-checkout-url="${order.row?.checkout_url}"`);
      expect(response.body).toContain('data-return-url="');
    });

    it('shows the transaction on the back office order page', async () => {
      const { idOrder, code } = await placePaidLaterOrder('5.00');
      const html = String(
        await bridge.runJson(
          `HarnessShop::actAsEmployee(); echo json_encode(Hook::exec('displayAdminOrderMainBottom', ['id_order' => ${idOrder}]));`,
        ),
      );
      expect(html).toContain(code);
      expect(html).toContain('awaiting_payment');
      expect(html).toContain('5.00 EUR');

      // The customer's order page shows the status box, without asking the service.
      const detail = String(
        await bridge.runJson(
          `echo json_encode(Hook::exec('displayOrderDetail', ['order' => new Order(${idOrder})]));`,
        ),
      );
      expect(detail).toContain('data-cryptocheckout-status');
      expect(detail).toContain('data-state="awaiting_payment"');
      expect(detail).toContain(`/pay/${code}`);
    });

    it('cancels an expired order, then holds a late payment for review instead of accepting it', async () => {
      const { idOrder, code } = await placePaidLaterOrder('22.00');
      clockOffsetMinutes += 61;
      for (let i = 0; i < 100 && (await transactionStatus(code)) !== 'expired'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(await transactionStatus(code)).toBe('expired');
      await bridge.request(await pollPath());
      const cancelled = await view(idOrder);
      expect(cancelled.current_state).toBe(cancelled.states.canceled);
      expect(cancelled.row?.state).toBe('cancelled');
      expect(cancelled.messages.at(-1)).toBe(
        `Crypto Checkout: the checkout ${code} expired without payment.`,
      );

      await sandboxPay(code, 'full');
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

      // Neither the poll nor the return page turn it into a paid order later.
      await bridge.request(await pollPath());
      expect((await view(idOrder)).history).toEqual(late.history);
    });

    it('treats an order the merchant cancelled by hand like a cancelled one', async () => {
      const { idOrder, code } = await placePaidLaterOrder('11.00');
      await bridge.runJson(
        `(new Order(${idOrder}))->setCurrentState((int) Configuration::get('PS_OS_CANCELED'), 1); echo 'true';`,
      );
      await sandboxPay(code, 'full');
      await deliveredWebhook(code);
      const order = await view(idOrder);
      expect(order.current_state).toBe(order.states.review);
      expect(order.payments).toEqual([]);
    });

    it('wrote nothing to stderr', () => {
      expect(bridge.errors).toEqual([]);
    });
  });
}
