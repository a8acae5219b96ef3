import type { OperatorRates } from '@cryptocheckout/core';

/** A price quote: how many USD one unit is worth, as a decimal string, and where it came from. */
export interface UsdQuote {
  usdPerUnit: string;
  /** Human-readable source, stored with each checkout (e.g. "static table 2026-11-01"). */
  source: string;
  /** The sources it is the median of, by name (the static table: one). */
  sources: readonly string[];
  /** The oldest publication time among those sources, ISO 8601. */
  asOf: string;
  /** The spread included in `usdPerUnit`, in percent ("0" when none). */
  spreadPercent: string;
}

/**
 * A currency or asset that cannot be priced now: no fresh source, or a stablecoin under its floor.
 * The message names it and says since when; the HTTP layer answers 503 with it.
 */
export class RateUnavailableError extends Error {
  readonly code = 'rate_unavailable';
  constructor(
    /** The currency or asset code refused. */
    readonly subject: string,
    message: string,
  ) {
    super(message);
    this.name = 'RateUnavailableError';
  }
}

/**
 * Supplies USD prices of fiat currencies and crypto assets. The server locks the fiat rate when a
 * checkout is created. Implementations answer from memory: the hot path never waits on a network.
 */
export interface RateProvider {
  /**
   * USD per one unit of an ISO 4217 currency; undefined when the currency is not priced at all.
   * @throws RateUnavailableError when it is priced but not right now.
   */
  fiatToUsd(currency: string): Promise<UsdQuote | undefined>;
  /**
   * USD per one unit of a crypto asset symbol (e.g. "BTC"); undefined when not priced at all.
   * @throws RateUnavailableError when it cannot be used now (stale, or a stablecoin under its floor).
   */
  assetToUsd(symbol: string): Promise<UsdQuote | undefined>;
  /** Where prices come from and how each stands, for the operator (`GET /api/operator/rates`). */
  overview?(): OperatorRates;
  /** Problems worth an operator's attention (stale or failing sources), for `/api/health`. */
  problems?(): string[];
  /** Starts background refreshing; resolves once persisted values are loaded (not waiting for sources). */
  start?(): Promise<void>;
  stop?(): Promise<void>;
}

/** Wraps a provider with a time-based cache, for live sources that must not be called per request. */
export function cachedRateProvider(
  inner: RateProvider,
  ttlMs: number,
  now: () => number = Date.now,
): RateProvider {
  const cache = new Map<string, { expires: number; value: Promise<UsdQuote | undefined> }>();
  const cached = (key: string, load: () => Promise<UsdQuote | undefined>) => {
    const hit = cache.get(key);
    if (hit && hit.expires > now()) return hit.value;
    const value = load();
    cache.set(key, { expires: now() + ttlMs, value });
    // A failed load must not be cached: the next call tries again.
    value.catch(() => cache.delete(key));
    return value;
  };
  return {
    fiatToUsd: (currency) => cached(`fiat:${currency}`, () => inner.fiatToUsd(currency)),
    assetToUsd: (symbol) => cached(`asset:${symbol}`, () => inner.assetToUsd(symbol)),
  };
}
