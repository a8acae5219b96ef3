import { describe, expect, it } from 'vitest';
import { resolveRates } from './rate-config.js';

describe('resolveRates', () => {
  it('takes the static table in sandbox mode and the market sources in live mode by default', () => {
    expect(resolveRates(undefined, 'sandbox')).toMatchObject({ source: 'static', sources: [] });
    const live = resolveRates(undefined, 'live');
    expect(live.source).toBe('live');
    expect(live.sources.map((each) => each.source.name)).toEqual([
      'ecb',
      'exchangerate-api',
      'kraken',
      'coinbase',
      'bitstamp',
    ]);
    expect(live.sources[0]!.url).toBe('https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml');
    expect(live).toMatchObject({ stablecoinFloorUsd: '0.98', spreadPercent: { default: '0', byCode: {} } });
  });

  it('charges the fixed table in live mode only when asked twice', () => {
    expect(() => resolveRates({ source: 'static' }, 'live')).toThrow(/--i-know-prices-are-fixed/);
    expect(resolveRates({ source: 'static', fixedPricesInLiveMode: true }, 'live').source).toBe('static');
  });

  it('replaces a source by a mirror, turns one off and sets its rhythm', () => {
    const rates = resolveRates(
      { sourceUrls: { ecb: 'http://127.0.0.1:9/ecb.xml', coinbase: 'off' }, refreshSeconds: { kraken: 0.5 } },
      'live',
    );
    expect(rates.sources.find((each) => each.source.name === 'ecb')!.url).toBe('http://127.0.0.1:9/ecb.xml');
    expect(rates.sources.some((each) => each.source.name === 'coinbase')).toBe(false);
    expect(rates.sources.find((each) => each.source.name === 'kraken')!.refreshIntervalMs).toBe(500);
  });

  it('refuses what cannot work, naming the option and the fix', () => {
    const cases: Array<[Parameters<typeof resolveRates>[0], RegExp]> = [
      [{ source: 'sometimes' as 'live' }, /rates must be "live" or "static", not "sometimes"/],
      [{ sourceUrls: { ecb: 'ftp://mirror' } }, /--rate-source ecb=ftp:\/\/mirror: give an http\(s\) URL/],
      [{ sourceUrls: { ecb: 'off', 'exchangerate-api': 'off' } }, /Every fiat rate source is off/],
      [{ refreshSeconds: { ecb: 0 } }, /--rate-refresh-seconds ecb must be from 0.05 to 86400/],
      [{ stablecoinFloorUsd: '2' }, /--stablecoin-floor must be from 0.5 to 1 USD, not 2/],
      [{ spreadPercent: '-1' }, /--rate-spread must be a number of percent/],
      [{ spreadByCode: { EUR: 'lots' } }, /--rate-spread EUR must be a number of percent/],
      [{ spreadByCode: { 'e u r': '1' } }, /--rate-spread e u r: give a currency or asset code/],
    ];
    for (const [options, message] of cases) expect(() => resolveRates(options, 'live')).toThrow(message);
  });
});
