import type {
  OperatorChainTransfer,
  OperatorOverview,
  OperatorRates,
  OperatorRefundDetail,
} from '@cryptocheckout/core';
import { Window } from 'happy-dom';
import { afterEach, vi } from 'vitest';
import { type DashboardController, startDashboard } from './app.js';
import { EVENT_DEADLINE_MS } from './real-server.test-helpers.js';
import { TOKEN_KEY } from './session.js';

/**
 * The dashboard in happy-dom against a scripted operator API: for states a local server cannot
 * be brought into on demand (a deposit waiting for approval, a sweeper out of gas). Answers are
 * the server's envelopes; every request is recorded with its JSON body.
 */

const opened: DashboardController[] = [];

afterEach(() => {
  for (const controller of opened.splice(0)) controller.stop();
});

export interface FakeRequest {
  method: string;
  /** Path below the origin: `/api/operator/unmatched`. */
  path: string;
  /** The query parameters; absent when the URL has none. */
  query?: URLSearchParams;
  body: unknown;
  authorization: string | null;
}

/** An answer: `data` in the success envelope, or an error envelope with its HTTP status. */
export type FakeAnswer =
  | { data: unknown; status?: number }
  | { status: number; error: { code: string; message: string; field?: string } };

/** Answers a request (now or later), or undefined to fall through to the defaults (404 otherwise). */
export type FakeRoute = (request: FakeRequest) => FakeAnswer | undefined | Promise<FakeAnswer | undefined>;

const ORIGIN = 'http://dashboard.test';

const DEFAULTS = ({ method, path }: FakeRequest): FakeAnswer | undefined => {
  if (method !== 'GET') return undefined;
  if (path === '/api/operator/transactions') return { data: { items: [], next_cursor: null } };
  if (path === '/api/operator/unmatched') return { data: { items: [], next_cursor: null } };
  if (path === '/api/operator/stats') return { data: { days: [] } };
  if (path === '/api/health') return { data: { ok: true, mode: 'live', networks: {} } };
  if (path === '/api/operator/refunds') return { data: { items: [], next_cursor: null } };
  if (path === '/api/operator/merchant-keys') return { data: [] };
  if (path === '/api/operator/rates') return { data: ratesOf({ source: 'static', sources: [], rates: [] }) };
  return undefined;
};

/**
 * Opens the dashboard signed in at `hash`, its API answered by `route` (then the defaults: empty
 * lists, no deposit network). `overview` changes the server's mode.
 */
export function openFakeDashboard(hash: string, route: FakeRoute, overview: Partial<OperatorOverview> = {}) {
  const requests: FakeRequest[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const url = new URL(String(input), ORIGIN);
    const headers = new Headers(init?.headers);
    const request: FakeRequest = {
      method: init?.method ?? 'GET',
      path: url.pathname,
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : null,
      authorization: headers.get('authorization'),
    };
    if (url.search) request.query = url.searchParams;
    requests.push(request);
    const answer =
      request.path === '/api/operator/overview'
        ? { data: { version: 'test', mode: 'live', storage: 'sqlite', networks: ['POLYGON'], ...overview } }
        : ((await route(request)) ?? DEFAULTS(request));
    const json = (status: number, body: unknown) =>
      new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    if (!answer) {
      return json(404, {
        status: 'error',
        error: { code: 'not_found', message: `No route ${request.path}` },
      });
    }
    if ('error' in answer) return json(answer.status, { status: 'error', error: answer.error });
    return json(answer.status ?? 200, { status: 'success', data: answer.data });
  };
  const window = new Window({
    url: `${ORIGIN}/dashboard/${hash}`,
    settings: { disableJavaScriptFileLoading: true, disableCSSFileLoading: true },
  });
  window.document.write('<!doctype html><html><head></head><body><div id="app"></div></body></html>');
  window.sessionStorage.setItem(TOKEN_KEY, 'fake-operator-token');
  const doc = window.document as unknown as Document;
  const controller = startDashboard({
    document: doc,
    window: window as unknown as globalThis.Window & typeof globalThis,
    fetch,
    apiBase: `${ORIGIN}/api/operator`,
    // No timer fires within a test unless it asks for one.
    timing: { refreshMs: 600_000, followUpMs: 600_000, followUpForMs: 600_000 },
  });
  opened.push(controller);
  const text = (selector: string) => doc.querySelector(selector)?.textContent?.trim() ?? '';
  const buttonsIn = (scope: ParentNode, label: string) =>
    [...scope.querySelectorAll('button')].filter(
      (item) => item.textContent?.trim() === label,
    ) as HTMLButtonElement[];
  const byLabel = <T extends HTMLElement>(scope: ParentNode, label: string): T => {
    const element = [...scope.querySelectorAll('label')].find((item) => item.textContent?.trim() === label);
    const control = element ? doc.getElementById(element.getAttribute('for') ?? '') : null;
    if (!control) throw new Error(`No control labelled ${label}`);
    return control as T;
  };
  /** The table row of a transfer, by its transaction hash. */
  const transferRow = (txHash: string) => {
    const row = [...doc.querySelectorAll('tr[data-transfer]')].find((item) =>
      item.getAttribute('data-transfer')?.includes(txHash),
    );
    if (!row) throw new Error(`No row of transfer ${txHash}`);
    return row as HTMLTableRowElement;
  };
  const posts = () => requests.filter((request) => request.method === 'POST');
  return { window, doc, controller, requests, posts, text, buttonsIn, byLabel, transferRow };
}

