import { describe, expect, it } from 'vitest';
import { type BoardValue, priceOnBoard } from './rate-board.js';

const NOW = new Date('2026-11-29T12:00:00.000Z');
const settings = { spreadPercent: () => '0', stablecoinFloorUsd: '0.98', divergenceLimitPercent: '2' };
const value = (
  label: string,
  usdPerUnit: string,
  freshUntil = '2026-11-29T13:00:00.000Z',
  asOf = '2026-11-29T11:00:00.000Z',
): BoardValue => ({
  source: label.toLowerCase(),
  label,
  usdPerUnit,
  asOf,
  freshUntil,
});

describe('priceOnBoard', () => {
  it('charges the median of the fresh sources and says which and since when', () => {
    const entry = priceOnBoard(
      'EUR',
      'fiat',
      [
        value('ECB', '1.25', undefined, '2026-11-28T15:00:00.000Z'),
        value('ExchangeRate-API', '1.3'),
        value('Old', '9', '2026-11-29T11:59:59.999Z'),
      ],
      NOW,
      settings,
    );
    expect(entry.quote).toEqual({
      usdPerUnit: '1.275',
      source: 'ECB 2026-11-28 15:00 UTC · ExchangeRate-API 2026-11-29 11:00 UTC',
      sources: ['ECB', 'ExchangeRate-API'],
      asOf: '2026-11-28T15:00:00.000Z',
      spreadPercent: '0',
    });
    expect(entry.row.sources.map((each) => each.fresh)).toEqual([true, true, false]);
    // 1.3 is 1.96% from 1.275: within the 2% limit.
    expect(entry.row).toMatchObject({ status: 'ok', divergence_percent: '1.96', problem: null });
  });

  it('reports sources further apart than the limit but still charges their median', () => {
    const entry = priceOnBoard(
      'BTC',
      'asset',
      [value('Kraken', '68000'), value('Coinbase', '68100'), value('Bitstamp', '72000')],
      NOW,
      settings,
    );
    expect(entry.quote!.usdPerUnit).toBe('68100');
    expect(entry.row).toMatchObject({ status: 'diverging', divergence_percent: '5.73' });
    expect(entry.row.problem).toMatch(
      /Sources disagree by 5.73% \(limit 2%\): Kraken 68000, Coinbase 68100, Bitstamp 72000; charging their median/,
    );
    const close = priceOnBoard(
      'BTC',
      'asset',
      [value('Kraken', '68000'), value('Coinbase', '68100')],
      NOW,
      settings,
    );
    expect(close.row).toMatchObject({ status: 'ok', divergence_percent: '0.07', problem: null });
  });

  it('refuses a code without a fresh value, naming it and when it was last priced', () => {
    const entry = priceOnBoard(
      'EUR',
      'fiat',
      [value('ECB', '1.25', '2026-11-29T11:00:00.000Z', '2026-11-20T15:00:00.000Z')],
      NOW,
      settings,
    );
    expect(entry.quote).toBeUndefined();
    expect(entry.refusal).toBe(
      'No fresh rate for EUR: last priced 2026-11-20 15:00 UTC (sources: ECB). New checkouts in EUR are refused until a source answers.',
    );
    expect(priceOnBoard('NGN', 'fiat', [], NOW, settings).refusal).toMatch(
      /No fresh rate for NGN: never priced yet \(sources: none answered\)/,
    );
  });

  it('applies the spread against the buyer: a fiat rate up, an asset price down', () => {
    const spread = { ...settings, spreadPercent: (code: string) => (code === 'EUR' ? '1' : '0.5') };
    expect(priceOnBoard('EUR', 'fiat', [value('ECB', '1.25')], NOW, spread).quote).toMatchObject({
      usdPerUnit: '1.2625',
      spreadPercent: '1',
    });
    expect(priceOnBoard('BTC', 'asset', [value('Kraken', '68000')], NOW, spread).quote!.usdPerUnit).toBe(
      '67660',
    );
  });

  it('charges a stablecoin at par above its floor and refuses it below, with the reason', () => {
    const steady = priceOnBoard(
      'USDC',
      'asset',
      [value('Kraken', '0.9991'), value('Bitstamp', '1.0003')],
      NOW,
      { ...settings, spreadPercent: () => '3' },
    );
    expect(steady.quote).toMatchObject({ usdPerUnit: '1', spreadPercent: '0' });
    const depegged = priceOnBoard(
      'USDC',
      'asset',
      [value('Kraken', '0.95'), value('Bitstamp', '0.951')],
      NOW,
      settings,
    );
    expect(depegged.quote).toBeUndefined();
    expect(depegged.refusal).toBe(
      'USDC trades at 0.9505 USD, under the 0.98 USD floor: paying in USDC is paused until it recovers.',
    );
    expect(depegged.row.status).toBe('depegged');
  });
});
