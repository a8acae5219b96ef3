import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutBody, POLYGON_WALLET, startTestServer, type TestServer } from './helpers.js';

let server: TestServer;
let settledCode: string;
beforeAll(async () => {
  server = await startTestServer();
  const created = await server.client.createCheckout(checkoutBody());
  settledCode = created.transaction_code;
  await server.post('/api/sandbox/pay', { transaction_code: settledCode, payment_method: 'usdc_polygon' });
});
afterAll(() => server.dispose());

const customer = (overrides: Record<string, unknown>) => ({
  customer: {
    wallet_address: POLYGON_WALLET,
    crypto_currency: 'USDC',
    crypto_currency_network: 'POLYGON',
    ...overrides,
  },
});
const without = (key: string) => {
  const body: Record<string, unknown> = checkoutBody();
  delete body[key];
  return body;
};

type Case = [name: string, body: unknown, status: number, code: string, field?: string];

const checkoutCases: Case[] = [
  ['missing fiat_amount', without('fiat_amount'), 400, 'invalid_request', 'fiat_amount'],
  ['fiat_amount as boolean', checkoutBody({ fiat_amount: true }), 400, 'invalid_request', 'fiat_amount'],
  ['fiat_amount zero', checkoutBody({ fiat_amount: 0 }), 400, 'invalid_request', 'fiat_amount'],
  ['fiat_amount negative', checkoutBody({ fiat_amount: -1 }), 400, 'invalid_request', 'fiat_amount'],
  [
    'fiat_amount too precise for EUR',
    checkoutBody({ fiat_amount: '1.001' }),
    400,
    'invalid_request',
    'fiat_amount',
  ],
  [
    'fiat_amount decimals for JPY',
    checkoutBody({ fiat_amount: '10.5', fiat_currency: 'JPY' }),
    400,
    'invalid_request',
    'fiat_amount',
  ],
  ['fiat_amount not numeric', checkoutBody({ fiat_amount: '12,50' }), 400, 'invalid_request', 'fiat_amount'],
  ['missing fiat_currency', without('fiat_currency'), 400, 'invalid_request', 'fiat_currency'],
  ['unknown currency', checkoutBody({ fiat_currency: 'XYZ' }), 400, 'invalid_request', 'fiat_currency'],
  ['lowercase currency', checkoutBody({ fiat_currency: 'eur' }), 400, 'invalid_request', 'fiat_currency'],
  ['missing external_reference', without('external_reference'), 400, 'invalid_request', 'external_reference'],
  [
    'empty external_reference',
    checkoutBody({ external_reference: '' }),
    400,
    'invalid_request',
    'external_reference',
  ],
  [
    'overlong external_reference',
    checkoutBody({ external_reference: 'r'.repeat(129) }),
    400,
    'invalid_request',
    'external_reference',
  ],
  [
    'webhook_url not http',
    checkoutBody({ webhook_url: 'javascript:alert(1)' }),
    400,
    'invalid_request',
    'webhook_url',
  ],
  ['success_url relative', checkoutBody({ success_url: '/thanks' }), 400, 'invalid_request', 'success_url'],
  ['cancel_url as number', checkoutBody({ cancel_url: 42 }), 400, 'invalid_request', 'cancel_url'],
  ['missing customer', without('customer'), 400, 'invalid_request', 'customer'],
  ['customer as string', checkoutBody({ customer: 'me' }), 400, 'invalid_request', 'customer'],
  [
    'missing wallet address',
    checkoutBody({ customer: { crypto_currency: 'USDC', crypto_currency_network: 'POLYGON' } }),
    400,
    'invalid_request',
    'customer.wallet_address',
  ],
  [
    'wallet checksum mismatch',
    checkoutBody(customer({ wallet_address: '0x3C499c542cEF5E3811e1192ce70d8cC03d5c3359' })),
    400,
    'invalid_request',
    'customer.wallet_address',
  ],
  [
    'TRON wallet on POLYGON',
    checkoutBody(customer({ wallet_address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' })),
    400,
    'invalid_request',
    'customer.wallet_address',
  ],
  [
    'asset not on network',
    checkoutBody(customer({ crypto_currency: 'BTC' })),
    400,
    'invalid_request',
    'customer.crypto_currency',
  ],
  [
    'unknown network',
    checkoutBody(customer({ crypto_currency_network: 'DOGECHAIN' })),
    400,
    'invalid_request',
    'customer.crypto_currency_network',
  ],
  ['body is an array', [checkoutBody()], 400, 'invalid_request', ''],
];

describe('POST /api/checkout refuses bad input with the field to fix', () => {
  it.each(checkoutCases)('%s', async (_name, body, status, code, field) => {
    const response = await server.post('/api/checkout', body);
    expect(response.status).toBe(status);
    expect(response.json.status).toBe('error');
    expect(response.json.error.code).toBe(code);
    if (field !== undefined) expect(response.json.error.field).toBe(field);
    expect(response.json.error.message.length).toBeGreaterThan(8);
  });

  it('refuses a body that is not JSON', async () => {
    const response = await server.post('/api/checkout', '{"fiat_amount": 25,');
    expect(response.status).toBe(400);
    expect(response.json.error).toMatchObject({ code: 'invalid_request', field: 'body' });
  });
  it('refuses an empty JSON body', async () => {
    const response = await server.post('/api/checkout', '');
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('invalid_request');
  });
  it('refuses a body that is not declared as JSON', async () => {
    const response = await server.post('/api/checkout', JSON.stringify(checkoutBody()), {
      'content-type': 'text/plain',
    });
    expect(response.status).toBe(415);
    expect(response.json.error.code).toBe('unsupported_media_type');
  });
  it('refuses an oversize body', async () => {
    const response = await server.post(
      '/api/checkout',
      checkoutBody({ external_reference: 'x'.repeat(70_000) }),
    );
    expect(response.status).toBe(413);
    expect(response.json.error.code).toBe('payload_too_large');
  });
});

const getCases: Array<[name: string, path: string, status: number, code: string, field?: string]> = [
  ['lookup without code', '/api/transaction', 400, 'invalid_request', 'transaction_code'],
  [
    'lookup with malformed UUID',
    '/api/transaction?transaction_code=123',
    400,
    'invalid_request',
    'transaction_code',
  ],
  [
    'lookup of unknown code',
    '/api/transaction?transaction_code=00000000-0000-4000-8000-000000000000',
    404,
    'not_found',
    'transaction_code',
  ],
  ['options without amount', '/api/payment_options?fiat_currency=EUR', 400, 'invalid_request', 'fiat_amount'],
  [
    'options with bad amount',
    '/api/payment_options?fiat_amount=abc&fiat_currency=EUR',
    400,
    'invalid_request',
    'fiat_amount',
  ],
  [
    'options with unknown currency',
    '/api/payment_options?fiat_amount=1&fiat_currency=QQQ',
    400,
    'invalid_request',
    'fiat_currency',
  ],
  [
    'link with unknown rail',
    '/api/payment_link?transaction_code=00000000-0000-4000-8000-000000000000&payment_method=dogecoin',
    404,
    'not_found',
    'transaction_code',
  ],
  [
    'link with malformed rail',
    '/api/payment_link?transaction_code=00000000-0000-4000-8000-000000000000&payment_method=Bad%20Rail',
    400,
    'invalid_request',
    'payment_method',
  ],
  ['unknown endpoint', '/api/payouts', 404, 'not_found'],
  ['refunds without a transaction code', '/api/refunds', 400, 'invalid_request', 'transaction_code'],
  ['refund with a malformed id', '/api/refund?refund_id=nope', 400, 'invalid_request', 'refund_id'],
  [
    'unknown refund',
    '/api/refund?refund_id=00000000-0000-4000-8000-000000000000',
    404,
    'not_found',
    'refund_id',
  ],
];

describe('GET endpoints refuse bad input', () => {
  it.each(getCases)('%s', async (_name, path, status, code, field) => {
    const response = await server.get(path);
    expect(response.status).toBe(status);
    expect(response.json.error.code).toBe(code);
    if (field !== undefined) expect(response.json.error.field).toBe(field);
  });

  it('answers 405 with Allow for a wrong method', async () => {
    const response = await fetch(`${server.url}/api/checkout`);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('method_not_allowed');
  });

  it('answers 409 for a rail chosen on a settled transaction, 422 for a rail outside its bounds', async () => {
    const settled = await server.get(
      `/api/payment_link?transaction_code=${settledCode}&payment_method=usdc_polygon`,
    );
    expect(settled.status).toBe(409);
    expect(settled.json.error.code).toBe('conflict');
    const small = await server.client.createCheckout(checkoutBody({ fiat_amount: '2.00' }));
    const bounded = await server.get(
      `/api/payment_link?transaction_code=${small.transaction_code}&payment_method=btc_bitcoin`,
    );
    expect(bounded.status).toBe(422);
    expect(bounded.json.error).toMatchObject({ code: 'unprocessable', field: 'payment_method' });
    const unknownRail = await server.get(
      `/api/payment_link?transaction_code=${small.transaction_code}&payment_method=dogecoin`,
    );
    expect(unknownRail.status).toBe(400);
    expect(unknownRail.json.error.field).toBe('payment_method');
  });

  it('never answers 500 to fuzzed checkout bodies', async () => {
    const samples: unknown[] = [
      null,
      0,
      'x',
      {},
      { fiat_amount: {} },
      { customer: [] },
      { fiat_amount: 1e308, fiat_currency: 'USD' },
      checkoutBody({ fiat_amount: '1e400' }),
      checkoutBody({ external_reference: '\u0000' }),
      checkoutBody(customer({ wallet_address: null })),
      checkoutBody({ fiat_amount: Number.MAX_SAFE_INTEGER }),
      checkoutBody(customer({ crypto_currency_network: { a: 1 } })),
    ];
    for (const body of samples) {
      const response = await server.post('/api/checkout', body);
      expect(response.status, JSON.stringify(body)).toBe(400);
    }
  });
});
