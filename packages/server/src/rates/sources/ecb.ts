import { rateQuotient } from '../rate-math.js';
import { positiveDecimal, type RateSource, type SourceQuote } from './rate-source.js';
import { nextTargetWorkingDay } from './target-calendar.js';

/** Hours after the next publication's nominal time (16:00 CET) before a day's rates count as stale. */
const PUBLICATION_GRACE_HOURS = 6;

/**
 * The ECB's euro foreign exchange reference rates (eurofxref-daily.xml): EUR per currency, one
 * file per TARGET working day, published around 16:00 CET. Crossed through its USD rate into USD
 * per unit; usable until the next working day's file is due, plus a grace (a weekend or a holiday
 * is normal, a week is not).
 */
export const ecbSource: RateSource = {
  name: 'ecb',
  label: 'ECB',
  kind: 'fiat',
  defaultUrl: 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml',
  refreshIntervalMs: 30 * 60_000,
  async read(url, fetchText) {
    return parseEcbDaily(await fetchText(url));
  },
};

/**
 * Reads an eurofxref-daily.xml document.
 * @throws Error when the day, the USD rate or any currency is missing or malformed.
 */
export function parseEcbDaily(xml: string): SourceQuote[] {
  const day = /<Cube\s+time\s*=\s*['"](\d{4}-\d{2}-\d{2})['"]/.exec(xml)?.[1];
  if (!day || Number.isNaN(Date.parse(`${day}T00:00:00Z`))) {
    throw new Error('ECB: the answer has no <Cube time="YYYY-MM-DD"> (not the eurofxref-daily format)');
  }
  const eurRates = new Map<string, string>();
  for (const match of xml.matchAll(
    /<Cube\s+currency\s*=\s*['"]([A-Z]{3})['"]\s+rate\s*=\s*['"]([^'"]*)['"]/g,
  )) {
    const rate = positiveDecimal(match[2]);
    if (rate) eurRates.set(match[1]!, rate);
  }
  const usdPerEur = eurRates.get('USD');
  if (!usdPerEur) throw new Error(`ECB: the file of ${day} has no USD rate`);
  const asOf = `${day}T15:00:00.000Z`;
  const next = nextTargetWorkingDay(new Date(`${day}T00:00:00Z`));
  const freshUntil = new Date(next.getTime() + (15 + PUBLICATION_GRACE_HOURS) * 3_600_000).toISOString();
  const quotes: SourceQuote[] = [{ code: 'EUR', usdPerUnit: usdPerEur, asOf, freshUntil }];
  for (const [currency, eurRate] of eurRates) {
    if (currency === 'USD') continue;
    quotes.push({ code: currency, usdPerUnit: rateQuotient(usdPerEur, eurRate), asOf, freshUntil });
  }
  return quotes;
}
