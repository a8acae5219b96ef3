import { parseDecimal } from '@cryptocheckout/core';

/** One value a source published: USD per unit of a currency or asset, and how long it may be used. */
export interface SourceQuote {
  /** ISO 4217 code or asset symbol, upper case. */
  code: string;
  /** USD per one unit, a positive decimal string. */
  usdPerUnit: string;
  /** When the source published it, ISO 8601. */
  asOf: string;
  /** Until when the source's own publishing rhythm lets it be used, ISO 8601. */
  freshUntil: string;
}

/** Fetches a URL's body as text; rejects on a network error, a timeout or a non-2xx answer. */
export type FetchText = (url: string) => Promise<string>;

/**
 * An adapter over one public source's documented format (docs/rates.md "Sources"). It needs no key;
 * its URL can be replaced by a mirror's (`--rate-source NAME=url`).
 */
export interface RateSource {
  /** Key used on the command line and in the database, lower case. */
  readonly name: string;
  /** How the buyer and the operator see it named. */
  readonly label: string;
  readonly kind: 'fiat' | 'asset';
  readonly defaultUrl: string;
  /** How often it is read. */
  readonly refreshIntervalMs: number;
  /**
   * Reads the source at `url` and returns what it publishes now.
   * @throws Error saying what was wrong with the answer (the caller records it).
   */
  read(url: string, fetchText: FetchText, now: Date): Promise<SourceQuote[]>;
}

/** A positive plain decimal from a source's text, or undefined for anything else. */
export function positiveDecimal(text: unknown): string | undefined {
  if (typeof text !== 'string' && typeof text !== 'number') return undefined;
  try {
    // JSON numbers may come in exponent form (1.2e-5); parseDecimal reads them exactly.
    const value = parseDecimal(typeof text === 'string' ? text.trim() : text);
    return value === '0' || value.length > 48 ? undefined : value;
  } catch {
    return undefined;
  }
}

/** Adds minutes to a time, ISO 8601. */
export function minutesAfter(time: Date | string, minutes: number): string {
  return new Date(new Date(time).getTime() + minutes * 60_000).toISOString();
}

/** JSON.parse with an error that names the source. */
export function parseJson(text: string, label: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`${label}: the answer is not JSON (starts ${JSON.stringify(text.slice(0, 40))})`);
  }
}

/** Minutes an exchange's last price may be used: a few of its refresh intervals, never longer. */
export const EXCHANGE_MAX_AGE_MINUTES = 5;

/** How often exchange tickers are read. */
export const EXCHANGE_REFRESH_MS = 60_000;

/** The crypto assets whose prices the exchanges are asked for. */
export const PRICED_ASSETS = ['BTC', 'ETH', 'SOL', 'USDC', 'USDT', 'POL'] as const;