/** Retries `check` until it passes: the page works in the background. */
export const settle = <T>(check: () => T) => vi.waitFor(check, { timeout: EVENT_DEADLINE_MS, interval: 5 });

/** A chain transfer as the operator API gives it; a direct-mode one kept unmatched unless changed. */
export function transferOf(overrides: Partial<OperatorChainTransfer> = {}): OperatorChainTransfer {
  return {
    network: 'POLYGON',
    tx_hash: `0x${'1'.repeat(64)}`,
    log_index: 0,
    block_number: '100',
    block_time: '2026-03-01T10:00:00.000Z',
    asset: 'USDC',
    token_contract: `0x${'c'.repeat(40)}`,
    from_address: `0x${'a'.repeat(40)}`,
    to_address: `0x${'b'.repeat(40)}`,
    amount: '1234.5',
    transaction_code: null,
    unmatched_reason: 'No open checkout asks for exactly 1234.5 USDC to this wallet.',
    confirmed: true,
    recorded_at: '2026-03-01T10:00:05.000Z',
    explorer_url: null,
    forward: null,
    resolution: null,
    ...overrides,
  };
}

/** A refund as `GET /api/operator/refunds/<id>` gives it: 12.5 USDC asked as 11.50 EUR, awaiting the buyer's address. */
export function refundOf(overrides: Partial<OperatorRefundDetail> = {}): OperatorRefundDetail {
  return {
    refund_id: '0b7c6f1e-2d3a-4e5f-8a9b-0c1d2e3f4a5b',
    transaction_code: 'TXN-REFUNDED-1',
    external_reference: 'ORD-77',
    reference: null,
    status: 'awaiting_address',
    amount: '12.5',
    asset: 'USDC',
    network: 'POLYGON',
    fiat_amount: '11.50',
    fiat_currency: 'EUR',
    reason: 'damaged parcel',
    address: null,
    payment_request: null,
    tx_id: null,
    tx_url: null,
    created_at: '2026-03-01T10:00:00.000Z',
    claim_expires_at: '2026-03-31T10:00:00.000Z',
    address_confirmed_at: null,
    paid_at: null,
    cancelled_at: null,
    history: [{ status: 'awaiting_address', at: '2026-03-01T10:00:00.000Z', note: null }],
    claim_url: `https://pay.example/refund/${'c'.repeat(43)}`,
    created_by: 'operator token',
    cancelled_by: null,
    ...overrides,
  };
}

/** The moment {@link ratesOf}'s values are measured from: its ages read against this. */
export const RATES_NOW = '2026-11-27T15:00:00.000Z';

/**
 * `GET /api/operator/rates` of a live server: EUR priced from two fresh sources with a 1% spread,
 * JPY refused (its only source stale), USDC depegged, BTC diverging, ETH fine; ExchangeRate-API
 * stale and failing, the rest answering. `static_table_date` is set for `source: 'static'`.
 */
