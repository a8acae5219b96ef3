import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, NetworkError, TimeoutError, UnexpectedResponseError } from '../errors.js';
import { createCheckoutClient } from './client.js';

const code = '7d3f2a10-5b6c-4e8d-9f01-23456789abcd';
const transaction = {
  transaction_code: code,
  status: 'pending',
  external_reference: 'order-1',
  fiat_amount: 25,
  fiat_currency: 'EUR',
  amount_in_usd: 27.11,
  received_usd: 0,
  checkout_url: `http://127.0.0.1/pay/${code}`,
  wallet_address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
  wallet_currency: 'USDC',
  wallet_network: 'POLYGON',
  payout_dispatched: false,
  payment_method: null,
  late: false,
  created_at: '2026-11-01T10:00:00.000Z',
  expires_at: '2026-11-01T11:00:00.000Z',
  settled_at: null,
  payments: [],
};

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;
let handler: Handler;
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => handler(request, body, response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const json = (response: ServerResponse, status: number, value: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(value));
};

describe('checkout client', () => {
  it('sends the query and returns validated data', async () => {
    let seenUrl = '';
    handler = (request, _body, response) => {
      seenUrl = request.url ?? '';
      json(response, 200, { status: 'success', data: transaction });
    };
    const client = createCheckoutClient({ baseUrl: `${baseUrl}/` });
    const result = await client.getTransaction(code);
    expect(seenUrl).toBe(`/api/transaction?transaction_code=${code}`);
    expect(result.status).toBe('pending');
  });

  it('posts JSON for createCheckout', async () => {
    let seen: { method?: string; type?: string; body?: unknown } = {};
    handler = (request, body, response) => {
      seen = { method: request.method, type: request.headers['content-type'], body: JSON.parse(body) };
      json(response, 201, {
        status: 'success',
        data: {
          transaction_code: code,
          status: 'pending',
          amount_in_usd: 27.11,
          checkout_url: transaction.checkout_url,
          payment_options: [],
          expires_at: transaction.expires_at,
        },
      });
    };
    const client = createCheckoutClient({ baseUrl });
    const request = {
      fiat_amount: '25.00',
      fiat_currency: 'EUR',
      external_reference: 'order-1',
      customer: {
        wallet_address: transaction.wallet_address,
        crypto_currency: 'USDC',
        crypto_currency_network: 'POLYGON',
      },
    };
    const created = await client.createCheckout(request);
    expect(created.checkout_url).toBe(transaction.checkout_url);
    expect(seen).toEqual({ method: 'POST', type: 'application/json', body: request });
  });

  it('turns the error envelope into ApiError with code, field and status', async () => {
    handler = (_request, _body, response) =>
      json(response, 400, {
        status: 'error',
        error: { code: 'invalid_request', message: 'fiat_currency is not supported', field: 'fiat_currency' },
      });
    const error = await createCheckoutClient({ baseUrl })
      .getPaymentOptions({ fiat_amount: 1, fiat_currency: 'XXX' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'invalid_request', field: 'fiat_currency', httpStatus: 400 });
  });

  it('refuses a success envelope of the wrong shape', async () => {
    handler = (_request, _body, response) =>
      json(response, 200, { status: 'success', data: { ...transaction, status: 'paid' } });
    const error = await createCheckoutClient({ baseUrl })
      .getTransaction(code)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect((error as Error).message).toMatch(/status/);
  });

  it('refuses a body that is not JSON', async () => {
    handler = (_request, _body, response) => {
      response.writeHead(502, { 'content-type': 'text/html' });
      response.end('<h1>Bad gateway</h1>');
    };
    const error = await createCheckoutClient({ baseUrl })
      .getTransaction(code)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error).toMatchObject({ httpStatus: 502 });
  });

  it('times out a slow service', async () => {
    handler = (_request, _body, response) => {
      setTimeout(() => json(response, 200, { status: 'success', data: transaction }), 500);
    };
    const error = await createCheckoutClient({ baseUrl, timeoutMs: 50 })
      .getTransaction(code)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ timeoutMs: 50 });
  });

  it('honours the caller abort signal', async () => {
    handler = (_request, _body, response) => {
      setTimeout(() => json(response, 200, { status: 'success', data: transaction }), 500);
    };
    const controller = new AbortController();
    const pending = createCheckoutClient({ baseUrl }).getTransaction(code, { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(NetworkError);
  });

  it('reports an unreachable service as NetworkError naming the origin', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await createCheckoutClient({ baseUrl: `http://127.0.0.1:${port}/api` })
      .getTransaction(code)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toContain(`127.0.0.1:${port}`);
  });
});
