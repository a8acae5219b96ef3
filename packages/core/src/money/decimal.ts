import { MoneyError } from '../errors.js';

/** Rounding of a decimal to fewer digits: towards zero, away from zero, or half away from zero. */
export type Rounding = 'down' | 'up' | 'half_up';

const PLAIN_DECIMAL = /^(\d+)(?:\.(\d+))?$/;
const CANONICAL_DECIMAL = /^(?:0|[1-9]\d*)(?:\.\d*[1-9])?$/;
const EXPONENT_FORM = /^(\d+)(?:\.(\d+))?e([+-]?\d+)$/i;
/** Integer digits an amount may have: far above any real order, far below float trouble. */
export const MAX_INTEGER_DIGITS = 15;

/**
 * Turns a JSON number or a numeric string into a canonical non-negative decimal string
 * ("12.5", "0.001", "100"), exactly, without passing through binary floating point for strings.
 * JSON numbers are read from their shortest round-trip form, which is what the sender wrote.
 * @throws MoneyError `invalid_amount` (not a finite plain number), `negative`, `too_large`.
 */
export function parseDecimal(input: unknown, label = 'amount'): string {
  // Fast path: already canonical (the common case inside the service's own arithmetic).
  if (typeof input === 'string' && CANONICAL_DECIMAL.test(input)) {
    const dot = input.indexOf('.');
    if ((dot === -1 ? input.length : dot) <= MAX_INTEGER_DIGITS) return input;
  }
  let text: string;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) {
      throw new MoneyError('invalid_amount', `The ${label} must be a finite number.`);
    }
    text = expandExponent(String(input));
  } else if (typeof input === 'string') {
    text = input;
  } else {
    throw new MoneyError(
      'invalid_amount',
      `The ${label} must be a number or a numeric string, like "12.50".`,
    );
  }
  if (text.startsWith('-')) {
    const rest = text.slice(1);
    if (PLAIN_DECIMAL.test(rest) && !/^[0.]+$/.test(rest)) {
      throw new MoneyError('negative', `The ${label} must not be negative.`);
    }
    if (PLAIN_DECIMAL.test(rest)) text = rest;
  }
  const match = PLAIN_DECIMAL.exec(text);
  if (!match) {
    throw new MoneyError(
      'invalid_amount',
      `The ${label} "${truncate(text)}" is not a plain decimal number; write it like "12.50", without spaces, signs, exponents or thousands separators.`,
    );
  }
  const integerPart = match[1]!.replace(/^0+(?=\d)/, '');
  const fractionPart = (match[2] ?? '').replace(/0+$/, '');
  if (integerPart.length > MAX_INTEGER_DIGITS) {
    throw new MoneyError(
      'too_large',
      `The ${label} is too large (at most ${MAX_INTEGER_DIGITS} integer digits).`,
    );
  }
  return fractionPart ? `${integerPart}.${fractionPart}` : integerPart;
}

/** Number of decimals of a canonical decimal string. */
export function decimalPlaces(decimal: string): number {
  const dot = decimal.indexOf('.');
  return dot === -1 ? 0 : decimal.length - dot - 1;
}

/**
 * Converts a decimal string to an integer scaled by 10^scale, exactly.
 * @throws MoneyError `too_precise` when the value has more than `scale` decimals.
 */
export function decimalToScaled(decimal: string, scale: number, label = 'amount'): bigint {
  const canonical = parseDecimal(decimal, label);
  if (scale === 0 && canonical.indexOf('.') === -1) return BigInt(canonical);
  const places = decimalPlaces(canonical);
  if (places > scale) {
    throw new MoneyError(
      'too_precise',
      scale === 0
        ? `The ${label} ${canonical} must be a whole number.`
        : `The ${label} ${canonical} has ${places} decimals; at most ${scale} are allowed.`,
    );
  }
  const [integerPart, fractionPart = ''] = canonical.split('.');
  return BigInt(`${integerPart}${fractionPart.padEnd(scale, '0')}`);
}

/** Formats an integer scaled by 10^scale as a decimal string with exactly `scale` decimals. */
export function scaledToDecimal(value: bigint, scale: number): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(scale + 1, '0');
  const body = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return negative ? `-${body}` : body;
}

