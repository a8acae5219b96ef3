import { ApiError, createCheckoutClient } from '@cryptocheckout/core';
import { SIGNATURE_HEADER, verifyWebhookSignature } from '@cryptocheckout/core/node';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkoutBody,
  manualClock,
  POLYGON_WALLET,
  startTestServer,
  startWebhookReceiver,
  type TestServer,
} from './helpers.js';
import { OPERATOR_TOKEN, operatorRequest } from './operator-helpers.js';
import { AS_OPERATOR, confirmRefundAddress, createRefund, postClaimForm } from './refund-helpers.js';

let server: TestServer | undefined;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>> | undefined;
afterEach(async () => {
  await server?.dispose();
  await receiver?.close();
  server = undefined;
  receiver = undefined;
});

const BUYER_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';

async function settledOrder(target: TestServer, overrides: Record<string, unknown> = {}) {
  const created = await target.client.createCheckout(checkoutBody({ fiat_currency: 'USD', ...overrides }));
  const paid = await target.post('/api/sandbox/pay', {
    transaction_code: created.transaction_code,
    payment_method: 'usdc_polygon',
    confirmed: true,
  });
  expect(paid.json.data.status).toBe('settled');
  return created.transaction_code as string;
}

describe('creating refunds', () => {
  it('refunds in the order currency or the asset, never more than was received, and shows no claim link without a credential', async () => {
    server = await startTestServer({ operatorToken: OPERATOR_TOKEN });
    const code = await settledOrder(server, { fiat_amount: '25.00' });
    const inFiat = await createRefund(server, { transaction_code: code, amount: '10.00', currency: 'USD' });
    expect(inFiat.status).toBe(201);
    expect(inFiat.json.data).toMatchObject({
      status: 'awaiting_address',
      amount: '10',
      asset: 'USDC',
      network: 'POLYGON',
      fiat_amount: '10.00',
      created: true,
      address: null,
      payment_request: null,
    });
    expect(inFiat.json.data.claim_url).toMatch(new RegExp(`^${server.url}/refund/[A-Za-z0-9_-]{43}$`));
    // The creation answer carries the claim link: no cache may keep it, as with the refund detail.
    expect(inFiat.headers.get('cache-control')).toBe('no-store');

    const tooMuch = await createRefund(server, {
      transaction_code: code,
      amount: '15.000001',
      currency: 'USDC',
    });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.json.error).toMatchObject({ code: 'unprocessable', field: 'amount' });
    expect(tooMuch.json.error.message).toContain('at most 15 USDC');
    const rest = await createRefund(server, { transaction_code: code, amount: '15', currency: 'USDC' });
    expect(rest.status).toBe(201);

    const lookup = await server.get(`/api/refund?refund_id=${inFiat.json.data.refund_id}`);
    expect(lookup.json.data.status).toBe('awaiting_address');
    expect(lookup.json.data).not.toHaveProperty('claim_url');
    const ofOrder = await server.get(`/api/refunds?transaction_code=${code}`);
    expect(ofOrder.json.data).toMatchObject({ received: '25', refundable: '0' });
    expect(ofOrder.json.data.refunds).toHaveLength(2);
    expect(JSON.stringify(ofOrder.json.data)).not.toContain('/refund/');
  });

  it('lets exactly one of two refunds racing for the last unit through, and five of ten racing for fifths', async () => {
    server = await startTestServer({ operatorToken: OPERATOR_TOKEN });
    const code = await settledOrder(server, { fiat_amount: '10.00' });
    await createRefund(server, { transaction_code: code, amount: '9.999999', currency: 'USDC' });
    const race = await Promise.all(
      [1, 2].map(() =>
        createRefund(server!, { transaction_code: code, amount: '0.000001', currency: 'USDC' }),
      ),
    );
    expect(race.map((answer) => answer.status).sort()).toEqual([201, 422]);

    const second = await settledOrder(server, { fiat_amount: '10.00' });
    const fifths = await Promise.all(
      Array.from({ length: 10 }, () =>
        createRefund(server!, { transaction_code: second, amount: '2', currency: 'USD' }),
      ),
    );
    expect(fifths.filter((answer) => answer.status === 201)).toHaveLength(5);
    expect(fifths.filter((answer) => answer.status === 422)).toHaveLength(5);
    const sequences = (await server.get(`/api/refunds?transaction_code=${second}`)).json.data;
    expect(sequences).toMatchObject({ refundable: '0' });
    expect(sequences.refunds).toHaveLength(5);
  });

  it('answers the same refund for a repeated reference and refuses the reference for another amount', async () => {
    server = await startTestServer({ operatorToken: OPERATOR_TOKEN });
    const code = await settledOrder(server);
    const body = { transaction_code: code, amount: '5.00', currency: 'USD', reference: 'wc-refund-77' };
    const first = await createRefund(server, body);
    const again = await createRefund(server, body);
    expect(again.status).toBe(200);
    expect(again.json.data).toMatchObject({ refund_id: first.json.data.refund_id, created: false });
    expect(again.json.data.claim_url).toBe(first.json.data.claim_url);
    const other = await createRefund(server, { ...body, amount: '6.00' });
    expect(other.status).toBe(409);
    expect(other.json.error.field).toBe('reference');
  });

  it('refuses an order that is not settled, bad amounts and currencies, naming the field', async () => {
    server = await startTestServer({ operatorToken: OPERATOR_TOKEN });
    const open = await server.client.createCheckout(checkoutBody());
    const pending = await createRefund(server, {
      transaction_code: open.transaction_code,
      amount: '1',
      currency: 'EUR',
    });
    expect(pending.status).toBe(409);
    expect(pending.json.error.message).toContain('pending');
    const code = await settledOrder(server);
    for (const [body, field] of [
      [{ amount: '1', currency: 'BTC' }, 'currency'],
      [{ amount: '1.001', currency: 'USD' }, 'amount'],
      [{ amount: '0.0000001', currency: 'USDC' }, 'amount'],
      [{ amount: '0', currency: 'USDC' }, 'amount'],
      [{ amount: 12, currency: 'USDC' }, 'amount'],
    ] as const) {
      const refused = await createRefund(server, { transaction_code: code, ...body });
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.json.error.field, JSON.stringify(body)).toBe(field);
    }
  });
});

