import { REFUND_STATUSES } from '@cryptocheckout/core';
import { describe, expect, it } from 'vitest';
import {
  EMPTY_FILTER,
  EMPTY_REFUND_FILTER,
  filterParams,
  isIsoDate,
  parseRoute,
  REFUND_FILTER_STATUSES,
  type Route,
  routeHash,
} from './router.js';

const CODE = '3f1c2a9e-8b7d-4c6e-9f0a-1b2c3d4e5f60';

describe('parseRoute', () => {
  it('opens the transactions list for an empty hash', () => {
    for (const hash of ['', '#', '#/', '#/transactions']) {
      expect(parseRoute(hash)).toEqual({ view: 'transactions', filter: EMPTY_FILTER });
    }
  });

  it('reads the list filter from the query', () => {
    expect(parseRoute('#/transactions?q=ORD%201&status=settled&from=2025-01-01&to=2025-01-31')).toEqual({
      view: 'transactions',
      filter: { q: 'ORD 1', status: 'settled', from: '2025-01-01', to: '2025-01-31' },
    });
  });

  it('drops filter values the API would refuse', () => {
    expect(parseRoute('#/transactions?status=paid&from=2025-02-30&to=yesterday&q=%20%20')).toEqual({
      view: 'transactions',
      filter: EMPTY_FILTER,
    });
  });

  it('reads detail, unmatched and unknown routes', () => {
    expect(parseRoute(`#/transactions/${CODE}`)).toEqual({ view: 'detail', code: CODE });
    expect(parseRoute('#/transactions/a%2Fb')).toEqual({ view: 'detail', code: 'a/b' });
    expect(parseRoute('#/unmatched')).toEqual({ view: 'unmatched' });
    expect(parseRoute('#/rates')).toEqual({ view: 'rates' });
    expect(parseRoute('#/rates/EUR')).toEqual({ view: 'not-found', path: '/rates/EUR' });
    expect(parseRoute('#/settings')).toEqual({ view: 'not-found', path: '/settings' });
    expect(parseRoute('#/transactions/%E0%A4%A')).toEqual({
      view: 'not-found',
      path: '/transactions/%E0%A4%A',
    });
  });
});

describe('refund routes', () => {
  it('reads the refunds list, its filter, one refund and the merchant keys', () => {
    expect(parseRoute('#/refunds')).toEqual({ view: 'refunds', filter: EMPTY_REFUND_FILTER });
    expect(parseRoute('#/refunds?q=%20ORD-1%20&status=awaiting_payment')).toEqual({
      view: 'refunds',
      filter: { q: 'ORD-1', status: 'awaiting_payment' },
    });
    // A status the API would refuse is dropped.
    expect(parseRoute('#/refunds?status=settled')).toEqual({ view: 'refunds', filter: EMPTY_REFUND_FILTER });
    expect(parseRoute(`#/refunds/${CODE}`)).toEqual({ view: 'refund', refundId: CODE });
    expect(parseRoute(`#/refunds/${CODE}?created=new`)).toEqual({
      view: 'refund',
      refundId: CODE,
      created: 'new',
    });
    expect(parseRoute(`#/refunds/${CODE}?created=maybe`)).toEqual({ view: 'refund', refundId: CODE });
    expect(parseRoute('#/merchant-keys')).toEqual({ view: 'merchant-keys' });
    expect(parseRoute('#/refunds/a/b')).toEqual({ view: 'not-found', path: '/refunds/a/b' });
  });

  it('builds hashes that parse back to the same route', () => {
    const routes: Route[] = [
      { view: 'refunds', filter: EMPTY_REFUND_FILTER },
      { view: 'refunds', filter: { q: 'ORD#1&x', status: 'paid' } },
      { view: 'refund', refundId: CODE },
      { view: 'refund', refundId: CODE, created: 'existing' },
      { view: 'merchant-keys' },
    ];
    for (const route of routes) expect(parseRoute(routeHash(route))).toEqual(route);
    expect(routeHash({ view: 'refunds', filter: { q: '', status: 'expired' } })).toBe(
      '#/refunds?status=expired',
    );
  });

  it('offers every refund status the core knows', () => {
    expect(REFUND_FILTER_STATUSES).toEqual(REFUND_STATUSES);
  });
});

describe('routeHash', () => {
  it('builds hashes that parse back to the same route', () => {
    const routes: Route[] = [
      { view: 'transactions', filter: EMPTY_FILTER },
      { view: 'transactions', filter: { q: 'ORD#1&x=2', status: 'expired', from: '2024-12-01', to: '' } },
      { view: 'detail', code: CODE },
      { view: 'detail', code: 'odd/code?#' },
      { view: 'unmatched' },
      { view: 'rates' },
    ];
    for (const route of routes) expect(parseRoute(routeHash(route))).toEqual(route);
    expect(routeHash({ view: 'transactions', filter: EMPTY_FILTER })).toBe('#/transactions');
    expect(routeHash({ view: 'transactions', filter: { ...EMPTY_FILTER, status: 'settled' } })).toBe(
      '#/transactions?status=settled',
    );
  });

  it('leaves unset filter values out of the query', () => {
    expect(filterParams({ q: ' ', status: '', from: '2025-01-01', to: '' }).toString()).toBe(
      'from=2025-01-01',
    );
  });
});

describe('isIsoDate', () => {
  it('accepts real calendar dates only', () => {
    expect(isIsoDate('2024-02-29')).toBe(true);
    expect(isIsoDate('2025-02-29')).toBe(false);
    expect(isIsoDate('2025-13-01')).toBe(false);
    expect(isIsoDate('2025-1-01')).toBe(false);
  });
});
