import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OperatorTransactionDetail } from '@cryptocheckout/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, OperatorApi } from './api.js';
import {
  EVENT_DEADLINE_MS,
  OPERATOR_TOKEN,
  type OperatorServer,
  startOperatorServer,
  startWebhookReceiver,
  type WebhookReceiver,
} from './real-server.test-helpers.js';
import { EMPTY_FILTER } from './router.js';

// The operator API client against the reference server. Tests that count rows filter by a
// reference of their own, so they do not depend on each other's data.

let server: OperatorServer;
let token: string | null;
let api: OperatorApi;

beforeAll(async () => {
  server = await startOperatorServer();
});
afterAll(() => server.close());

beforeEach(() => {
  server.requests.length = 0;
  token = OPERATOR_TOKEN;
  api = new OperatorApi({ base: server.base, fetch: server.fetch, token: () => token });
});

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('OperatorApi', () => {
  it('sends the bearer token and unwraps the success envelope', async () => {
    const overview = await api.overview();
    expect(overview).toMatchObject({ mode: 'sandbox', storage: 'sqlite', networks: [] });
    expect(server.requests).toEqual([
      expect.objectContaining({
        method: 'GET',
        path: '/api/operator/overview',
        authorization: `Bearer ${OPERATOR_TOKEN}`,
      }),
    ]);
  });

  it('reads the token on every request', async () => {
    await api.overview();
    token = 'changed';
    await failure(api.overview());
    expect(server.requests.map((request) => request.authorization)).toEqual([
      `Bearer ${OPERATOR_TOKEN}`,
      'Bearer changed',
    ]);
  });

  it('turns a 401 into an unauthorized ApiError, with or without a token', async () => {
    token = 'not-the-operator-token-of-this-server';
    const wrong = await failure(api.overview());
    expect(wrong).toMatchObject({ code: 'unauthorized', httpStatus: 401, field: null });
    expect(wrong.message).toMatch(/operator token is not right/);
    expect(wrong.unauthorized).toBe(true);
    token = null;
    const missing = await failure(api.overview());
    expect(missing.unauthorized).toBe(true);
    expect(missing.message).toMatch(/Authorization: Bearer/);
    expect(server.requests.at(-1)!.authorization).toBeUndefined();
  });

  it('keeps the code, message and field of an error envelope', async () => {
    const error = await failure(api.transactions({ ...EMPTY_FILTER, status: 'paid' as never }));
    expect(error).toMatchObject({ code: 'invalid_request', httpStatus: 400, field: 'status' });
    expect(error.unauthorized).toBe(false);
    const backwards = await failure(
      api.transactions({ ...EMPTY_FILTER, from: '2025-02-01', to: '2025-01-01' }),
    );
    expect(backwards).toMatchObject({ code: 'invalid_request', httpStatus: 400, field: 'to' });
    expect(backwards.message).toMatch(/before/);
    const missing = await failure(api.transaction(crypto.randomUUID()));
    expect(missing).toMatchObject({ code: 'not_found', httpStatus: 404, field: 'transaction_code' });
    expect(missing.message).toMatch(/No transaction has the code/);
  });

  it('reports an answer without the envelope by its HTTP status', async () => {
    // A base that reaches the dashboard's page rather than the API (a misrouted proxy, a wrong
    // base) gets HTML back: the page of a server without a dashboard build is a 404, a built one a 200.
    const built = mkdtempSync(join(tmpdir(), 'cryptocheckout-dashboard-build-'));
    mkdirSync(join(built, 'assets'));
    writeFileSync(join(built, 'index.html'), '<!doctype html><title>Operator</title>');
    const pageServer = await startOperatorServer({ dashboardDir: join(built, 'missing') });
    try {
      const atPage = (origin: string) =>
        new OperatorApi({ base: `${origin}/dashboard?path=`, fetch: globalThis.fetch, token: () => token });
      const notBuilt = await failure(atPage(pageServer.origin).overview());
      expect(notBuilt).toMatchObject({ code: 'http_error', httpStatus: 404 });
      expect(notBuilt.message).toMatch(/HTTP 404/);

      await pageServer.restart({ dashboardDir: built });
      const page = await failure(atPage(pageServer.origin).overview());
      expect(page).toMatchObject({ code: 'unexpected_response', httpStatus: 200 });
    } finally {
      await pageServer.close();
      rmSync(built, { recursive: true, force: true });
    }
    // A success envelope whose data is no overview (here: a transactions page) is refused too.
    const misrouted = new OperatorApi({
      base: `${server.base}/transactions?path=`,
      fetch: globalThis.fetch,
      token: () => token,
    });
    expect(await failure(misrouted.overview())).toMatchObject({
      code: 'unexpected_response',
      httpStatus: 200,
    });
  });

  it('reports a server that cannot be reached, and a cancelled request', async () => {
    const offline = new OperatorApi({
      base: 'http://127.0.0.1:9/api/operator',
      fetch: globalThis.fetch,
      token: () => 't',
    });
    const error = await failure(offline.overview());
    expect(error).toMatchObject({ code: 'network', httpStatus: 0 });
    expect(error.message).toMatch(/could not be reached/);
    const controller = new AbortController();
    controller.abort();
    const aborted = await failure(api.overview(controller.signal));
    expect(aborted.aborted).toBe(true);
  });

  it('passes filter, limit and cursor as query parameters', async () => {
    const older = await server.createCheckout({ external_reference: 'API-PAGES' });
    const newer = await server.createCheckout({ external_reference: 'API-PAGES' });
    await server.settle(older);
    await server.settle(newer);
    await server.createCheckout({ external_reference: 'API-PAGES' });
    const filter = { ...EMPTY_FILTER, q: 'API-PAGES', status: 'settled' as const };
    const first = await api.transactions(filter, { limit: 1 });
    expect(first.items.map((item) => item.transaction_code)).toEqual([newer]);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await api.transactions(filter, { limit: 1, cursor: first.next_cursor });
    expect(second.items.map((item) => item.transaction_code)).toEqual([older]);
    expect(second.next_cursor).toBeNull();
    expect(server.requests.at(-1)!.query.toString()).toBe(
      new URLSearchParams({
        q: 'API-PAGES',
        status: 'settled',
        limit: '1',
        cursor: first.next_cursor!,
      }).toString(),
    );
    const byCode = await api.transactions({ ...EMPTY_FILTER, q: older });
    expect(byCode.items.map((item) => item.transaction_code)).toEqual([older]);
  });

  it('downloads the CSV with the token and the filter', async () => {
    const code = await server.createCheckout({ external_reference: 'API-CSV' });
    const blob = await api.transactionsCsv({ ...EMPTY_FILTER, q: 'API-CSV' });
    const lines = (await blob.text()).trimEnd().split('\r\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^transaction_code,created_at,status,external_reference,/);
    expect(lines[1]).toMatch(new RegExp(`^${code},[^,]+,pending,API-CSV,`));
    expect(server.requests.at(-1)).toMatchObject({
      path: '/api/operator/transactions.csv',
      authorization: `Bearer ${OPERATOR_TOKEN}`,
    });
    expect(server.requests.at(-1)!.query.toString()).toBe('q=API-CSV');
    token = 'not-the-operator-token-of-this-server';
    expect((await failure(api.transactionsCsv(EMPTY_FILTER))).unauthorized).toBe(true);
  });

  describe('resend', () => {
    let receiver: WebhookReceiver | undefined;
    // Before the server closes: a webhook the receiver holds back would keep the close waiting.
    afterAll(() => receiver?.close());

    it('posts a resend without a body and reads whether it was created', async () => {
      receiver = await startWebhookReceiver({ status: 500 });
      const code = await server.createCheckout({
        external_reference: 'API-RESEND',
        webhook_url: receiver.url,
      });
      await server.settle(code);
      const failed = await waitForFailedDelivery(code);
      // The shop now holds its answer back, so the first resend is still pending at the second.
      receiver.answer = { status: 200, delayMs: 3_000 };
      const first = await api.resend(failed);
      expect(first).toEqual({ delivery_id: expect.any(String), created: true });
      expect(first.delivery_id).not.toBe(failed);
      expect(await api.resend(failed)).toEqual({ delivery_id: first.delivery_id, created: false });
      const posts = server.requests.filter((request) => request.method === 'POST');
      expect(posts.map((request) => request.path)).toEqual([
        `/api/operator/deliveries/${failed}/resend`,
        `/api/operator/deliveries/${failed}/resend`,
      ]);
      expect(await failure(api.resend(crypto.randomUUID()))).toMatchObject({
        code: 'not_found',
        httpStatus: 404,
      });
    });
  });

  it('reads stats and unmatched transfers', async () => {
    const before = (await api.stats(30)).days.at(-1)!.checkouts;
    await server.createCheckout({ external_reference: 'API-STATS' });
    const stats = await api.stats(30);
    expect(stats.days).toHaveLength(30);
    expect(stats.days.at(-1)).toMatchObject({
      date: new Date().toISOString().slice(0, 10),
      checkouts: before + 1,
    });
    expect(server.requests.at(-1)!.query.get('days')).toBe('30');
    expect(await api.unmatched({ limit: 10 })).toEqual({ items: [], next_cursor: null });
    expect(server.requests.at(-1)!.query.toString()).toBe('limit=10');
  });
});

/** Waits until the first webhook delivery of `code` has failed for good; returns its id. */
function waitForFailedDelivery(code: string): Promise<string> {
  return vi.waitFor(
    async () => {
      const detail = await server.operator<OperatorTransactionDetail>(`/transactions/${code}`);
      expect(detail.deliveries[0]?.state).toBe('failed');
      return detail.deliveries[0]!.delivery_id;
    },
    { timeout: EVENT_DEADLINE_MS, interval: 50 },
  );
}
