import type { OperatorDeliveryAttempt, OperatorWebhookState } from '@cryptocheckout/core';

/**
 * Display text for the dashboard's values. Amounts arrive as decimal strings (or JSON numbers in the
 * public transaction shape) and are only ever re-spelled here, never computed with.
 */

const pad = (value: number, length = 2) => String(value).padStart(length, '0');

/**
 * An ISO 8601 instant in the browser's local time as "YYYY-MM-DD HH:MM:SS": one unambiguous,
 * sortable shape for every table. Text that is no valid time is returned unchanged.
 */
export function formatLocalDateTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  );
}

/** The UTC calendar date of `date` as YYYY-MM-DD. */
export function formatUtcDate(date: Date): string {
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
}

/**
 * A JSON number amount as plain decimal text, without the exponent form JavaScript uses for very
 * small or large numbers ("1e-7" → "0.0000001").
 */
export function decimalText(value: number | string): string {
  if (typeof value === 'string') return value;
  const plain = String(value);
  if (!/e/i.test(plain)) return plain;
  return value.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 });
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * A decimal amount with thousands separators and at least `minimumFractionDigits` decimals
 * ("1234.5", 2 → "1,234.50"). Digits are never dropped or rounded; text that is no plain decimal
 * is returned unchanged.
 */
export function formatDecimal(value: number | string, minimumFractionDigits = 0): string {
  const text = decimalText(value);
  const match = DECIMAL.exec(text);
  if (!match) return text;
  const [, sign, whole, fraction = ''] = match;
  const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const decimals = fraction.padEnd(minimumFractionDigits, '0');
  return `${sign}${grouped}${decimals ? `.${decimals}` : ''}`;
}

/** A USD amount as "$1,234.50". */
export function formatUsd(value: number | string): string {
  const text = formatDecimal(value, 2);
  return text.startsWith('-') ? `-$${text.slice(1)}` : `$${text}`;
}

const currencyDigitsCache = new Map<string, number>();

/** The usual number of decimals of a fiat currency (2 for EUR, 0 for JPY); 2 when unknown. */
export function currencyDigits(currency: string): number {
  let digits = currencyDigitsCache.get(currency);
  if (digits === undefined) {
    try {
      digits =
        new Intl.NumberFormat('en-US', { style: 'currency', currency }).resolvedOptions()
          .minimumFractionDigits ?? 2;
    } catch {
      digits = 2;
    }
    currencyDigitsCache.set(currency, digits);
  }
  return digits;
}

/** A fiat amount as "1,234.50 EUR", with the currency's usual decimals. */
export function formatFiat(value: number | string, currency: string): string {
  return `${formatDecimal(value, currencyDigits(currency))} ${currency}`;
}

/** A crypto amount with every decimal it has, and its asset: "12.000123 USDC". */
export function formatAssetAmount(value: number | string, asset: string): string {
  return `${formatDecimal(value)} ${asset}`;
}

/** The first block of a transaction code, enough to tell rows apart: "3f1c2a9e…". */
export function shortCode(code: string): string {
  return code.length > 9 ? `${code.slice(0, 8)}…` : code;
}

/** A word with its first letter capitalised: status and state names as labels. */
export function capitalise(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** Label of the newest webhook delivery's state in the list. */
export function webhookLabel(state: OperatorWebhookState): string {
  return state === 'none' ? 'No webhook' : capitalise(state);
}

/** True for an HTTP status that counts as a delivered webhook (2xx). */
export function isSuccessStatus(status: number | null): boolean {
  return status !== null && status >= 200 && status < 300;
}

/**
 * What one delivery attempt came to, in plain words: "HTTP 200" when delivered, otherwise
 * "Failed: HTTP 500" or "Failed: <the error text>" (both when the server gives both).
 */
export function attemptResult(attempt: OperatorDeliveryAttempt): { ok: boolean; text: string } {
  if (isSuccessStatus(attempt.http_status) && attempt.error === null) {
    return { ok: true, text: `HTTP ${attempt.http_status}` };
  }
  const reasons: string[] = [];
  if (attempt.http_status !== null) reasons.push(`HTTP ${attempt.http_status}`);
  const error = attempt.error?.trim();
  if (error && error !== reasons[0]) reasons.push(error);
  if (reasons.length === 0) reasons.push('no answer');
  return { ok: false, text: `Failed: ${reasons.join(' — ')}` };
}

/** The origin of an http(s) URL, or null for anything else (never link to other schemes). */
export function httpUrlOrNull(value: string | null | undefined): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * An integer amount of base units (wei: 18 decimals) as a decimal string of whole coins, exact by
 * bigint arithmetic, trailing zeros dropped ("1234500000000000000" → "1.2345", "0" → "0"). Text that
 * is no whole number of base units is returned unchanged.
 */
export function formatBaseUnits(units: string, decimals = 18): string {
  if (!/^\d+$/.test(units)) return units;
  const scale = 10n ** BigInt(decimals);
  const value = BigInt(units);
  const whole = value / scale;
  const fraction = (value % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : String(whole);
}

/** The native coin a network's gas is paid in, by network name; "native coin" for one not known. */
export function nativeCoin(network: string): string {
  return NATIVE_COINS[network] ?? 'native coin';
}

const NATIVE_COINS: Readonly<Record<string, string>> = {
  ETHEREUM: 'ETH',
  POLYGON: 'POL',
  BASE: 'ETH',
  ARBITRUM: 'ETH',
};

/**
 * How long ago `iso` was, seen at `now`, in the largest whole unit: "just now", "45 s ago",
 * "12 min ago", "3 h ago", "2 d ago". A time ahead of `now` (clocks apart) reads "just now"; text
 * that is no valid time is returned unchanged.
 */
export function formatAge(iso: string, now: Date): string {
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return iso;
  const seconds = Math.floor((now.getTime() - time) / 1000);
  if (seconds < 5) return 'just now';
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3_600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3_600)} h ago`;
  return `${Math.floor(seconds / 86_400)} d ago`;
}

/** A refresh interval in the largest unit it is a whole number of: "30 s", "5 min", "1 h", "90 s". */
export function formatInterval(seconds: number): string {
  if (seconds >= 3_600 && seconds % 3_600 === 0) return `${seconds / 3_600} h`;
  if (seconds >= 60 && seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}
