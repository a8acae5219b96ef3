import {
  EXCHANGE_MAX_AGE_MINUTES,
  EXCHANGE_REFRESH_MS,
  minutesAfter,
  parseJson,
  positiveDecimal,
  type RateSource,
  type SourceQuote,
} from './rate-source.js';

/** Coinbase Exchange's USD products of the assets we price (USDC has none: Coinbase books it as USD). */
const PRODUCTS: Record<string, string> = {
  BTC: 'BTC-USD',
  ETH: 'ETH-USD',
  SOL: 'SOL-USD',
  USDT: 'USDT-USD',
  POL: 'POL-USD',
};

/**
 * Coinbase Exchange's public product ticker (`/products/<ASSET>-USD/ticker`, no key), one request
 * per asset: the last trade's price and time. A product that fails is left out; all failing is an error.
 */
export const coinbaseSource: RateSource = {
  name: 'coinbase',
  label: 'Coinbase',
  kind: 'asset',
  defaultUrl: 'https://api.exchange.coinbase.com',
  refreshIntervalMs: EXCHANGE_REFRESH_MS,
  async read(url, fetchText, now) {
    const base = url.replace(/\/+$/, '');
    const results = await Promise.allSettled(
      Object.entries(PRODUCTS).map(async ([asset, product]) =>
        parseCoinbaseTicker(asset, await fetchText(`${base}/products/${product}/ticker`), now),
      ),
    );
    const quotes = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    if (quotes.length === 0) {
      const first = results.find((result) => result.status === 'rejected');
      throw new Error(
        `Coinbase: no product answered (${String(first?.reason instanceof Error ? first.reason.message : first?.reason)})`,
      );
    }
    return quotes;
  },
};

/**
 * Reads one product ticker; its time is the last trade's, never later than now.
 * @throws Error when the price or the time is missing.
 */
export function parseCoinbaseTicker(asset: string, text: string, now: Date): SourceQuote {
  const body = parseJson(text, 'Coinbase') as { price?: unknown; time?: unknown; message?: unknown };
  const price = positiveDecimal(body.price);
  const time = typeof body.time === 'string' ? Date.parse(body.time) : Number.NaN;
  if (!price || Number.isNaN(time)) {
    throw new Error(
      `Coinbase: ${asset} ticker has no price or time${typeof body.message === 'string' ? ` (${body.message})` : ''}`,
    );
  }
  const asOf = new Date(Math.min(time, now.getTime())).toISOString();
  return { code: asset, usdPerUnit: price, asOf, freshUntil: minutesAfter(asOf, EXCHANGE_MAX_AGE_MINUTES) };
}