/** Compares two non-negative decimal strings exactly: -1, 0 or 1. */
export function compareDecimals(a: string, b: string): -1 | 0 | 1 {
  const scale = Math.max(decimalPlaces(parseDecimal(a)), decimalPlaces(parseDecimal(b)));
  const left = decimalToScaled(a, scale);
  const right = decimalToScaled(b, scale);
  return left === right ? 0 : left < right ? -1 : 1;
}

/** Adds two non-negative decimal strings exactly, returning the canonical sum. */
export function addDecimals(a: string, b: string): string {
  const scale = Math.max(decimalPlaces(parseDecimal(a)), decimalPlaces(parseDecimal(b)));
  return parseDecimal(scaledToDecimal(decimalToScaled(a, scale) + decimalToScaled(b, scale), scale));
}

/**
 * Subtracts `b` from `a` exactly; the result is clamped at zero (amounts never go negative).
 */
export function subtractDecimalsAtLeastZero(a: string, b: string): string {
  const scale = Math.max(decimalPlaces(parseDecimal(a)), decimalPlaces(parseDecimal(b)));
  const difference = decimalToScaled(a, scale) - decimalToScaled(b, scale);
  return parseDecimal(scaledToDecimal(difference < 0n ? 0n : difference, scale));
}

/** Multiplies two decimal strings and rounds the product to `scale` decimals. */
export function multiplyDecimals(a: string, b: string, scale: number, rounding: Rounding): string {
  const scaleA = decimalPlaces(parseDecimal(a));
  const scaleB = decimalPlaces(parseDecimal(b));
  const product = decimalToScaled(a, scaleA) * decimalToScaled(b, scaleB);
  return scaledToDecimal(roundScaled(product, scaleA + scaleB, scale, rounding), scale);
}

/**
 * Divides `a` by `b` and rounds the quotient to `scale` decimals.
 * @throws MoneyError `invalid_amount` when `b` is zero.
 */
export function divideDecimals(a: string, b: string, scale: number, rounding: Rounding): string {
  const scaleA = decimalPlaces(parseDecimal(a));
  const scaleB = decimalPlaces(parseDecimal(b));
  const divisor = decimalToScaled(b, scaleB);
  if (divisor === 0n) throw new MoneyError('invalid_amount', 'Cannot divide by zero.');
  // a/b = (A/10^sa)/(B/10^sb) = A*10^sb / (B*10^sa); keep one guard digit beyond `scale` for rounding.
  const numerator = decimalToScaled(a, scaleA) * 10n ** BigInt(scaleB + scale + 1);
  const denominator = divisor * 10n ** BigInt(scaleA);
  const quotient = numerator / denominator;
  const exact = quotient * denominator === numerator;
  return scaledToDecimal(roundScaled(quotient, scale + 1, scale, rounding, exact), scale);
}

function roundScaled(
  value: bigint,
  fromScale: number,
  toScale: number,
  rounding: Rounding,
  exact = true,
): bigint {
  if (fromScale <= toScale) return value * 10n ** BigInt(toScale - fromScale);
  const factor = 10n ** BigInt(fromScale - toScale);
  const truncated = value / factor;
  const remainder = value % factor;
  if (rounding === 'down') return truncated;
  if (rounding === 'up') return remainder > 0n || !exact ? truncated + 1n : truncated;
  return remainder * 2n >= factor ? truncated + 1n : truncated;
}

function expandExponent(text: string): string {
  const match = EXPONENT_FORM.exec(text);
  if (!match) return text;
  const digits = `${match[1]}${match[2] ?? ''}`;
  const pointAt = match[1]!.length + Number(match[3]);
  if (pointAt <= 0) return `0.${'0'.repeat(-pointAt)}${digits}`;
  if (pointAt >= digits.length) return digits + '0'.repeat(pointAt - digits.length);
  return `${digits.slice(0, pointAt)}.${digits.slice(pointAt)}`;
}

function truncate(text: string): string {
  return text.length > 32 ? `${text.slice(0, 32)}…` : text;
}
