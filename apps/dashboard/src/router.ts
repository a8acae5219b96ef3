import type { RefundStatus, TransactionStatus } from '@cryptocheckout/core';

/**
 * Hash routes of the dashboard: `#/transactions?…`, `#/transactions/<code>`, `#/unmatched`,
 * `#/refunds?…`, `#/refunds/<refund id>`, `#/merchant-keys`, `#/rates`.
 */

/** Statuses the transactions filter offers, in the order a transaction passes through them. */
export const FILTER_STATUSES: readonly TransactionStatus[] = [
  'pending',
  'processing',
  'underpaid',
  'settled',
  'expired',
];

/** The transactions list's filter; empty strings mean "not filtered". */
export interface TransactionFilter {
  /** A full transaction code or an exact external reference. */
  q: string;
  status: TransactionStatus | '';
  /** UTC dates YYYY-MM-DD, both inclusive. */
  from: string;
  to: string;
}

/**
 * Refund statuses in the order a refund passes through them. Spelled out rather than imported: the
 * core's list lives beside its zod schemas, which the page must not bundle.
 */
export const REFUND_FILTER_STATUSES: readonly RefundStatus[] = [
  'awaiting_address',
  'awaiting_payment',
  'paid',
  'cancelled',
  'expired',
];

/** The refunds list's filter; empty strings mean "not filtered". */
export interface RefundFilter {
  /** A refund id, a transaction code or an exact external reference. */
  q: string;
  status: RefundStatus | '';
}

/** How a refund's page was reached from the refund form: a new refund, or one its reference named already. */
export type RefundArrival = 'new' | 'existing';

export type Route =
  | { view: 'transactions'; filter: TransactionFilter }
  | { view: 'detail'; code: string }
  | { view: 'unmatched' }
  | { view: 'refunds'; filter: RefundFilter }
  | { view: 'refund'; refundId: string; created?: RefundArrival }
  | { view: 'merchant-keys' }
  | { view: 'rates' }
  | { view: 'not-found'; path: string };

export const EMPTY_FILTER: TransactionFilter = Object.freeze({ q: '', status: '', from: '', to: '' });
export const EMPTY_REFUND_FILTER: RefundFilter = Object.freeze({ q: '', status: '' });

const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

/** True for a YYYY-MM-DD calendar date that exists (no 2025-02-30). */
export function isIsoDate(value: string): boolean {
  if (!DATE.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
}

/**
 * Reads a filter from query parameters, dropping values the API would refuse (an unknown status,
 * a date that does not exist) so a hand-edited address still shows a list.
 */
export function filterFromParams(params: URLSearchParams): TransactionFilter {
  const status = params.get('status') ?? '';
  const from = params.get('from') ?? '';
  const to = params.get('to') ?? '';
  return {
    q: (params.get('q') ?? '').trim(),
    status: (FILTER_STATUSES as readonly string[]).includes(status) ? (status as TransactionStatus) : '',
    from: isIsoDate(from) ? from : '',
    to: isIsoDate(to) ? to : '',
  };
}

/** The filter's set values as query parameters, in a fixed order (q, status, from, to). */
export function filterParams(filter: TransactionFilter): URLSearchParams {
  const params = new URLSearchParams();
  for (const name of ['q', 'status', 'from', 'to'] as const) {
    const value = filter[name].trim();
    if (value) params.set(name, value);
  }
  return params;
}

/** Reads a refunds filter from query parameters, dropping an unknown status. */
export function refundFilterFromParams(params: URLSearchParams): RefundFilter {
  const status = params.get('status') ?? '';
  return {
    q: (params.get('q') ?? '').trim(),
    status: (REFUND_FILTER_STATUSES as readonly string[]).includes(status) ? (status as RefundStatus) : '',
  };
}

/** The refunds filter's set values as query parameters (q, status). */
export function refundFilterParams(filter: RefundFilter): URLSearchParams {
  const params = new URLSearchParams();
  for (const name of ['q', 'status'] as const) {
    const value = filter[name].trim();
    if (value) params.set(name, value);
  }
  return params;
}

/** Parses `location.hash`; an empty hash is the transactions list, anything unknown `not-found`. */
export function parseRoute(hash: string): Route {
  const raw = hash.replace(/^#/, '');
  const queryStart = raw.indexOf('?');
  const path = queryStart === -1 ? raw : raw.slice(0, queryStart);
  const query = queryStart === -1 ? '' : raw.slice(queryStart + 1);
  const segments = path.split('/').filter((segment) => segment !== '');
  if (segments.length === 0) return { view: 'transactions', filter: { ...EMPTY_FILTER } };
  if (segments[0] === 'transactions') {
    if (segments.length === 1) {
      return { view: 'transactions', filter: filterFromParams(new URLSearchParams(query)) };
    }
    if (segments.length === 2) {
      const code = safeDecode(segments[1]!);
      if (code) return { view: 'detail', code };
    }
  }
  if (segments[0] === 'unmatched' && segments.length === 1) return { view: 'unmatched' };
  if (segments[0] === 'refunds') {
    const params = new URLSearchParams(query);
    if (segments.length === 1) return { view: 'refunds', filter: refundFilterFromParams(params) };
    const refundId = segments.length === 2 ? safeDecode(segments[1]!) : null;
    if (refundId) {
      const created = params.get('created');
      return created === 'new' || created === 'existing'
        ? { view: 'refund', refundId, created }
        : { view: 'refund', refundId };
    }
  }
  if (segments[0] === 'merchant-keys' && segments.length === 1) return { view: 'merchant-keys' };
  if (segments[0] === 'rates' && segments.length === 1) return { view: 'rates' };
  return { view: 'not-found', path: safeDecode(path) ?? path };
}

/** The hash (with its leading `#`) that parseRoute reads back as `route`. */
export function routeHash(route: Route): string {
  switch (route.view) {
    case 'transactions': {
      const query = filterParams(route.filter).toString();
      return query ? `#/transactions?${query}` : '#/transactions';
    }
    case 'detail':
      return `#/transactions/${encodeURIComponent(route.code)}`;
    case 'unmatched':
      return '#/unmatched';
    case 'refunds': {
      const query = refundFilterParams(route.filter).toString();
      return query ? `#/refunds?${query}` : '#/refunds';
    }
    case 'refund': {
      const path = `#/refunds/${encodeURIComponent(route.refundId)}`;
      return route.created ? `${path}?created=${route.created}` : path;
    }
    case 'merchant-keys':
      return '#/merchant-keys';
    case 'rates':
      return '#/rates';
    case 'not-found':
      return `#/${route.path.replace(/^\//, '')}`;
  }
}

function safeDecode(segment: string): string | null {
  try {
    return decodeURIComponent(segment).trim() || null;
  } catch {
    return null;
  }
}
