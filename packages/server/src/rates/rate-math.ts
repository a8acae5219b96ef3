import {
  addDecimals,
  compareDecimals,
  divideDecimals,
  multiplyDecimals,
  parseDecimal,
  subtractDecimalsAtLeastZero,
} from '@cryptocheckout/core';

/** Significant digits a rate keeps: far finer than any price moves, short enough to read. */
export const RATE_SIGNIFICANT_DIGITS = 8;

/**
 * Rounds a positive decimal string to `digits` significant digits (half up), canonical form.
 * "0.000061234567" → "0.000061234567" at 8 → "0.000061234567"; "1.08451234" → "1.0845123".
 */
export function roundSignificant(value: string, digits = RATE_SIGNIFICANT_DIGITS): string {
  const canonical = parseDecimal(value);
  const [integerPart = '0', fractionPart = ''] = canonical.split('.');
  const scale =
    integerPart !== '0'
      ? Math.max(0, digits - integerPart.length)
      : digits + (fractionPart.length - fractionPart.replace(/^0+/, '').length);
  return parseDecimal(multiplyDecimals(canonical, '1', scale, 'half_up'));
}

/** `numerator / denominator` as a rate (significant digits). @throws MoneyError on a zero denominator. */
export function rateQuotient(numerator: string, denominator: string): string {
  return roundSignificant(divideDecimals(numerator, denominator, 24, 'half_up'));
}

/** The median of decimal strings: the middle one, or the mean of the two middle ones. */
export function medianDecimal(values: readonly string[]): string {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort(compareDecimals);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length % 2 === 1) return sorted[middle]!;
  return roundSignificant(
    divideDecimals(addDecimals(sorted[middle - 1]!, sorted[middle]!), '2', 24, 'half_up'),
  );
}

/** How far `value` is from `reference`, in percent of `reference`, 2 decimals (always positive). */
export function percentApart(value: string, reference: string): string {
  const difference =
    compareDecimals(value, reference) >= 0
      ? subtractDecimalsAtLeastZero(value, reference)
      : subtractDecimalsAtLeastZero(reference, value);
  return parseDecimal(
    divideDecimals(multiplyDecimals(difference, '100', 24, 'down'), reference, 2, 'half_up'),
  );
}

/**
 * A rate with the merchant's spread applied: the buyer's side pays `percent` more. For a fiat
 * currency (USD per unit of what the buyer owes) that raises the rate; for a crypto asset (USD per
 * unit of what the buyer pays with) it lowers it.
 */
export function withSpread(usdPerUnit: string, percent: string, kind: 'fiat' | 'asset'): string {
  if (compareDecimals(percent, '0') === 0) return usdPerUnit;
  const factor =
    kind === 'fiat'
      ? addDecimals('1', divideDecimals(percent, '100', 12, 'half_up'))
      : subtractDecimalsAtLeastZero('1', divideDecimals(percent, '100', 12, 'half_up'));
  return roundSignificant(multiplyDecimals(usdPerUnit, factor, 24, 'half_up'));
}
