import { rateQuotient } from '../rate-math.js';
import { parseJson, positiveDecimal, type RateSource, type SourceQuote } from './rate-source.js';

/** Hours past the announced next update before a day's rates count as stale. */
const UPDATE_GRACE_HOURS = 6;

/**
 * ExchangeRate-API's open access endpoint (open.er-api.com/v6/latest/USD): units of each currency
 * per USD from its own blend of central-bank and market sources, updated once a day with the time
 * of the next update announced; a second fiat source independent of the ECB, covering currencies
 * the ECB does not publish (ARS, NGN, AED, …).
 */
export const exchangeRateApiSource: RateSource = {
  name: 'exchangerate-api',
  label: 'ExchangeRate-API',
  kind: 'fiat',
  defaultUrl: 'https://open.er-api.com/v6/latest/USD',
  refreshIntervalMs: 60 * 60_000,
  async read(url, fetchText) {
    return parseExchangeRateApi(await fetchText(url));
  },
};

/**
 * Reads a `latest/USD` answer.
 * @throws Error when it is not a success, not based on USD, or carries no usable time.
 */
export function parseExchangeRateApi(text: string): SourceQuote[] {
  const body = parseJson(text, 'ExchangeRate-API') as {
    result?: unknown;
    base_code?: unknown;
    time_last_update_unix?: unknown;
    time_next_update_unix?: unknown;
    rates?: unknown;
  };
  if (body.result !== 'success')
    throw new Error(`ExchangeRate-API: result is ${JSON.stringify(body.result)}, not "success"`);
  if (body.base_code !== 'USD') throw new Error('ExchangeRate-API: base_code is not USD (read latest/USD)');
  if (typeof body.time_last_update_unix !== 'number' || !body.rates || typeof body.rates !== 'object') {
    throw new Error('ExchangeRate-API: time_last_update_unix or rates missing');
  }
  const asOf = new Date(body.time_last_update_unix * 1000).toISOString();
  const nextUpdate =
    typeof body.time_next_update_unix === 'number'
      ? body.time_next_update_unix * 1000
      : Date.parse(asOf) + 86_400_000;
  const freshUntil = new Date(nextUpdate + UPDATE_GRACE_HOURS * 3_600_000).toISOString();
  const quotes: SourceQuote[] = [];
  for (const [currency, perUsd] of Object.entries(body.rates as Record<string, unknown>)) {
    const rate = positiveDecimal(perUsd);
    if (!/^[A-Z]{3}$/.test(currency) || currency === 'USD' || !rate) continue;
    quotes.push({ code: currency, usdPerUnit: rateQuotient('1', rate), asOf, freshUntil });
  }
  return quotes;
}
