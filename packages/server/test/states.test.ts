import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkoutBody,
  eventually,
  manualClock,
  startTestServer,
  startWebhookReceiver,
  type TestServer,
} from './helpers.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.dispose();
  server = undefined;
});

async function pay(target: TestServer, code: string, body: Record<string, unknown> = {}) {
  return target.post('/api/sandbox/pay', { transaction_code: code, payment_method: 'usdc_polygon', ...body });
}

describe('transaction states', () => {
  it('expires after the expiry window, by lookup and by the background sweep', async () => {
    const clock = manualClock();
    server = await startTestServer({ clock: clock.now, expiryMinutes: 30, sweepIntervalMs: 20 });
    const first = await server.client.createCheckout(checkoutBody());
    const second = await server.client.createCheckout(checkoutBody({ external_reference: 'order-2' }));
    expect(first.expires_at).toBe('2026-11-01T10:30:00.000Z');
    clock.advanceMinutes(29);
    expect((await server.client.getTransaction(first.transaction_code)).status).toBe('pending');
    clock.advanceMinutes(1);
    expect((await server.client.getTransaction(first.transaction_code)).status).toBe('expired');
    // Nobody looked the second one up: the background sweep expired it in the database.
    const file = new SQLite(join(server.dataDir, 'cryptocheckout.sqlite'), { readonly: true });
    try {
      await eventually(() => {
        const row = file
          .prepare('select status from transactions where transaction_code = ?')
          .get(second.transaction_code);
        expect(row).toEqual({ status: 'expired' });
      });
    } finally {
      file.close();
    }
    // Instructions for an expired checkout are refused; a new checkout is needed.
    const link = await server.get(
      `/api/payment_link?transaction_code=${first.transaction_code}&payment_method=usdc_polygon`,
    );
    expect(link.status).toBe(409);
    expect(link.json.error.code).toBe('conflict');
  });

  it('goes underpaid on a partial payment, then settles when topped up', async () => {
    server = await startTestServer();
    const created = await server.client.createCheckout(checkoutBody());
    const partial = await pay(server, created.transaction_code, { size: 'partial' });
    expect(partial.json.data).toMatchObject({
      status: 'underpaid',
      received_usd: 13.55,
      payout_dispatched: false,
    });
    // The payment link now asks only for what is still due.
    const link = await server.client.getPaymentLink({
      transaction_code: created.transaction_code,
      payment_method: 'usdc_polygon',
    });
    expect(link.kind === 'crypto' && link.amount).toBe('13.56');
    // The hosted page prices every rail for the rest, fiat rails in the order's currency at the locked rate.
    const { paymentOptions } = await server.service.getCheckoutDetails(created.transaction_code);
    expect(paymentOptions.find((option) => option.slug === 'card')).toMatchObject({
      amount: '12.51',
      asset: 'EUR',
      amount_usd: 13.56,
    });
    const topUp = await pay(server, created.transaction_code, { size: 'full' });
    expect(topUp.json.data).toMatchObject({
      status: 'settled',
      received_usd: 27.11,
      payout_dispatched: true,
    });
    expect(topUp.json.data.payments).toHaveLength(2);
  });

  it('settles an overpayment and records what was received', async () => {
    server = await startTestServer();
    const created = await server.client.createCheckout(checkoutBody());
    const over = await pay(server, created.transaction_code, { size: 'over' });
    expect(over.json.data).toMatchObject({ status: 'settled', received_usd: 29.83 });
  });

  it('shows processing until an unconfirmed payment confirms', async () => {
    const clock = manualClock();
    server = await startTestServer({ clock: clock.now, sandboxConfirmationSeconds: 30 });
    const created = await server.client.createCheckout(checkoutBody());
    const seen = await pay(server, created.transaction_code, { confirmed: false });
    expect(seen.json.data).toMatchObject({ status: 'processing', received_usd: 0 });
    clock.advanceSeconds(31);
    expect(await server.client.getTransaction(created.transaction_code)).toMatchObject({
      status: 'settled',
      received_usd: 27.11,
      late: false,
    });
  });

  it('settles a payment seen before expiry that confirms after it, on time', async () => {
    const clock = manualClock();
    server = await startTestServer({ clock: clock.now, expiryMinutes: 10, sandboxConfirmationSeconds: 120 });
    const created = await server.client.createCheckout(checkoutBody());
    clock.advanceMinutes(9);
    await pay(server, created.transaction_code, { confirmed: false });
    clock.advanceMinutes(1.5);
    expect((await server.client.getTransaction(created.transaction_code)).status).toBe('processing');
    clock.advanceMinutes(1);
    expect(await server.client.getTransaction(created.transaction_code)).toMatchObject({
      status: 'settled',
      late: false,
    });
  });

  it('settles a full payment after expiry as late, sends the webhook, and refuses payments after monitoring ends', async () => {
    const clock = manualClock();
    const receiver = await startWebhookReceiver();
    server = await startTestServer({ clock: clock.now, expiryMinutes: 60, lateWindowHours: 24 });
    try {
      const late = await server.client.createCheckout(checkoutBody({ webhook_url: receiver.url }));
      const tooLate = await server.client.createCheckout(checkoutBody({ external_reference: 'order-late' }));
      clock.advanceMinutes(90);
      expect((await server.client.getTransaction(late.transaction_code)).status).toBe('expired');
      const paid = await pay(server, late.transaction_code);
      expect(paid.status).toBe(200);
      expect(paid.json.data).toMatchObject({ status: 'settled', late: true, received_usd: 27.11 });
      await receiver.waitFor(1);
      expect(JSON.parse(receiver.received[0]!.body).transaction_code).toBe(late.transaction_code);

      clock.advanceMinutes(24 * 60);
      const refused = await pay(server, tooLate.transaction_code);
      expect(refused.status).toBe(409);
      expect(refused.json.error.message).toMatch(/no longer monitored/);
    } finally {
      await receiver.close();
    }
  });

  it('applies one settlement under concurrent payments and lookups', async () => {
    const receiver = await startWebhookReceiver();
    server = await startTestServer();
    try {
      const created = await server.client.createCheckout(checkoutBody({ webhook_url: receiver.url }));
      const code = created.transaction_code;
      await Promise.all([
        pay(server, code, { size: 'partial' }),
        pay(server, code, { size: 'partial' }),
        ...Array.from({ length: 10 }, () => server!.client.getTransaction(code)),
      ]);
      await pay(server, code, { amount_usd: '27.11' });
      const final = await server.client.getTransaction(code);
      expect(final.status).toBe('settled');
      await receiver.waitFor(1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });
});
