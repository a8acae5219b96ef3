import { paymentOptionsSchema, settledWebhookSchema, transactionSchema } from '@cryptocheckout/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkoutBody,
  eventually,
  POLYGON_WALLET,
  startTestServer,
  startWebhookReceiver,
  type TestServer,
} from './helpers.js';

let server: TestServer;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

beforeAll(async () => {
  server = await startTestServer();
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await server.dispose();
  await receiver.close();
});

describe('checkout lifecycle over HTTP', () => {
  it('prices options, creates a checkout, pays it by a crypto rail and sends the exact webhook', async () => {
    const options = await server.client.getPaymentOptions({ fiat_amount: '25.00', fiat_currency: 'EUR' });
    expect(paymentOptionsSchema.parse(options).amount_in_usd).toBe(27.11); // 25.00 × 1.0845 = 27.1125 → 27.11
    const slugs = options.payment_options.map((option) => option.slug);
    for (const slug of [
      'usdc_polygon',
      'usdc_ethereum',
      'usdt_tron',
      'btc_bitcoin',
      'eth_ethereum',
      'card',
      'bank_transfer',
    ]) {
      expect(slugs).toContain(slug);
    }
    const usdcPolygon = options.payment_options.find((option) => option.slug === 'usdc_polygon')!;
    expect(usdcPolygon).toMatchObject({
      kind: 'crypto',
      asset: 'USDC',
      network: 'POLYGON',
      amount: '27.11',
      available: true,
    });
    // Ethereum L1 rails start at 10 USD, so a 5 EUR order cannot use them.
    const small = await server.client.getPaymentOptions({ fiat_amount: 5, fiat_currency: 'EUR' });
    expect(small.payment_options.find((option) => option.slug === 'usdc_ethereum')?.available).toBe(false);

    const created = await server.client.createCheckout(checkoutBody({ webhook_url: receiver.url }));
    expect(created.checkout_url).toBe(`${server.url}/pay/${created.transaction_code}`);
    expect(created.amount_in_usd).toBe(27.11);
    expect(created.payment_options.length).toBeGreaterThan(5);

    const pending = await server.client.getTransaction(created.transaction_code);
    expect(pending).toMatchObject({
      status: 'pending',
      received_usd: 0,
      payout_dispatched: false,
      fiat_amount: 25,
    });

    const link = await server.client.getPaymentLink({
      transaction_code: created.transaction_code,
      payment_method: 'usdc_polygon',
    });
    expect(link.kind).toBe('crypto');
    if (link.kind !== 'crypto') throw new Error('expected crypto');
    expect(link.amount).toBe('27.11');
    expect(link.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(link.uri).toBe(
      `ethereum:0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359@137/transfer?address=${link.address}&uint256=27110000`,
    );
    // The deposit address is stable per transaction and rail.
    const again = await server.client.getPaymentLink({
      transaction_code: created.transaction_code,
      payment_method: 'usdc_polygon',
    });
    expect(again.kind === 'crypto' && again.address).toBe(link.address);

    const paid = await server.post('/api/sandbox/pay', {
      transaction_code: created.transaction_code,
      payment_method: 'usdc_polygon',
      size: 'full',
    });
    expect(paid.status).toBe(200);
    const settled = transactionSchema.parse(paid.json.data);
    expect(settled).toMatchObject({
      status: 'settled',
      received_usd: 27.11,
      payout_dispatched: true,
      late: false,
    });
    expect(settled.payment_method).toBe('usdc_polygon');
    expect(settled.payments).toHaveLength(1);
    expect(settled.settled_at).not.toBeNull();

    const [webhook] = await receiver.waitFor(1);
    const body = JSON.parse(webhook!.body);
    expect(Object.keys(body).sort()).toEqual(
      [
        'event',
        'external_reference',
        'fiat_amount',
        'fiat_currency',
        'payout_dispatched',
        'received_usd',
        'timestamp',
        'transaction_code',
        'wallet_address',
        'wallet_currency',
        'wallet_network',
      ].sort(),
    );
    expect(settledWebhookSchema.parse(body)).toEqual({
      event: 'transaction.settled',
      transaction_code: created.transaction_code,
      external_reference: 'order-1001',
      fiat_amount: 25,
      fiat_currency: 'EUR',
      received_usd: 27.11,
      wallet_address: POLYGON_WALLET,
      wallet_currency: 'USDC',
      wallet_network: 'POLYGON',
      payout_dispatched: true,
      timestamp: expect.any(Number),
    });
    expect(Math.abs(body.timestamp - Date.now() / 1000)).toBeLessThan(60);
    expect(webhook!.headers['content-type']).toBe('application/json');
    expect(webhook!.headers['x-cryptocheckout-signature']).toBeUndefined();

    const delivery = await eventually(async () => {
      const deliveries = await server.get(
        `/api/sandbox/webhooks?transaction_code=${created.transaction_code}`,
      );
      const [first] = deliveries.json.data.deliveries;
      expect(first.state).toBe('delivered');
      return first;
    });
    expect(delivery.attempts).toHaveLength(1);
    expect(delivery.attempts[0]).toMatchObject({ http_status: 200, error: null });
    expect(delivery.attempts[0].latency_ms).toBeGreaterThanOrEqual(0);

    // Settled is terminal: another payment is refused and no second webhook is sent.
    const more = await server.post('/api/sandbox/pay', {
      transaction_code: created.transaction_code,
      payment_method: 'usdc_polygon',
    });
    expect(more.status).toBe(409);
    expect(more.json.error.code).toBe('conflict');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received).toHaveLength(1);
  });

  it('gives BIP21, Solana Pay and TRON URIs and a fiat redirect', async () => {
    const created = await server.client.createCheckout(
      checkoutBody({ fiat_amount: 100, fiat_currency: 'USD' }),
    );
    const code = created.transaction_code;
    const btc = await server.client.getPaymentLink({ transaction_code: code, payment_method: 'btc_bitcoin' });
    expect(btc.kind === 'crypto' && btc.uri).toMatch(
      /^bitcoin:bc1q[0-9a-z]+\?amount=0\.00146521&label=Crypto%20Checkout$/,
    );
    const solana = await server.client.getPaymentLink({
      transaction_code: code,
      payment_method: 'usdc_solana',
    });
    expect(solana.kind === 'crypto' && solana.uri).toMatch(
      /^solana:[1-9A-HJ-NP-Za-km-z]{32,44}\?amount=100&spl-token=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v&label=/,
    );
    const tron = await server.client.getPaymentLink({ transaction_code: code, payment_method: 'usdt_tron' });
    expect(tron.kind === 'crypto' && tron.uri).toMatch(
      /^tron:T[1-9A-HJ-NP-Za-km-z]{33}\?amount=100&token=TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t$/,
    );
    const eth = await server.client.getPaymentLink({
      transaction_code: code,
      payment_method: 'eth_ethereum',
    });
    expect(eth.kind === 'crypto' && eth.uri).toMatch(
      /^ethereum:0x[0-9a-fA-F]{40}@1\?value=40816330000000000$/,
    );
    const card = await server.client.getPaymentLink({ transaction_code: code, payment_method: 'card' });
    expect(card).toMatchObject({
      kind: 'fiat',
      redirect_url: `${server.url}/sandbox/card/${code}?method=card`,
    });

    // The sandbox card page settles the transaction and returns the buyer to the hosted page.
    const form = await fetch(`${server.url}/sandbox/card/${code}?method=card`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'outcome=pay',
      redirect: 'manual',
    });
    expect(form.status).toBe(303);
    expect(form.headers.get('location')).toBe(`/pay/${code}`);
    const settled = await server.client.getTransaction(code);
    expect(settled).toMatchObject({ status: 'settled', payment_method: 'card', received_usd: 100 });
    expect(settled.payments[0]).toMatchObject({ asset: 'USD', network: null, amount: '100' });
  });

  it('serves the health check and an OpenAPI 3.1 document generated from the schemas', async () => {
    const health = await server.get('/api/health');
    expect(health.json.data).toMatchObject({ ok: true, mode: 'sandbox', storage: 'sqlite' });
    const openapi = await server.get('/api/openapi.json');
    expect(openapi.json.openapi).toBe('3.1.0');
    const paths = Object.keys(openapi.json.paths);
    for (const path of ['/api/payment_options', '/api/checkout', '/api/payment_link', '/api/transaction']) {
      expect(paths).toContain(path);
    }
    const checkoutBodySchema =
      openapi.json.paths['/api/checkout'].post.requestBody.content['application/json'].schema;
    expect(checkoutBodySchema.required).toEqual(
      expect.arrayContaining(['fiat_amount', 'fiat_currency', 'external_reference', 'customer']),
    );
  });
});
