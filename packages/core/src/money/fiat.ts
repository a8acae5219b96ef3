import { MoneyError } from '../errors.js';
import { FIAT_CURRENCIES, FIAT_CURRENCY_CODES, isSupportedFiatCurrency } from './currencies.js';
import { decimalToScaled, parseDecimal, scaledToDecimal } from './decimal.js';

/**
 * ISO 4217 minor units of a supported currency (JPY 0, USD 2, KWD 3).
 * @throws MoneyError `unsupported_currency`.
 */
export function fiatMinorUnits(currency: string): number {
  if (!isSupportedFiatCurrency(currency)) {
    throw new MoneyError(
      'unsupported_currency',
      `The currency "${String(currency).slice(0, 16)}" is not supported; use an uppercase ISO 4217 code such as ${FIAT_CURRENCY_CODES.slice(0, 4).join(', ')}.`,
    );
  }
  return FIAT_CURRENCIES[currency].minorUnits;
}

/**
 * Parses a fiat amount (JSON number or numeric string) into integer minor units of `currency`.
 * @throws MoneyError `invalid_amount`, `negative`, `too_precise` (more decimals than the currency has),
 *   `too_large`, `unsupported_currency`.
 */
export function toMinorUnits(amount: unknown, currency: string): bigint {
  const minorUnits = fiatMinorUnits(currency);
  return decimalToScaled(parseDecimal(amount), minorUnits);
}

/** Formats integer minor units as a decimal string with the currency's decimals ("12.50", "1000", "1.250"). */
export function formatMinorUnits(minor: bigint, currency: string): string {
  return scaledToDecimal(minor, fiatMinorUnits(currency));
}

/**
 * Normalises a fiat amount to its display form with exactly the currency's decimals.
 * @throws MoneyError as {@link toMinorUnits}.
 */
export function normalizeFiatAmount(amount: unknown, currency: string): string {
  return formatMinorUnits(toMinorUnits(amount, currency), currency);
}