describe('credentials', () => {
  it('needs the operator token or a merchant key for that wallet; revoked keys stop working', async () => {
    server = await startTestServer({ operatorToken: OPERATOR_TOKEN });
    const code = await settledOrder(server);
    const body = { transaction_code: code, amount: '1', currency: 'USDC' };
    const none = await server.post('/api/refunds', body);
    expect(none.status).toBe(401);
    expect(none.json.error.message).toContain('Authorization: Bearer');

    const issued = await operatorRequest(server, '/merchant-keys', {
      body: { label: 'shop.example', wallet_addresses: [POLYGON_WALLET.toLowerCase()] },
    });
    expect(issued.status).toBe(201);
    const key = issued.json.data.key as string;
    expect(key).toMatch(/^ccm_/);
    const other = await operatorRequest(server, '/merchant-keys', {
      body: { label: 'other.example', wallet_addresses: [BUYER_ADDRESS] },
    });
    const forbidden = await createRefund(server, body, { authorization: `Bearer ${other.json.data.key}` });
    expect(forbidden.status).toBe(403);

    const allowed = await createRefund(server, body, { authorization: `Bearer ${key}` });
    expect(allowed.status).toBe(201);
    const detail = await operatorRequest(server, `/refunds/${allowed.json.data.refund_id}`);
    // The detail carries the claim link: never cached, like every operator answer.
    expect(detail.headers.get('cache-control')).toBe('no-store');
    expect(detail.json.data.created_by).toBe('merchant key shop.example');
    const listed = await operatorRequest(server, '/merchant-keys');
    expect(JSON.stringify(listed.json.data)).not.toContain(key);
    expect(listed.json.data.find((row: any) => row.label === 'shop.example').last_used_at).not.toBeNull();

    await operatorRequest(server, `/merchant-keys/${issued.json.data.key_id}/revoke`, { method: 'POST' });
    const revoked = await createRefund(server, body, { authorization: `Bearer ${key}` });
    expect(revoked.status).toBe(401);
    const badKey = await operatorRequest(server, '/merchant-keys', {
      body: { label: 'x', wallet_addresses: ['nope'] },
    });
    expect(badKey.json.error.field).toBe('wallet_addresses');
  });
});

