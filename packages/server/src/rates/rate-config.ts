import { compareDecimals, parseDecimal } from '@cryptocheckout/core';
import type { ConfiguredRateSource } from './live-rates.js';
import { RATE_SOURCE_NAMES, RATE_SOURCES } from './sources/catalog.js';
import { STATIC_RATES_DATE } from './static-rates.js';

/** How the server prices orders (docs/rates.md); every field has an embedded default. */
export interface RateOptions {
  /** `live`: market sources; `static`: the embedded dated table. Default: static in sandbox mode, live in live mode. */
  source?: 'live' | 'static';
  /** Live mode charges the fixed table only when this is also set (`--i-know-prices-are-fixed`). */
  fixedPricesInLiveMode?: boolean;
  /** Per source name: a mirror's URL instead of the public one, or `off` (tests: loopback). */
  sourceUrls?: Record<string, string>;
  /** Per source name: seconds between reads, instead of the source's own rhythm. */
  refreshSeconds?: Record<string, number>;
  /** Percent added for the merchant to every converted price (default 0), like BTCPay's spread. */
  spreadPercent?: string | number;
  /** The same per currency or asset code, overriding `spreadPercent`. */
  spreadByCode?: Record<string, string | number>;
  /** A stablecoin under this many USD takes its rails away (default 0.98). */
  stablecoinFloorUsd?: string | number;
  /** Sources further apart than this many percent are reported (default 2). */
  divergenceLimitPercent?: string | number;
  /** Per request to a source (default 10 000 ms). */
  requestTimeoutMs?: number;
  /** How often values read by other nodes are loaded (default 5000 ms). */
  reloadIntervalMs?: number;
  /** Wait after a failed read before the next (default 60 000 ms, or the source's interval if shorter). */
  retryAfterFailureMs?: number;
}

export interface ResolvedRates {
  source: 'live' | 'static';
  /** Live sources with their URLs; empty with the static table. */
  sources: ConfiguredRateSource[];
  spreadPercent: { default: string; byCode: Record<string, string> };
  stablecoinFloorUsd: string;
  divergenceLimitPercent: string;
  requestTimeoutMs: number;
  reloadIntervalMs: number;
  retryAfterFailureMs: number;
}

/**
 * Fills in the rate defaults for a mode and checks them.
 * @throws Error naming the option and the fix.
 */
export function resolveRates(options: RateOptions | undefined, mode: 'sandbox' | 'live'): ResolvedRates {
  const source = options?.source ?? (mode === 'live' ? 'live' : 'static');
  if (source !== 'live' && source !== 'static') {
    throw new Error(`rates must be "live" or "static", not "${String(source)}".`);
  }
  if (mode === 'live' && source === 'static' && options?.fixedPricesInLiveMode !== true) {
    throw new Error(
      `--rates static in live mode would charge every order from the fixed table of ${STATIC_RATES_DATE}, ` +
        'however far the market has moved since. Leave --rates out to price from live market sources; ' +
        'if fixed prices are really what you want (a test against a local chain), add --i-know-prices-are-fixed.',
    );
  }
  const urls = options?.sourceUrls ?? {};
  for (const [name, url] of Object.entries(urls)) {
    if (!RATE_SOURCE_NAMES.includes(name)) {
      throw new Error(
        `--rate-source ${name}: no such source; the sources are ${RATE_SOURCE_NAMES.join(', ')}.`,
      );
    }
    if (url !== 'off' && !/^https?:\/\/[^\s]+$/.test(url)) {
      throw new Error(`--rate-source ${name}=${url}: give an http(s) URL (a mirror of the source) or "off".`);
    }
  }
  const refresh = options?.refreshSeconds ?? {};
  for (const [name, seconds] of Object.entries(refresh)) {
    if (!RATE_SOURCE_NAMES.includes(name)) {
      throw new Error(
        `--rate-refresh-seconds ${name}: no such source; the sources are ${RATE_SOURCE_NAMES.join(', ')}.`,
      );
    }
    if (!Number.isFinite(seconds) || seconds < 0.05 || seconds > 86_400) {
      throw new Error(`--rate-refresh-seconds ${name} must be from 0.05 to 86400 seconds, not ${seconds}.`);
    }
  }
  const sources =
    source === 'static'
      ? []
      : RATE_SOURCES.filter((each) => urls[each.name] !== 'off').map((each) => ({
          source: each,
          url: urls[each.name] ?? each.defaultUrl,
          refreshIntervalMs:
            refresh[each.name] !== undefined
              ? Math.round(refresh[each.name]! * 1000)
              : each.refreshIntervalMs,
        }));
  if (source === 'live' && !sources.some((each) => each.source.kind === 'fiat')) {
    throw new Error(
      'Every fiat rate source is off: leave at least one of ecb, exchangerate-api on (--rate-source NAME=url).',
    );
  }
  const byCode: Record<string, string> = {};
  for (const [code, percent] of Object.entries(options?.spreadByCode ?? {})) {
    if (!/^[A-Z0-9]{2,10}$/.test(code))
      throw new Error(`--rate-spread ${code}: give a currency or asset code like EUR or BTC.`);
    byCode[code] = decimalInRange(`--rate-spread ${code}`, percent, '0', '50', 'percent');
  }
  return {
    source,
    sources,
    spreadPercent: {
      default: decimalInRange('--rate-spread', options?.spreadPercent ?? '0', '0', '50', 'percent'),
      byCode,
    },
    stablecoinFloorUsd: decimalInRange(
      '--stablecoin-floor',
      options?.stablecoinFloorUsd ?? '0.98',
      '0.5',
      '1',
      'USD',
    ),
    divergenceLimitPercent: decimalInRange(
      'divergenceLimitPercent',
      options?.divergenceLimitPercent ?? '2',
      '0.01',
      '50',
      'percent',
    ),
    requestTimeoutMs: wholeInRange(
      'rates.requestTimeoutMs',
      options?.requestTimeoutMs ?? 10_000,
      50,
      120_000,
    ),
    reloadIntervalMs: wholeInRange('rates.reloadIntervalMs', options?.reloadIntervalMs ?? 5000, 20, 600_000),
    retryAfterFailureMs: wholeInRange(
      'rates.retryAfterFailureMs',
      options?.retryAfterFailureMs ?? 60_000,
      20,
      3_600_000,
    ),
  };
}

function decimalInRange(
  name: string,
  value: string | number,
  minimum: string,
  maximum: string,
  unit: string,
): string {
  let decimal: string;
  try {
    decimal = parseDecimal(value, name);
  } catch {
    throw new Error(
      `${name} must be a number of ${unit} like ${maximum === '1' ? '0.98' : '1.5'}, not "${String(value)}".`,
    );
  }
  if (compareDecimals(decimal, minimum) < 0 || compareDecimals(decimal, maximum) > 0) {
    throw new Error(`${name} must be from ${minimum} to ${maximum} ${unit}, not ${decimal}.`);
  }
  return decimal;
}

function wholeInRange(name: string, value: number, minimum: number, maximum: number): number {
  if (!Number.isInteger(value) || value < minimum || value > maximum) {
    throw new Error(`${name} must be a whole number from ${minimum} to ${maximum}, not ${value}.`);
  }
  return value;
}
