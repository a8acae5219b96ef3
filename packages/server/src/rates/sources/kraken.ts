import {
  EXCHANGE_MAX_AGE_MINUTES,
  EXCHANGE_REFRESH_MS,
  minutesAfter,
  parseJson,
  positiveDecimal,
  type RateSource,
  type SourceQuote,
} from './rate-source.js';

/** Kraken's pair names in the answer (legacy X/Z-prefixed or plain) → our asset symbols. */
const KRAKEN_PAIRS: Record<string, string> = {
  XXBTZUSD: 'BTC',
  XBTUSD: 'BTC',
  XETHZUSD: 'ETH',
  ETHUSD: 'ETH',
  SOLUSD: 'SOL',
  USDCUSD: 'USDC',
  USDTZUSD: 'USDT',
  USDTUSD: 'USDT',
  POLUSD: 'POL',
};
const REQUESTED = 'XBTUSD,ETHUSD,SOLUSD,USDCUSD,USDTUSD,POLUSD';

/**
 * Kraken's public ticker (`/0/public/Ticker?pair=…`, no key): the last trade price (`c[0]`) of each
 * USD pair, read every minute; the answer carries no time, so a value is as old as the read.
 */
export const krakenSource: RateSource = {
  name: 'kraken',
  label: 'Kraken',
  kind: 'asset',
  defaultUrl: 'https://api.kraken.com/0/public/Ticker',
  refreshIntervalMs: EXCHANGE_REFRESH_MS,
  async read(url, fetchText, now) {
    const target = new URL(url);
    if (!target.searchParams.has('pair')) target.searchParams.set('pair', REQUESTED);
    return parseKrakenTicker(await fetchText(target.toString()), now);
  },
};

/**
 * Reads a Ticker answer.
 * @throws Error when Kraken reports an error or no known pair has a price.
 */
export function parseKrakenTicker(text: string, now: Date): SourceQuote[] {
  const body = parseJson(text, 'Kraken') as { error?: unknown; result?: unknown };
  if (Array.isArray(body.error) && body.error.length > 0) throw new Error(`Kraken: ${body.error.join('; ')}`);
  if (!body.result || typeof body.result !== 'object') throw new Error('Kraken: the answer has no result');
  const asOf = now.toISOString();
  const freshUntil = minutesAfter(now, EXCHANGE_MAX_AGE_MINUTES);
  const quotes: SourceQuote[] = [];
  for (const [pair, ticker] of Object.entries(body.result as Record<string, { c?: unknown }>)) {
    const asset = KRAKEN_PAIRS[pair];
    const price = Array.isArray(ticker?.c) ? positiveDecimal(ticker.c[0]) : undefined;
    if (asset && price) quotes.push({ code: asset, usdPerUnit: price, asOf, freshUntil });
  }
  if (quotes.length === 0) throw new Error('Kraken: no known USD pair has a price in the answer');
  return quotes;
}
