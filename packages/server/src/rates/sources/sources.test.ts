import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseBitstampTickers } from './bitstamp.js';
import { parseCoinbaseTicker } from './coinbase.js';
import { parseEcbDaily } from './ecb.js';
import { parseExchangeRateApi } from './exchange-rate-api.js';
import { parseKrakenTicker } from './kraken.js';
import { easterSunday, isTargetWorkingDay, nextTargetWorkingDay } from './target-calendar.js';

const recorded = (name: string) =>
  readFileSync(new URL(`../../../test/fixtures/rates/${name}`, import.meta.url), 'utf8');
const NOW = new Date('2026-11-29T04:00:00.000Z');

describe('ECB daily reference rates', () => {
  const quotes = parseEcbDaily(recorded('ecb-eurofxref-daily.xml'));
  const byCode = new Map(quotes.map((quote) => [quote.code, quote]));

  it('crosses EUR rates through USD into USD per unit', () => {
    expect(byCode.get('EUR')!.usdPerUnit).toBe('1.0612');
    // 1.0612 / 0.8345 = 1.27166…; 8 significant digits, half up.
    expect(byCode.get('GBP')!.usdPerUnit).toBe('1.2716597');
    // 1.0612 / 16812.40 = 0.0000631200…
    expect(byCode.get('IDR')!.usdPerUnit).toBe('0.000063120078');
    expect(byCode.has('USD')).toBe(false);
  });

  it("dates the values to the file's day and keeps them until the next TARGET day's file is late", () => {
    // 2026-11-27 is a Friday: usable over the weekend, until Monday 21:00 UTC.
    expect(byCode.get('EUR')).toMatchObject({
      asOf: '2026-11-27T15:00:00.000Z',
      freshUntil: '2026-11-30T21:00:00.000Z',
    });
  });

  it('refuses a file that is not the eurofxref format or lacks USD', () => {
    expect(() => parseEcbDaily('<html>Maintenance</html>')).toThrow(/no <Cube time="YYYY-MM-DD">/);
    expect(() => parseEcbDaily("<Cube time='2026-11-27'><Cube currency='JPY' rate='161'/></Cube>")).toThrow(
      /the file of 2026-11-27 has no USD rate/,
    );
  });
});

describe('the TARGET calendar', () => {
  it("knows Easter and the ECB's closing days", () => {
    expect(easterSunday(2026).toISOString().slice(0, 10)).toBe('2026-04-05');
    expect(easterSunday(2027).toISOString().slice(0, 10)).toBe('2027-03-28');
    for (const closed of [
      '2026-04-03',
      '2026-04-06',
      '2026-05-01',
      '2026-12-25',
      '2026-12-26',
      '2027-01-01',
      '2026-11-28',
    ]) {
      expect(isTargetWorkingDay(new Date(`${closed}T00:00:00Z`)), closed).toBe(false);
    }
    expect(isTargetWorkingDay(new Date('2026-12-24T00:00:00Z'))).toBe(true);
    // Thursday before Easter → Tuesday after it.
    expect(nextTargetWorkingDay(new Date('2026-04-02T00:00:00Z')).toISOString().slice(0, 10)).toBe(
      '2026-04-07',
    );
    // 24 December 2027 is a Friday → Monday 27 December.
    expect(nextTargetWorkingDay(new Date('2027-12-24T00:00:00Z')).toISOString().slice(0, 10)).toBe(
      '2027-12-27',
    );
  });
});

describe('ExchangeRate-API latest/USD', () => {
  it('inverts units per USD and keeps them until a few hours past the announced next update', () => {
    const quotes = new Map(
      parseExchangeRateApi(recorded('exchangerate-api-latest-usd.json')).map((quote) => [quote.code, quote]),
    );
    expect(quotes.get('EUR')!.usdPerUnit).toBe('1.0612332');
    expect(quotes.get('ARS')!.usdPerUnit).toBe('0.00068846816');
    expect(quotes.get('EUR')).toMatchObject({
      asOf: '2025-11-29T00:02:31.000Z',
      freshUntil: '2025-11-30T06:13:41.000Z',
    });
    expect(quotes.has('USD')).toBe(false);
  });

  it('refuses an error answer, another base or garbage', () => {
    expect(() => parseExchangeRateApi('{"result":"error","error-type":"unsupported-code"}')).toThrow(
      /result is "error"/,
    );
    expect(() => parseExchangeRateApi('{"result":"success","base_code":"EUR"}')).toThrow(
      /base_code is not USD/,
    );
    expect(() => parseExchangeRateApi('<html>')).toThrow(/ExchangeRate-API: the answer is not JSON/);
  });
});

describe('exchange tickers', () => {
  it('reads Kraken last trades by their legacy pair names, as old as the read', () => {
    const quotes = new Map(
      parseKrakenTicker(recorded('kraken-ticker.json'), NOW).map((quote) => [quote.code, quote]),
    );
    expect([...quotes.keys()].sort()).toEqual(['BTC', 'ETH', 'SOL', 'USDC', 'USDT']);
    expect(quotes.get('BTC')).toMatchObject({
      usdPerUnit: '68250.1',
      asOf: NOW.toISOString(),
      freshUntil: '2026-11-29T04:05:00.000Z',
    });
    expect(quotes.get('USDC')!.usdPerUnit).toBe('1');
    expect(() => parseKrakenTicker('{"error":["EQuery:Unknown asset pair"]}', NOW)).toThrow(
      /Kraken: EQuery:Unknown asset pair/,
    );
  });

  it("reads a Coinbase product ticker with its trade's time", () => {
    expect(parseCoinbaseTicker('BTC', recorded('coinbase-product-ticker.json'), NOW)).toEqual({
      code: 'BTC',
      usdPerUnit: '68250.99',
      asOf: '2026-11-29T03:59:58.123Z',
      freshUntil: '2026-11-29T04:04:58.123Z',
    });
    expect(() => parseCoinbaseTicker('BTC', '{"message":"NotFound"}', NOW)).toThrow(
      /BTC ticker has no price or time \(NotFound\)/,
    );
  });

  it("reads Bitstamp's USD pairs of the assets we price and leaves the rest", () => {
    const quotes = parseBitstampTickers(recorded('bitstamp-tickers.json'), NOW);
    expect(quotes.map((quote) => quote.code).sort()).toEqual(['BTC', 'ETH', 'SOL', 'USDC', 'USDT']);
    expect(quotes.find((quote) => quote.code === 'BTC')).toMatchObject({
      usdPerUnit: '68248',
      asOf: '2025-11-29T03:59:58.000Z',
    });
    expect(() => parseBitstampTickers('{"error":"x"}', NOW)).toThrow(/not a list of tickers/);
  });
});