export function ratesOf(overrides: Partial<OperatorRates> = {}): OperatorRates {
  return {
    source: 'live',
    static_table_date: overrides.source === 'static' ? '2026-11-01' : null,
    stablecoin_floor_usd: '0.98',
    divergence_limit_percent: '2',
    rates: [
      {
        code: 'EUR',
        kind: 'fiat',
        usd_per_unit: '1.0718',
        spread_percent: '1',
        sources: [
          { source: 'ECB', usd_per_unit: '1.0612', as_of: '2026-11-27T14:00:00.000Z', fresh: true },
          {
            source: 'ExchangeRate-API',
            usd_per_unit: '1.0610',
            as_of: '2026-11-26T09:00:00.000Z',
            fresh: false,
          },
        ],
        divergence_percent: null,
        status: 'ok',
        problem: null,
        last_priced_at: '2026-11-27T14:00:00.000Z',
      },
      {
        code: 'JPY',
        kind: 'fiat',
        usd_per_unit: null,
        spread_percent: '1',
        sources: [
          {
            source: 'ExchangeRate-API',
            usd_per_unit: '0.0066934',
            as_of: '2026-11-26T09:00:00.000Z',
            fresh: false,
          },
        ],
        divergence_percent: null,
        status: 'stale',
        problem:
          'No fresh rate for JPY: last priced 2026-11-26 09:00 UTC (sources: ExchangeRate-API). New checkouts in JPY are refused until a source answers.',
        last_priced_at: '2026-11-26T09:00:00.000Z',
      },
      {
        code: 'USDC',
        kind: 'asset',
        usd_per_unit: null,
        spread_percent: '0',
        sources: [
          { source: 'Kraken', usd_per_unit: '0.9500', as_of: '2026-11-27T14:59:30.000Z', fresh: true },
          { source: 'Coinbase', usd_per_unit: '0.9502', as_of: '2026-11-27T14:59:40.000Z', fresh: true },
        ],
        divergence_percent: '0.01',
        status: 'depegged',
        problem:
          'USDC trades at 0.9501 USD, under the 0.98 USD floor: paying in USDC is paused until it recovers.',
        last_priced_at: '2026-11-27T14:59:40.000Z',
      },
      {
        code: 'BTC',
        kind: 'asset',
        usd_per_unit: '96500',
        spread_percent: '0.5',
        sources: [
          { source: 'Kraken', usd_per_unit: '97000', as_of: '2026-11-27T14:59:30.000Z', fresh: true },
          { source: 'Coinbase', usd_per_unit: '97010.5', as_of: '2026-11-27T14:59:40.000Z', fresh: true },
          { source: 'Bitstamp', usd_per_unit: '91000', as_of: '2026-11-27T14:58:00.000Z', fresh: true },
        ],
        divergence_percent: '6.19',
        status: 'diverging',
        problem: 'BTC sources differ by 6.19% (limit 2%): Kraken 97000, Coinbase 97010.5, Bitstamp 91000.',
        last_priced_at: '2026-11-27T14:59:40.000Z',
      },
      {
        code: 'ETH',
        kind: 'asset',
        usd_per_unit: '3480.25',
        spread_percent: '0',
        sources: [
          { source: 'Kraken', usd_per_unit: '3480.25', as_of: '2026-11-27T14:59:30.000Z', fresh: true },
        ],
        divergence_percent: null,
        status: 'ok',
        problem: null,
        last_priced_at: '2026-11-27T14:59:30.000Z',
      },
    ],
    sources: [
      {
        name: 'ecb',
        label: 'ECB',
        kind: 'fiat',
        origin: 'https://www.ecb.europa.eu',
        refresh_interval_seconds: 3_600,
        last_attempt_at: '2026-11-27T14:30:00.000Z',
        last_success_at: '2026-11-27T14:30:00.000Z',
        last_error: null,
        stale: false,
      },
      {
        name: 'exchange-rate-api',
        label: 'ExchangeRate-API',
        kind: 'fiat',
        origin: 'https://open.er-api.com',
        refresh_interval_seconds: 3_600,
        last_attempt_at: '2026-11-27T14:55:00.000Z',
        last_success_at: '2026-11-26T09:00:00.000Z',
        last_error: 'HTTP 503 <b>Service Unavailable</b>',
        stale: true,
      },
      {
        name: 'kraken',
        label: 'Kraken',
        kind: 'asset',
        origin: 'https://api.kraken.com',
        refresh_interval_seconds: 60,
        last_attempt_at: '2026-11-27T14:59:30.000Z',
        last_success_at: '2026-11-27T14:59:30.000Z',
        last_error: null,
        stale: false,
      },
    ],
    ...overrides,
  };
}
