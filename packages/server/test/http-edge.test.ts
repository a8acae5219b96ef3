import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutBody, eventually, startTestServer, type TestServer } from './helpers.js';
import { parseRaw, rawExchange } from './raw-http.js';

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
    expect((await response.json()).error).toMatchObject({
      code: 'invalid_request',
      field: 'transaction_code',
    });
  });
});

describe('framework and connection errors answer in the envelope', () => {
  it('a malformed URL is a 400 envelope', async () => {
    const response = await server.get('/api/%zz');
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('invalid_request');
  });

  it('an over-long path parameter is a 414 envelope', async () => {
    const response = await server.get(`/pay/${'a'.repeat(300)}`);
    expect(response.status).toBe(414);
    expect(response.json.error.code).toBe('uri_too_long');
  });

  it('garbage instead of HTTP is a 400 envelope, then the connection closes', async () => {
    const { text, closed } = await rawExchange(server.port, ['\u0001\u0002 not http at all\r\n\r\n'], {
      holdOpen: true,
    });
    expect(closed).toBe(true);
    const response = parseRaw(text);
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toContain('application/json');
    expect(response.headers.connection).toBe('close');
    expect(response.json).toMatchObject({ status: 'error', error: { code: 'invalid_request' } });
  });

  it('a CONNECT request is a 405 envelope, not a silently closed connection', async () => {
    const { text, closed } = await rawExchange(
      server.port,
      ['CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: x\r\n\r\n'],
      {
        holdOpen: true,
      },
    );
    expect(closed).toBe(true);
    const response = parseRaw(text);
    expect(response.status).toBe(405);
    expect(response.json).toMatchObject({ status: 'error', error: { code: 'method_not_allowed' } });
  });

  it('oversized headers are a 431 envelope', async () => {
    const { text } = await rawExchange(
      server.port,
      [`GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`],
      { holdOpen: true },
    );
    const response = parseRaw(text);
    expect(response.status).toBe(431);
    expect(response.json.error.code).toBe('request_header_fields_too_large');
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

describe('security headers', () => {
  it.each([
    ['GET', '/api/health', 200],
    ['GET', '/api/nothing-here', 404],
    ['GET', '/api/checkout', 405],
    ['GET', '/api/transaction?transaction_code=1', 400],
    ['GET', '/api/openapi.json', 200],
  ])('%s %s carries X-Content-Type-Options: nosniff', async (method, path, status) => {
    const response = await fetch(`${server.url}${path}`, { method });
    expect(response.status).toBe(status);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('the sandbox card page may only be framed by the merchant, not by anyone', async () => {
    const response = await fetch(`${server.url}/sandbox/card/${code}`);
    const policy = response.headers.get('content-security-policy') ?? '';
    const frameAncestors = policy.split(';').find((part) => part.trim().startsWith('frame-ancestors'));
    expect(frameAncestors?.trim()).toBe("frame-ancestors 'self' https://shop.example");
  });
});

describe('slow clients', () => {
  let strict: TestServer;
  beforeAll(async () => {
    strict = await startTestServer({ requestTimeoutMs: 500 });
  });
  afterAll(() => strict.dispose());

  /** The last HTTP answer in a raw exchange. */
  const lastAnswer = (text: string) => parseRaw(text.slice(text.lastIndexOf('HTTP/1.1 ')));

  it('a body trickled one byte at a time is cut off with a 408 envelope', async () => {
    const body = JSON.stringify(checkoutBody());
    const head = `POST /api/checkout HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const { text, closed } = await rawExchange(strict.port, [head, ...body.slice(0, 60)], {
      intervalMs: 100,
      holdOpen: true,
    });
    expect(closed).toBe(true);
    const response = parseRaw(text);
    expect(response.status).toBe(408);
    expect(response.headers.connection).toBe('close');
    expect(response.json.error.code).toBe('request_timeout');
  });

  it('headers trickled one line at a time, or none at all, get the same 408', async () => {
    const lines = ['GET /api/health HTTP/1.1\r\n', ...Array.from({ length: 40 }, (_, i) => `X-${i}: 1\r\n`)];
    const trickled = await rawExchange(strict.port, lines, { intervalMs: 100, holdOpen: true });
    expect(parseRaw(trickled.text).json.error.code).toBe('request_timeout');
    const silent = await rawExchange(strict.port, [], { holdOpen: true });
    expect(parseRaw(silent.text).json.error.code).toBe('request_timeout');
  });

  it('a second request trickled on a kept-alive connection gets the 408 too', async () => {
    const lines = [
      'GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n',
      ...Array.from({ length: 40 }, (_, i) => (i === 0 ? 'GET /api/health HTTP/1.1\r\n' : `X-${i}: 1\r\n`)),
    ];
    const { text } = await rawExchange(strict.port, lines, { intervalMs: 100, holdOpen: true });
    expect(parseRaw(text).status).toBe(200);
    const last = lastAnswer(text);
    expect(last.status).toBe(408);
    expect(last.json.error.code).toBe('request_timeout');
  });
});

describe('too many clients', () => {
  let capped: TestServer;
  beforeAll(async () => {
    capped = await startTestServer({ maxConnections: 2 });
  });
  afterAll(() => capped.dispose());

  it('connections beyond the cap are closed at once, and the server still answers afterwards', async () => {
    const idle = await Promise.all(
      [0, 1].map(
        () =>
          new Promise<ReturnType<typeof connect>>((resolve) => {
            const socket = connect(capped.port, '127.0.0.1', () => resolve(socket));
            socket.on('error', () => {});
          }),
      ),
    );
    const third = await rawExchange(capped.port, ['GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n'], {
      holdOpen: true,
    });
    expect(third.text).toBe('');
    for (const socket of idle) socket.destroy();
    await eventually(async () => expect((await capped.get('/api/health')).status).toBe(200));
  });
});

describe('shutting down', () => {
  it('a request arriving while the server closes gets a 503 envelope, not a bare Fastify body', async () => {
    const closingServer = await startTestServer();
    try {
      const body = JSON.stringify({ transaction_code: 'x' });
      const head = `POST /api/sandbox/pay HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
      const socket = connect(closingServer.port, '127.0.0.1');
      socket.on('error', () => {});
      const received: Buffer[] = [];
      socket.on('data', (chunk) => received.push(chunk));
      const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
      // The first request is under way (headers in, body pending) when the server starts closing…
      socket.write(head + body.slice(0, 5));
      await new Promise((resolve) => setTimeout(resolve, 100));
      const closed = closingServer.close();
      await new Promise((resolve) => setTimeout(resolve, 100));
      // …and a second one follows on the same connection.
      socket.write(`${body.slice(5)}GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n`);
      await ended;
      await closed;
      const text = Buffer.concat(received).toString('latin1');
      // Under load the first request may itself arrive late and get the 503; the last answer is it.
      const last = parseRaw(text.slice(text.lastIndexOf('HTTP/1.1 ')));
      expect(last.status).toBe(503);
      expect(last.json).toMatchObject({ status: 'error', error: { code: 'unavailable' } });
    } finally {
      await closingServer.dispose();
    }
  });
});
