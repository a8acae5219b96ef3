import { describe, expect, it } from 'vitest';
import { EMPTY_FILTER, filterParams, isIsoDate, parseRoute, type Route, routeHash } from './router.js';

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
    expect(parseRoute('#/settings')).toEqual({ view: 'not-found', path: '/settings' });
    expect(parseRoute('#/transactions/%E0%A4%A')).toEqual({
      view: 'not-found',
      path: '/transactions/%E0%A4%A',
    });
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
