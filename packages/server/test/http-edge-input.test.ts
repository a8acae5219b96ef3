// Input the API refuses by name: repeated parameters, control characters, wrong types.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutBody, startTestServer, type TestServer } from './helpers.js';

let server: TestServer;
let code: string;
beforeAll(async () => {
  server = await startTestServer();
  code = (await server.client.createCheckout(checkoutBody())).transaction_code;
});
afterAll(() => server.dispose());

describe('a query parameter given twice', () => {
  it.each([
    ['/api/transaction?transaction_code=CODE&transaction_code=CODE', 'transaction_code'],
    ['/api/payment_options?fiat_amount=1&fiat_amount=2&fiat_currency=EUR', 'fiat_amount'],
    ['/api/payment_link?transaction_code=CODE&payment_method=card&payment_method=card', 'payment_method'],
    ['/api/sandbox/webhooks?transaction_code=CODE&transaction_code=CODE', 'transaction_code'],
    ['/api/health?x=1&x=2', 'x'],
  ])('is a 400 naming it on the API: %s', async (path, field) => {
    const response = await server.get(path.replaceAll('CODE', code));
    expect(response.status).toBe(400);
    expect(response.json.error).toMatchObject({ code: 'invalid_request', field });
    expect(response.json.error.message).toContain(`${field} is given more than once`);
  });

  it('on the hosted pages, the first value wins (no 500)', async () => {
    const page = await fetch(`${server.url}/pay/${code}?lang=de&lang=fr`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html lang="de"');
    const card = await fetch(`${server.url}/sandbox/card/${code}?method=card&method=btc_bitcoin`);
    expect(card.status).toBe(200);
  });
});

describe('control characters and malformed codes never reach the database', () => {
  it.each([
    ['webhook_url', 'https://shop.example/hook\u0000'],
    ['success_url', 'https://shop.example/thanks\u001f'],
    ['cancel_url', 'https://shop.example/ca\u007fncel'],
    ['success_url', 'https://shop.example/\ta'],
  ])('refuses %s with a raw control character', async (field, url) => {
    const response = await server.post('/api/checkout', checkoutBody({ [field]: url }));
    expect(response.status).toBe(400);
    expect(response.json.error).toMatchObject({ code: 'invalid_request', field });
    expect(response.json.error.message).toContain('control characters');
  });

  it.each([
    '/api/sandbox/webhooks?transaction_code=not-a-code',
    '/api/sandbox/webhooks?transaction_code=%00',
  ])('GET %s is a 400 naming transaction_code', async (path) => {
    const response = await server.get(path);
    expect(response.status).toBe(400);
    expect(response.json.error).toMatchObject({ code: 'invalid_request', field: 'transaction_code' });
  });

  it.each([
    'GET',
    'POST',
  ])('%s /sandbox/card/<not a uuid> is a 400 naming transaction_code', async (method) => {
    const response = await fetch(`${server.url}/sandbox/card/not-a-code%00`, {
      method,
      ...(method === 'POST'
        ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'outcome=pay' }
        : {}),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: unknown }).error).toMatchObject({
      code: 'invalid_request',
      field: 'transaction_code',
    });
  });
});

describe('wrong types are told apart from missing fields', () => {
  const customer = (key: string, value: unknown) =>
    checkoutBody({ customer: { ...checkoutBody().customer, [key]: value } });
  it.each([
    [
      'external_reference',
      checkoutBody({ external_reference: 5 }),
      'external_reference must be a string, got a number.',
    ],
    ['fiat_amount', checkoutBody({ fiat_amount: true }), 'got a boolean'],
    ['fiat_currency', checkoutBody({ fiat_currency: 5 }), 'fiat_currency must be a string, got a number.'],
    ['webhook_url', checkoutBody({ webhook_url: 5 }), 'webhook_url must be a string, got a number.'],
    ['success_url', checkoutBody({ success_url: {} }), 'success_url must be a string, got an object.'],
    ['cancel_url', checkoutBody({ cancel_url: null }), 'cancel_url must be a string, got null.'],
    ['customer', checkoutBody({ customer: 'me' }), 'customer must be an object, got a string.'],
    [
      'customer.wallet_address',
      customer('wallet_address', 5),
      'customer.wallet_address must be a string, got a number.',
    ],
    [
      'customer.crypto_currency',
      customer('crypto_currency', ['USDC']),
      'customer.crypto_currency must be a string, got an array.',
    ],
    ['customer.crypto_currency_network', customer('crypto_currency_network', true), 'got a boolean'],
  ])('checkout %s', async (field, body, message) => {
    const response = await server.post('/api/checkout', body);
    expect(response.status).toBe(400);
    expect(response.json.error.field).toBe(field);
    expect(response.json.error.message).toContain(message);
    expect(response.json.error.message).not.toContain('required');
  });

  it.each([
    [
      'transaction_code',
      { transaction_code: 5, payment_method: 'card' },
      'transaction_code must be a string, got a number.',
    ],
    [
      'payment_method',
      { transaction_code: 'CODE', payment_method: 5 },
      'payment_method must be a string, got a number.',
    ],
    ['size', { transaction_code: 'CODE', payment_method: 'card', size: 5 }, 'got a number'],
    [
      'amount_usd',
      { transaction_code: 'CODE', payment_method: 'card', amount_usd: 5 },
      'amount_usd must be a string, got a number.',
    ],
    [
      'confirmed',
      { transaction_code: 'CODE', payment_method: 'card', confirmed: 'yes' },
      'confirmed must be a boolean, got a string.',
    ],
  ])('sandbox pay %s', async (field, body, message) => {
    const response = await server.post(
      '/api/sandbox/pay',
      JSON.parse(JSON.stringify(body).replace('CODE', code)),
    );
    expect(response.status).toBe(400);
    expect(response.json.error.field).toBe(field);
    expect(response.json.error.message).toContain(message);
  });

  it.each([
    [
      '/api/checkout',
      { ...checkoutBody(), customer: { crypto_currency: 'USDC', crypto_currency_network: 'POLYGON' } },
      'customer.wallet_address is required',
    ],
    ['/api/checkout', { ...checkoutBody(), fiat_amount: undefined }, 'fiat_amount is required'],
    ['/api/checkout', { ...checkoutBody(), external_reference: undefined }, 'external_reference is required'],
    ['/api/sandbox/pay', { payment_method: 'card' }, 'transaction_code is required'],
  ])('a missing field is still "required" (%s)', async (path, body, message) => {
    const response = await server.post(path, body);
    expect(response.status).toBe(400);
    expect(response.json.error.message).toContain(message);
  });

  it.each([
    ['/api/payment_options?fiat_currency=EUR', 'fiat_amount is required'],
    ['/api/payment_options?fiat_amount=1', 'fiat_currency is required'],
    ['/api/payment_link?payment_method=card', 'transaction_code is required'],
    ['/api/payment_link?transaction_code=CODE', 'payment_method is required'],
    ['/api/transaction', 'transaction_code is required'],
  ])('a missing query parameter is "required": %s', async (path, message) => {
    const response = await server.get(path.replace('CODE', code));
    expect(response.status).toBe(400);
    expect(response.json.error.message).toContain(message);
  });
});
