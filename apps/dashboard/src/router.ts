import type { TransactionStatus } from '@cryptocheckout/core';

/** Hash routes of the dashboard: `#/transactions?…`, `#/transactions/<code>`, `#/unmatched`. */

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

export type Route =
  | { view: 'transactions'; filter: TransactionFilter }
  | { view: 'detail'; code: string }
  | { view: 'unmatched' }
  | { view: 'not-found'; path: string };

export const EMPTY_FILTER: TransactionFilter = Object.freeze({ q: '', status: '', from: '', to: '' });

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
