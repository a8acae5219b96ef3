import type { LockedRate, OperatorRates } from '@cryptocheckout/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openFakeDashboard, RATES_NOW, ratesOf, settle } from '../fake-api.test-helpers.js';
import { formatLocalDateTime } from '../format.js';

// The Rates view against a scripted operator API (a live server's stale, depegged and diverging
// prices cannot be made on demand), and the locked rate on a transaction's page.

beforeEach(() => {
  // Only the clock: the page's timers and the waits stay real. Ages are read against RATES_NOW.
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date(RATES_NOW));
});
afterEach(() => {
  vi.useRealTimers();
});

const cellsOf = (row: Element) =>
  [...row.querySelectorAll('td')].map((cell) => cell.textContent?.replace(/\s+/g, ' ').trim());
/** A currency's or asset's sources, one text each: "ECB: 1.0612 1 h ago". */
const valuesOf = (row: Element) =>
  [...row.querySelectorAll('.rate-values li')].map((item) => item.textContent?.replace(/\s+/g, ' ').trim());

function openRates(rates: OperatorRates, mode: 'live' | 'sandbox' = 'live') {
  return openFakeDashboard(
    '#/rates',
    (request) => (request.path === '/api/operator/rates' ? { data: rates } : undefined),
    { mode },
  );
}

