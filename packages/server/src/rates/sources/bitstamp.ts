import {
  EXCHANGE_MAX_AGE_MINUTES,
  EXCHANGE_REFRESH_MS,
  minutesAfter,
  PRICED_ASSETS,
  parseJson,
  positiveDecimal,
  type RateSource,
  type SourceQuote,
} from './rate-source.js';

/**
 * Bitstamp's public tickers (`/api/v2/ticker/`, every pair in one answer, no key): the last price
 * of each `<ASSET>/USD` pair with its Unix timestamp.
 */
export const bitstampSource: RateSource = {
  name: 'bitstamp',
  label: 'Bitstamp',
  kind: 'asset',
  defaultUrl: 'https://www.bitstamp.net/api/v2/ticker/',
  refreshIntervalMs: EXCHANGE_REFRESH_MS,
  async read(url, fetchText, now) {
    return parseBitstampTickers(await fetchText(url), now);
  },
};

/**
 * Reads the all-pairs ticker answer; a pair's time is its own timestamp, never later than now.
 * @throws Error when it is not a list or no asset we price has a USD pair.
 */
export function parseBitstampTickers(text: string, now: Date): SourceQuote[] {
  const body = parseJson(text, 'Bitstamp');
  if (!Array.isArray(body)) throw new Error('Bitstamp: the answer is not a list of tickers');
  const wanted = new Set<string>(PRICED_ASSETS);
  const quotes: SourceQuote[] = [];
  for (const ticker of body as Array<{ pair?: unknown; last?: unknown; timestamp?: unknown }>) {
    const [asset, quote] = typeof ticker?.pair === 'string' ? ticker.pair.split('/') : [];
    const price = positiveDecimal(ticker?.last);
    const seconds = Number(ticker?.timestamp);
    if (!asset || quote !== 'USD' || !wanted.has(asset) || !price || !Number.isFinite(seconds)) continue;
    const asOf = new Date(Math.min(seconds * 1000, now.getTime())).toISOString();
    quotes.push({
      code: asset,
      usdPerUnit: price,
      asOf,
      freshUntil: minutesAfter(asOf, EXCHANGE_MAX_AGE_MINUTES),
    });
  }
  if (quotes.length === 0) throw new Error('Bitstamp: no USD pair of a priced asset in the answer');
  return quotes;
}
