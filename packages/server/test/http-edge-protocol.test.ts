// What the server answers below the routes: framework and parser errors, and the headers every
// answer carries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutBody, startTestServer, type TestServer } from './helpers.js';
import { parseRaw, rawExchange } from './raw-http.js';

let server: TestServer;
let code: string;
beforeAll(async () => {
  server = await startTestServer();
  code = (await server.client.createCheckout(checkoutBody())).transaction_code;
});
afterAll(() => server.dispose());

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
