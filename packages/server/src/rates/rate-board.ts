import { compareDecimals, type OperatorRate, type OperatorRateSourceValue } from '@cryptocheckout/core';
import { medianDecimal, percentApart, withSpread } from './rate-math.js';
import type { UsdQuote } from './rate-provider.js';

/** Stablecoins: charged at par while the market holds them at or above the floor, refused below it. */
export const STABLECOINS: ReadonlySet<string> = new Set(['USDC', 'USDT']);

/** A source's stored value for one code. */
export interface BoardValue {
  source: string;
  label: string;
  usdPerUnit: string;
  asOf: string;
  freshUntil: string;
}

/** How the board turns values into a price. */
export interface BoardSettings {
  /** Percent added for the merchant, per code, with a default. */
  spreadPercent: (code: string) => string;
  stablecoinFloorUsd: string;
  divergenceLimitPercent: string;
}

/** A code's standing at one moment: a quote to charge, or why there is none. */
export interface BoardEntry {
  quote: UsdQuote | undefined;
  /** Set when `quote` is undefined: names the code and since when it could not be priced. */
  refusal: string | undefined;
  row: OperatorRate;
}

/**
 * Prices one currency or asset from its sources' values at `now`: the median of the fresh ones,
 * with the spread; a stablecoin at par (no spread) or refused under its floor; no fresh value
 * refused naming the last time it was priced. Pure: the same values give every node the same price.
 */
export function priceOnBoard(
  code: string,
  kind: 'fiat' | 'asset',
  values: readonly BoardValue[],
  now: Date,
  settings: BoardSettings,
): BoardEntry {
  const nowIso = now.toISOString();
  const fresh = values.filter((value) => value.freshUntil > nowIso);
  const lastPricedAt = values.reduce<string | null>(
    (newest, value) => (newest && newest > value.asOf ? newest : value.asOf),
    null,
  );
  const sourceRows: OperatorRateSourceValue[] = values.map((value) => ({
    source: value.label,
    usd_per_unit: value.usdPerUnit,
    as_of: value.asOf,
    fresh: fresh.includes(value),
  }));
  const spread = STABLECOINS.has(code) ? '0' : settings.spreadPercent(code);
  const base = { code, kind, spread_percent: spread, sources: sourceRows, last_priced_at: lastPricedAt };
  if (fresh.length === 0) {
    const refusal = `No fresh rate for ${code}: ${
      lastPricedAt ? `last priced ${minuteText(lastPricedAt)}` : 'never priced yet'
    } (sources: ${values.length > 0 ? values.map((value) => value.label).join(', ') : 'none answered'}). New checkouts in ${code} are refused until a source answers.`;
    return {
      quote: undefined,
      refusal,
      row: { ...base, usd_per_unit: null, divergence_percent: null, status: 'stale', problem: refusal },
    };
  }
  const median = medianDecimal(fresh.map((value) => value.usdPerUnit));
  const divergence =
    fresh.length < 2
      ? null
      : fresh
          .map((value) => percentApart(value.usdPerUnit, median))
          .sort(compareDecimals)
          .at(-1)!;
  const diverging = divergence !== null && compareDecimals(divergence, settings.divergenceLimitPercent) > 0;
  const asOf = fresh.reduce((oldest, value) => (value.asOf < oldest ? value.asOf : oldest), fresh[0]!.asOf);
  const labels = fresh.map((value) => value.label);
  const source = fresh.map((value) => `${value.label} ${minuteText(value.asOf)}`).join(' · ');
  if (STABLECOINS.has(code) && compareDecimals(median, settings.stablecoinFloorUsd) < 0) {
    const refusal = `${code} trades at ${median} USD, under the ${settings.stablecoinFloorUsd} USD floor: paying in ${code} is paused until it recovers.`;
    return {
      quote: undefined,
      refusal,
      row: {
        ...base,
        usd_per_unit: null,
        divergence_percent: divergence,
        status: 'depegged',
        problem: refusal,
      },
    };
  }
  const usdPerUnit = STABLECOINS.has(code) ? '1' : withSpread(median, spread, kind);
  const problem = diverging
    ? `Sources disagree by ${divergence}% (limit ${settings.divergenceLimitPercent}%): ${fresh
        .map((value) => `${value.label} ${value.usdPerUnit}`)
        .join(', ')}; charging their median.`
    : null;
  return {
    quote: { usdPerUnit, source, sources: labels, asOf, spreadPercent: spread },
    refusal: undefined,
    row: {
      ...base,
      usd_per_unit: usdPerUnit,
      divergence_percent: divergence,
      status: diverging ? 'diverging' : 'ok',
      problem,
    },
  };
}

/** "2026-11-27 15:00 UTC" from an ISO time. */
export function minuteText(iso: string): string {
  return `${iso.slice(0, 16).replace('T', ' ')} UTC`;
}