describe('rates view', () => {
  it('says prices come from live sources, with the floor and the divergence limit', async () => {
    const page = openRates(ratesOf());
    await settle(() => expect(page.doc.querySelectorAll('tr[data-rate]')).toHaveLength(5));
    expect(page.text('h1')).toBe('Rates');
    expect(page.text('header nav a[aria-current="page"]')).toBe('Rates');
    expect(page.doc.title).toMatch(/^Rates — /);
    const origin = page.doc.getElementById('rates-origin')!;
    expect(origin.textContent).toMatch(/^Prices come from live market sources\./);
    expect(origin.className).toBe('intro');
    expect(page.text('#rates-limits')).toBe(
      'Stablecoins are refused under 0.98 USD. Sources more than 2% from the median are reported as diverging.',
    );
    const reads = page.requests.filter((request) => request.path === '/api/operator/rates');
    expect(reads[0]).toMatchObject({ method: 'GET', authorization: 'Bearer fake-operator-token' });
  });

  it('lists fiat currencies and crypto assets apart: rate and spread, each source with value and age, divergence, status', async () => {
    const page = openRates(ratesOf());
    await settle(() => expect(page.doc.querySelectorAll('tr[data-rate]')).toHaveLength(5));
    expect(
      [...page.doc.querySelectorAll('#rates-fiat-table tr[data-rate]')].map((row) =>
        row.getAttribute('data-rate'),
      ),
    ).toEqual(['EUR', 'JPY']);
    const row = (code: string) => page.doc.querySelector(`tr[data-rate="${code}"]`)!;
    expect(cellsOf(row('EUR'))).toEqual(['EUR', '1.0718 incl. 1% spread', expect.any(String), '—', 'OK']);
    expect(valuesOf(row('EUR'))).toEqual(['ECB: 1.0612 1 h ago', 'ExchangeRate-API: 1.0610 1 d ago Stale']);
    // A source's value too old for the median is marked; its exact time is kept in the tooltip.
    const [fresh, stale] = row('EUR').querySelectorAll('.rate-values li');
    expect(fresh!.classList.contains('is-stale')).toBe(false);
    expect(stale!.classList.contains('is-stale')).toBe(true);
    expect(stale!.querySelector('.badge')?.className).toBe('badge badge--stale');
    expect(stale!.querySelector('time')?.getAttribute('datetime')).toBe('2026-11-26T09:00:00.000Z');
    expect(row('EUR').className).toBe('');

    // Refused: no price, the status in red and the server's problem text beside it.
    expect(cellsOf(row('JPY'))[1]).toBe('Refused');
    expect(row('JPY').className).toBe('row--alert');
    expect(row('JPY').querySelector('.badge')?.textContent).toBe('Stale');
    expect(row('JPY').querySelector('.problem')?.textContent).toMatch(/^No fresh rate for JPY/);

    expect(row('USDC').className).toBe('row--alert');
    expect(valuesOf(row('USDC'))).toEqual(['Kraken: 0.9500 30 s ago', 'Coinbase: 0.9502 20 s ago']);
    expect(cellsOf(row('USDC'))).toEqual([
      'USDC',
      'Refused',
      expect.any(String),
      '0.01%',
      'Depegged USDC trades at 0.9501 USD, under the 0.98 USD floor: paying in USDC is paused until it recovers.',
    ]);
    expect(row('USDC').querySelector('.badge')?.className).toBe('badge badge--rate-depegged');

    // Priced, but the sources disagree: marked amber, with the divergence.
    expect(row('BTC').className).toBe('row--warn');
    expect(cellsOf(row('BTC')).slice(0, 4)).toEqual([
      'BTC',
      '96,500 incl. 0.5% spread',
      expect.any(String),
      '6.19%',
    ]);
    expect(valuesOf(row('BTC'))).toEqual([
      'Kraken: 97,000 30 s ago',
      'Coinbase: 97,010.5 20 s ago',
      'Bitstamp: 91,000 2 min ago',
    ]);
    expect(row('BTC').querySelector('.badge')?.textContent).toBe('Diverging');
    expect(cellsOf(row('ETH'))[1]).toBe('3,480.25');
  });

  it('shows each source: origin, refresh interval, last success as an age, last error, and a stale badge', async () => {
    const page = openRates(ratesOf());
    await settle(() => expect(page.doc.querySelectorAll('tr[data-source]')).toHaveLength(3));
    expect([...page.doc.querySelectorAll('caption')].map((caption) => caption.textContent)).toEqual([
      'Fiat currencies',
      'Crypto assets',
      'Rate sources',
    ]);
    const row = (name: string) => page.doc.querySelector(`tr[data-source="${name}"]`)!;
    expect(cellsOf(row('ecb'))).toEqual([
      'ECB ecb',
      'Fiat currencies',
      'https://www.ecb.europa.eu',
      'every 1 h',
      '30 min ago',
      '—',
      'Fresh',
    ]);
    expect(row('ecb').querySelector('time')?.getAttribute('title')).toBe('2026-11-27T14:30:00.000Z (UTC)');
    // The error is text, never markup.
    expect(cellsOf(row('exchange-rate-api')).slice(4)).toEqual([
      '1 d ago',
      'HTTP 503 <b>Service Unavailable</b>',
      'Stale',
    ]);
    expect(row('exchange-rate-api').querySelector('b')).toBeNull();
    expect(row('exchange-rate-api').className).toBe('row--alert');
    expect(cellsOf(row('kraken'))[3]).toBe('every 1 min');
  });

  it('marks a failing source that is not stale yet', async () => {
    const rates = ratesOf();
    rates.sources[2] = { ...rates.sources[2]!, last_error: 'timed out after 5 s' };
    const page = openRates(rates);
    await settle(() => expect(page.doc.querySelectorAll('tr[data-source]')).toHaveLength(3));
    const kraken = page.doc.querySelector('tr[data-source="kraken"]')!;
    expect(kraken.className).toBe('row--warn');
    expect(cellsOf(kraken).slice(5)).toEqual(['timed out after 5 s', 'Failing']);
  });

  it('on a live server priced from the static table, says so as a warning', async () => {
    const rates = ratesOf({
      source: 'static',
      divergence_limit_percent: '0',
      sources: [],
      rates: [
        {
          code: 'EUR',
          kind: 'fiat',
          usd_per_unit: '1.08',
          spread_percent: '0',
          sources: [
            { source: 'static table', usd_per_unit: '1.08', as_of: '2026-11-01T00:00:00.000Z', fresh: true },
          ],
          divergence_percent: null,
          status: 'static',
          problem: null,
          last_priced_at: '2026-11-01T00:00:00.000Z',
        },
      ],
    });
    const page = openRates(rates, 'live');
    await settle(() => expect(page.doc.querySelectorAll('tr[data-rate]')).toHaveLength(1));
    const origin = page.doc.getElementById('rates-origin')!;
    expect(origin.className).toBe('warning');
    expect(origin.textContent).toBe(
      'Static table 2026-11-01: this live server prices every checkout from fixed rates, not the market.',
    );
    expect(page.doc.getElementById('rates-limits')!.hidden).toBe(true);
    expect(cellsOf(page.doc.querySelector('tr[data-rate="EUR"]')!)).toEqual([
      'EUR',
      '1.08',
      'static table: 1.08 26 d ago',
      '—',
      'Static table',
    ]);
    expect(page.text('#rates-asset-table tbody')).toBe('No crypto asset is priced.');
    expect(page.text('#rate-sources-table tbody')).toBe(
      'No market source is read: prices come from the static table.',
    );
  });

  it('in sandbox mode, names the static table without alarm', async () => {
    const page = openRates(ratesOf({ source: 'static', sources: [], rates: [] }), 'sandbox');
    await settle(() => expect(page.text('#rates-origin')).toMatch(/^Static table 2026-11-01: sandbox/));
    expect(page.doc.getElementById('rates-origin')!.className).toBe('intro');
  });

  it('reads the rates again while auto-refresh is on, and shows a failed read in the alert', async () => {
    let answer: 'ok' | 'fail' = 'ok';
    const page = openFakeDashboard('#/rates', (request) => {
      if (request.path !== '/api/operator/rates') return undefined;
      return answer === 'ok'
        ? { data: ratesOf() }
        : { status: 500, error: { code: 'internal', message: 'The rates are not readable.' } };
    });
    await settle(() => expect(page.doc.querySelectorAll('tr[data-rate]')).toHaveLength(5));
    expect(page.text('.updated')).toMatch(/^Updated \d\d:\d\d:\d\d$/);
    answer = 'fail';
    // The refresh timer of the fake page is long; visibility coming back refreshes at once.
    page.doc.dispatchEvent(new page.window.Event('visibilitychange') as unknown as Event);
    await settle(() => expect(page.text('[role="alert"]')).toBe('The rates are not readable.'));
    // What was shown stays.
    expect(page.doc.querySelectorAll('tr[data-rate]')).toHaveLength(5);
    answer = 'ok';
    page.doc.dispatchEvent(new page.window.Event('visibilitychange') as unknown as Event);
    await settle(() => expect(page.text('[role="alert"]')).toBe(''));
    expect(page.requests.filter((request) => request.path === '/api/operator/rates')).toHaveLength(3);
  });
});

