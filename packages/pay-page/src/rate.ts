import { compareDecimals, type Transaction } from '@cryptocheckout/core';
import { formatText } from './format.js';
import type { Messages } from './i18n.js';

/**
 * The locked exchange rate under the order amount: "1 EUR = 1.0612 USD · ECB, ExchangeRate-API ·
 * 27 Nov 15:00 UTC · price held until 15:02 UTC". Server-rendered only; the browser script never
 * changes it.
 */

/** The source name the static table is stored under; shown in the page language. */
const STATIC_TABLE_SOURCE = 'static table';

/** The parts of the rate line, each already in the page language; null parts are left out. */
export interface RateLine {
  /** "1 EUR = 1.0612 USD". */
  rate: string;
  /** "incl. 1% spread" when the merchant adds one; otherwise null. */
  spread: string | null;
  /** "ECB, ExchangeRate-API"; null when the server named none. */
  sources: string | null;
  /** When the rate was published: "27 Nov 15:00 UTC"; null when not a valid time. */
  asOf: string | null;
  /** "price held until 15:02 UTC" while the order can still be paid; otherwise null. */
  heldUntil: string | null;
}

/**
 * The rate line of an order, or null when there is none to show: a USD order converts nothing (the
 * countdown already says how long the checkout lasts), and older data carries no `rate`.
 */
export function rateLine(transaction: Transaction, t: Messages, lang: string, now: Date): RateLine | null {
  const { rate } = transaction;
  if (!rate || transaction.fiat_currency.toUpperCase() === 'USD') return null;
  const rateText = `1 ${transaction.fiat_currency} = ${formatRateNumber(rate.usd_per_unit, lang)} USD`;
  const open = transaction.status !== 'settled' && transaction.status !== 'expired';
  const heldUntil = open ? formatUtcTime(rate.held_until, lang, now, { timeOnlyToday: true }) : null;
  const sources = rate.sources.map((name) => (name === STATIC_TABLE_SOURCE ? t.rateStaticTable : name));
  return {
    rate: rateText,
    spread:
      compareDecimals(rate.spread_percent, '0') > 0
        ? formatText(t.rateSpread, { percent: formatPercent(Number(rate.spread_percent), lang) })
        : null,
    sources: sources.length > 0 ? sources.join(', ') : null,
    asOf: formatUtcTime(rate.as_of, lang, now, { timeOnlyToday: false }),
    heldUntil: heldUntil === null ? null : formatText(t.rateHeldUntil, { time: heldUntil }),
  };
}

/**
 * A rate's decimal string with the page language's separators, every digit kept ("1.0845123" →
 * "1,0845123" in German). Text that is no plain decimal is returned unchanged.
 */
export function formatRateNumber(value: string, lang: string): string {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(value);
  if (!match) return value;
  const format = new Intl.NumberFormat(lang);
  const whole = format.format(BigInt(match[1]!));
  if (match[2] === undefined) return whole;
  const decimal = format.formatToParts(1.5).find((part) => part.type === 'decimal')?.value ?? '.';
  return `${whole}${decimal}${match[2]}`;
}

function formatPercent(percent: number, lang: string): string {
  return new Intl.NumberFormat(lang, { style: 'percent', maximumFractionDigits: 4 }).format(percent / 100);
}

/**
 * An instant in UTC for the buyer, in the page language: "27 Nov 15:00 UTC"; the year only when it
 * is not `now`'s; a time of exactly midnight (a dated table) as the date alone. With
 * `timeOnlyToday`, an instant on `now`'s UTC day is its time alone: "15:02 UTC". Null for text that
 * is no valid time.
 */
export function formatUtcTime(
  iso: string,
  lang: string,
  now: Date,
  options: { timeOnlyToday: boolean },
): string | null {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return null;
  const time = `${new Intl.DateTimeFormat(lang, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'UTC' }).format(date)} UTC`;
  const sameDay = date.toISOString().slice(0, 10) === now.toISOString().slice(0, 10);
  if (options.timeOnlyToday && sameDay) return time;
  const day = new Intl.DateTimeFormat(dateLocale(lang), {
    day: 'numeric',
    month: 'short',
    ...(date.getUTCFullYear() === now.getUTCFullYear() ? {} : { year: 'numeric' }),
    timeZone: 'UTC',
  }).format(date);
  const midnight = date.getTime() % 86_400_000 === 0;
  return midnight && !options.timeOnlyToday ? day : `${day} ${time}`;
}

/** English dates read day first ("27 Nov"), as in the rest of the world the page is shown in. */
function dateLocale(lang: string): string {
  return lang === 'en' ? 'en-GB' : lang;
}
