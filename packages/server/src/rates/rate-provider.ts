/** A price quote: how many USD one unit is worth, as a decimal string, and where it came from. */
export interface UsdQuote {
  usdPerUnit: string;
  /** Human-readable source, stored with each checkout (e.g. "static table 2026-11-01"). */
  source: string;
}

/**
 * Supplies USD prices of fiat currencies and crypto assets. The server locks the fiat rate when a
 * checkout is created; implementations may call a live source and cache it.
 */
export interface RateProvider {
  /** USD per one unit of an ISO 4217 currency; undefined when the currency is not priced. */
  fiatToUsd(currency: string): Promise<UsdQuote | undefined>;
  /** USD per one unit of a crypto asset symbol (e.g. "BTC"); undefined when not priced. */
  assetToUsd(symbol: string): Promise<UsdQuote | undefined>;
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