describe('the locked rate on a transaction page', () => {
  const CODE = 'TXN-RATE-1';

  function detailOf(rate: LockedRate | undefined) {
    return {
      transaction: {
        transaction_code: CODE,
        external_reference: 'ORD-RATE',
        status: 'pending',
        late: false,
        fiat_amount: 20,
        fiat_currency: 'EUR',
        amount_in_usd: 21.44,
        received_usd: 0,
        wallet_address: `0x${'b'.repeat(40)}`,
        wallet_currency: 'USDC',
        wallet_network: 'POLYGON',
        payment_method: null,
        created_at: '2026-11-27T14:50:00.000Z',
        expires_at: '2026-11-27T15:50:00.000Z',
        settled_at: null,
        payout_dispatched: false,
        checkout_url: 'https://pay.example/x',
        payments: [],
        ...(rate ? { rate } : {}),
      },
      webhook_url_origin: null,
      usd_rate: '1.0718',
      rate_source: 'ECB 2026-11-27 14:00 UTC · ExchangeRate-API 2026-11-27 14:02 UTC',
      monitor_until: '2026-11-28T15:50:00.000Z',
      history: [],
      payments: [],
      payment_options: [],
      deliveries: [],
      chain_transfers: [],
    };
  }

  const summaryRows = (doc: Document) => {
    const terms = [...doc.querySelectorAll('.summary dt')].map((term) => term.textContent?.trim() ?? '');
    const values = [...doc.querySelectorAll('.summary dd')];
    return new Map(terms.map((term, index) => [term, values[index]!]));
  };

  it('shows the rate with its spread, sources, publication time and how long the price holds', async () => {
    const rate: LockedRate = {
      usd_per_unit: '1.0718',
      source: 'ECB 2026-11-27 14:00 UTC · ExchangeRate-API 2026-11-27 14:02 UTC',
      sources: ['ECB', 'ExchangeRate-API'],
      as_of: '2026-11-27T14:00:00.000Z',
      spread_percent: '1',
      held_until: '2026-11-27T15:50:00.000Z',
    };
    const page = openFakeDashboard(`#/transactions/${CODE}`, (request) =>
      request.path === `/api/operator/transactions/${CODE}` ? { data: detailOf(rate) } : undefined,
    );
    await settle(() => expect(page.doc.querySelector('.summary')).not.toBeNull());
    const rows = summaryRows(page.doc);
    expect(rows.get('Rate')?.textContent).toBe('1 EUR = 1.0718 USD (incl. 1% spread)');
    expect(rows.get('Rate sources')?.textContent).toBe(`ECB, ExchangeRate-API ${rate.source}`);
    expect(rows.get('Rate as of')?.textContent).toBe(formatLocalDateTime(rate.as_of));
    expect(rows.get('Rate as of')?.querySelector('time')?.getAttribute('datetime')).toBe(rate.as_of);
    expect(rows.get('Price held until')?.textContent).toBe(formatLocalDateTime(rate.held_until));
  });

  it('without transaction.rate (an older server), falls back to usd_rate and rate_source', async () => {
    const page = openFakeDashboard(`#/transactions/${CODE}`, (request) =>
      request.path === `/api/operator/transactions/${CODE}` ? { data: detailOf(undefined) } : undefined,
    );
    await settle(() => expect(page.doc.querySelector('.summary')).not.toBeNull());
    const rows = summaryRows(page.doc);
    expect(rows.get('Rate')?.textContent).toBe(
      '1 EUR = 1.0718 USD (source: ECB 2026-11-27 14:00 UTC · ExchangeRate-API 2026-11-27 14:02 UTC)',
    );
    expect(rows.has('Rate sources')).toBe(false);
    expect(rows.has('Price held until')).toBe(false);
  });
});