describe('claiming and paying a refund', () => {
  it('takes the address once, pays it by the sandbox control and sends one signed refund.paid webhook', async () => {
    receiver = await startWebhookReceiver();
    server = await startTestServer({
      operatorToken: OPERATOR_TOKEN,
      webhooks: { signingSecret: 'whsec_test_secret_1234567890' },
    });
    const code = await settledOrder(server, { webhook_url: receiver.url });
    await receiver.waitFor(1);
    const created = (
      await createRefund(server, { transaction_code: code, amount: '12.340001', currency: 'USDC' })
    ).json.data;
    const early = await server.post('/api/sandbox/refunds/pay', { refund_id: created.refund_id });
    expect(early.status).toBe(409);

    const confirmed = await confirmRefundAddress(created.claim_url, BUYER_ADDRESS.toLowerCase());
    expect(confirmed.status).toBe(303);
    // Once confirmed, neither step takes another address: both only lead back to the page.
    const otherAddress = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';
    const attempts: Array<Record<string, string>> = [
      { step: 'check', address: otherAddress, address_again: otherAddress },
      { step: 'confirm', address: otherAddress, confirmed: 'yes' },
    ];
    for (const fields of attempts) {
      expect((await postClaimForm(created.claim_url, fields)).status).toBe(303);
    }
    const awaiting = (await server.get(`/api/refund?refund_id=${created.refund_id}`)).json.data;
    expect(awaiting).toMatchObject({ status: 'awaiting_payment', address: BUYER_ADDRESS });
    expect(awaiting.payment_request.text).toBe(`Send 12.340001 USDC on Polygon PoS to ${BUYER_ADDRESS}`);
    expect(awaiting.payment_request.uri).toBe(
      `ethereum:0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359@137/transfer?address=${BUYER_ADDRESS}&uint256=12340001`,
    );

    const paid = await server.post('/api/sandbox/refunds/pay', { refund_id: created.refund_id });
    expect(paid.json.data).toMatchObject({
      status: 'paid',
      tx_id: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    expect(paid.json.data.history.map((entry: any) => entry.status)).toEqual([
      'awaiting_address',
      'awaiting_payment',
      'paid',
    ]);
    const again = await server.post('/api/sandbox/refunds/pay', { refund_id: created.refund_id });
    expect(again.status).toBe(409);

    const [, refundHook] = await receiver.waitFor(2);
    const body = JSON.parse(refundHook!.body);
    expect(body).toMatchObject({
      event: 'refund.paid',
      refund_id: created.refund_id,
      transaction_code: code,
      amount: '12.340001',
      address: BUYER_ADDRESS,
      tx_id: paid.json.data.tx_id,
    });
    const signature = refundHook!.headers[SIGNATURE_HEADER];
    expect(
      verifyWebhookSignature('whsec_test_secret_1234567890', refundHook!.body, signature, body.timestamp),
    ).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toHaveLength(2);
  });

  it('cancels a refund not yet paid (its amount is refundable again) and refuses to cancel a paid one', async () => {
    server = await startTestServer({ operatorToken: OPERATOR_TOKEN });
    const code = await settledOrder(server, { fiat_amount: '10.00' });
    const first = (await createRefund(server, { transaction_code: code, amount: '10', currency: 'USDC' }))
      .json.data;
    const cancelled = await server.post(
      `/api/refunds/${first.refund_id}/cancel`,
      { reason: 'wrong amount' },
      AS_OPERATOR,
    );
    expect(cancelled.json.data).toMatchObject({ status: 'cancelled' });
    expect(cancelled.headers.get('cache-control')).toBe('no-store');
    expect(cancelled.json.data.history.at(-1).note).toContain('wrong amount');
    const noKey = await server.post(`/api/refunds/${first.refund_id}/cancel`, {});
    expect(noKey.status).toBe(401);

    const second = (await createRefund(server, { transaction_code: code, amount: '10', currency: 'USDC' }))
      .json.data;
    await confirmRefundAddress(second.claim_url, BUYER_ADDRESS);
    await server.post('/api/sandbox/refunds/pay', { refund_id: second.refund_id });
    const late = await server.post(`/api/refunds/${second.refund_id}/cancel`, {}, AS_OPERATOR);
    expect(late.status).toBe(409);
    expect(late.json.error.message).toContain('paid');
  });

  it('expires a refund whose buyer never confirmed an address, freeing its amount', async () => {
    const clock = manualClock();
    server = await startTestServer({ operatorToken: OPERATOR_TOKEN, clock: clock.now });
    const code = await settledOrder(server, { fiat_amount: '10.00' });
    const refund = (await createRefund(server, { transaction_code: code, amount: '10', currency: 'USDC' }))
      .json.data;
    clock.advanceMinutes(30 * 24 * 60 - 1);
    expect((await server.get(`/api/refund?refund_id=${refund.refund_id}`)).json.data.status).toBe(
      'awaiting_address',
    );
    clock.advanceMinutes(2);
    expect((await server.get(`/api/refund?refund_id=${refund.refund_id}`)).json.data.status).toBe('expired');
    expect((await server.get(`/api/refunds?transaction_code=${code}`)).json.data.refundable).toBe('10');
    const page = await fetch(refund.claim_url);
    expect(await page.text()).not.toContain('name="address"');
  });
});

describe('claim links', () => {
  it('answers the same 404 for an unknown, a malformed and an almost-right claim code', async () => {
    server = await startTestServer({ operatorToken: OPERATOR_TOKEN });
    const code = await settledOrder(server);
    const claimUrl = (await createRefund(server, { transaction_code: code, amount: '1', currency: 'USDC' }))
      .json.data.claim_url as string;
    const claimCode = claimUrl.slice(claimUrl.lastIndexOf('/') + 1);
    const flipped = `${claimCode.slice(0, -1)}${claimCode.endsWith('A') ? 'B' : 'A'}`;
    const answers = await Promise.all(
      [flipped, 'x'.repeat(43), 'short', `${claimCode}extra`, '%00'].map(async (guess) => {
        const response = await fetch(`${server!.url}/refund/${guess}`);
        const headers = Object.fromEntries(
          [...response.headers].filter(
            ([name]) => !['date', 'content-length', 'keep-alive', 'connection'].includes(name),
          ),
        );
        return { status: response.status, body: await response.text(), headers };
      }),
    );
    for (const answer of answers) expect(answer).toEqual(answers[0]);
    expect(answers[0]!.status).toBe(404);
    expect((await fetch(claimUrl)).status).toBe(200);
  });
});

describe('the core client', () => {
  it('creates, reads and cancels a refund with a merchant key, and reports refusals as ApiError', async () => {
    server = await startTestServer({ operatorToken: OPERATOR_TOKEN });
    const code = await settledOrder(server, { fiat_amount: '20.00' });
    const issued = await operatorRequest(server, '/merchant-keys', {
      body: { label: 'api shop', wallet_addresses: [POLYGON_WALLET] },
    });
    const client = createCheckoutClient({ baseUrl: `${server.url}/api`, credential: issued.json.data.key });
    const refund = await client.createRefund({
      transaction_code: code,
      amount: '7.50',
      currency: 'USD',
      reference: 'r-1',
    });
    expect(refund).toMatchObject({ amount: '7.5', created: true });
    expect((await client.getRefunds(code)).refundable).toBe('12.5');
    expect((await client.getRefund(refund.refund_id)).status).toBe('awaiting_address');
    expect((await client.cancelRefund(refund.refund_id, 'customer kept it')).status).toBe('cancelled');
    const refused = await client
      .createRefund({ transaction_code: code, amount: '21', currency: 'USDC' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ code: 'unprocessable', field: 'amount', httpStatus: 422 });
    const keyless = createCheckoutClient({ baseUrl: `${server.url}/api` });
    await expect(
      keyless.createRefund({ transaction_code: code, amount: '1', currency: 'USDC' }),
    ).rejects.toMatchObject({
      code: 'unauthorized',
    });
  });
});
