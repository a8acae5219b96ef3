import type { OperatorChainTransfer, OperatorOverview, OperatorRefundDetail } from '@cryptocheckout/core';
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
