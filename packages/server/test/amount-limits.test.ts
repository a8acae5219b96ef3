import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutBody, startTestServer, type TestServer } from './helpers.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.dispose());

describe('amount bounds at the edge (docs/api.md, Limits)', () => {
  it.each([
    ['KWD', '999999999999999'],
    ['EUR', '999999999999999.99'],
    ['GBP', '900000000000000'],
    ['CHF', '999999999999999'],
    ['USD', '1000000000.01'],
  ])('refuses a %s amount of %s, worth more than the limit in USD, naming fiat_amount', async (currency, amount) => {
    const created = await server.post(
      '/api/checkout',
      checkoutBody({ fiat_amount: amount, fiat_currency: currency }),
    );
    expect(created.status).toBe(400);
    expect(created.json.error).toMatchObject({ code: 'invalid_request', field: 'fiat_amount' });
    expect(created.json.error.message).toContain('1,000,000,000 USD');
    const priced = await server.get(`/api/payment_options?fiat_amount=${amount}&fiat_currency=${currency}`);
    expect(priced.status).toBe(400);
    expect(priced.json.error).toMatchObject({ code: 'invalid_request', field: 'fiat_amount' });
  });

  it('takes an amount worth exactly the limit', async () => {
    const created = await server.post(
      '/api/checkout',
      checkoutBody({ fiat_amount: '1000000000', fiat_currency: 'USD' }),
    );
    expect(created.status).toBe(201);
    expect(created.json.data.amount_in_usd).toBe(1_000_000_000);
  });

  it.each([
    ['999999999999999', 'more than'],
    ['9999999999999999', 'at most 15 digits before the decimal point'],
    ['1000000000.01', 'more than'],
    ['0.001', 'at most 2 decimals'],
    ['0', 'greater than 0'],
  ])('refuses a sandbox amount_usd of %s naming amount_usd', async (amountUsd, message) => {
    const created = await server.client.createCheckout(checkoutBody());
    const paid = await server.post('/api/sandbox/pay', {
      transaction_code: created.transaction_code,
      payment_method: 'usdc_polygon',
      amount_usd: amountUsd,
    });
    expect(paid.status).toBe(400);
    expect(paid.json.error).toMatchObject({ code: 'invalid_request', field: 'amount_usd' });
    expect(paid.json.error.message).toContain(message);
    expect((await server.get(`/api/transaction?transaction_code=${created.transaction_code}`)).status).toBe(
      200,
    );
  });

  it('keeps a transaction readable after the payments that used to overflow its USD sum', async () => {
    const created = await server.client.createCheckout(checkoutBody());
    const huge = await server.post('/api/sandbox/pay', {
      transaction_code: created.transaction_code,
      payment_method: 'usdc_polygon',
      amount_usd: '999999999999999',
      confirmed: false,
    });
    expect(huge.status).toBe(400);
    const small = await server.post('/api/sandbox/pay', {
      transaction_code: created.transaction_code,
      payment_method: 'usdc_polygon',
      amount_usd: '1',
    });
    expect(small.status).toBe(200);
    expect(small.json.data).toMatchObject({ status: 'underpaid', received_usd: 1 });
    const looked = await server.get(`/api/transaction?transaction_code=${created.transaction_code}`);
    expect(looked.status).toBe(200);
  });
});
