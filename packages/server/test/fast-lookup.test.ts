import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from './helpers.js';

// GET /api/transaction is answered ahead of the router (src/http/fast-lookup.ts). A trailing slash
// sends the same request through Fastify's route instead, so each pair below is one request asked
// of both paths; their answers must be the same.
const CHECKOUT = {
  fiat_amount: '25.00',
  fiat_currency: 'EUR',
  external_reference: 'order-fast-lookup',
  customer: {
    wallet_address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
    crypto_currency: 'USDC',
    crypto_currency_network: 'POLYGON',
  },
};

const UNKNOWN = randomUUID();

async function answer(server: TestServer, path: string) {
  const response = await fetch(`${server.url}${path}`);
  const headers = Object.fromEntries([...response.headers].filter(([name]) => name !== 'date'));
  return { status: response.status, headers, body: await response.text() };
}

describe('the status lookup answered ahead of the router', () => {
  let server: TestServer;
  let pending: string;
  let settled: string;

  beforeAll(async () => {
    server = await startTestServer();
    pending = (await server.post('/api/checkout', CHECKOUT)).json.data.transaction_code;
    settled = (await server.post('/api/checkout', CHECKOUT)).json.data.transaction_code;
    const paid = await server.post('/api/sandbox/pay', {
      transaction_code: settled,
      payment_method: 'usdc_polygon',
      size: 'full',
      confirmed: true,
    });
    expect(paid.json.data.status).toBe('settled');
  });

  afterAll(() => server.dispose());

  it.each([
    ['a pending transaction', () => pending],
    ['a settled transaction with its payment', () => settled],
    ['a code in upper case', () => pending.toUpperCase()],
    ['an unknown code (404)', () => UNKNOWN],
    ['a code of the right length but not a UUID (400)', () => `${pending.slice(0, 35)}z`],
  ])('gives the framework’s answer for %s', async (_case, code) => {
    const fast = await answer(server, `/api/transaction?transaction_code=${code()}`);
    const routed = await answer(server, `/api/transaction/?transaction_code=${code()}`);
    expect(fast).toEqual(routed);
    expect(fast.headers['x-content-type-options']).toBe('nosniff');
    expect(fast.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  // A lookup that fails once tells the paths apart: ahead of the router the failure is handed to
  // Fastify, which asks again and answers 200; Fastify alone answers the failure (500).
  it('serves the plain form itself, hands a failure to the framework, and leaves every other form to it', async () => {
    const lookups = vi.spyOn(server.service, 'getTransaction');
    const statusAfterOneFailure = async (path: string, init?: RequestInit) => {
      lookups.mockClear();
      lookups.mockRejectedValueOnce(new Error('simulated failure'));
      return (await fetch(`${server.url}${path}`, init)).status;
    };
    expect(await statusAfterOneFailure(`/api/transaction?transaction_code=${pending}`)).toBe(200);
    expect(lookups).toHaveBeenCalledTimes(2);
    expect(await statusAfterOneFailure(`/api/transaction/?transaction_code=${pending}`)).toBe(500);
    expect(await statusAfterOneFailure(`/api/transaction?transaction_code=${pending}&lang=de`)).toBe(500);
    expect(
      await statusAfterOneFailure(`/api/transaction?transaction_code=${pending}`, { method: 'HEAD' }),
    ).toBe(500);
    expect(lookups).toHaveBeenCalledTimes(1);
    lookups.mockRestore();
  });
});
