import { z } from 'zod';
import { decimalPlaces, MAX_INTEGER_DIGITS, parseDecimal } from '../money/decimal.js';

/** Every state a transaction can be in; `settled` is terminal. */
export const TRANSACTION_STATUSES = ['pending', 'processing', 'underpaid', 'settled', 'expired'] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

/** Statuses after which a transaction never changes on its own again (expired may still settle late). */
export const FINAL_STATUSES: readonly TransactionStatus[] = ['settled', 'expired'];

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Names the JSON type of a value for error messages: "a number", "an array", "null". */
export function describeJsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' || type === 'undefined' ? `an ${type}` : `a ${type}`;
}

/**
 * A required string field whose error tells an absent field ("is required", with `hint`) from one
 * of the wrong type ("must be a string, got a number"): zod 4 runs the same error for both.
 */
export const requiredString = (field: string, hint = '') =>
  z.string({
    error: (issue) =>
      issue.input === undefined
        ? `${field} is required${hint}`
        : `${field} must be a string, got ${describeJsonType(issue.input)}`,
  });

/** True when the text holds a C0 control character or DEL (PostgreSQL refuses NUL in text). */
export function hasControlCharacter(value: string): boolean {
  for (let index = 0; index < value.length; index++) {
    const unit = value.charCodeAt(index);
    if (unit < 0x20 || unit === 0x7f) return true;
  }
  return false;
}

/** A transaction code: UUID-shaped (docs/api.md). */
export const transactionCodeSchema = requiredString('transaction_code').regex(UUID_SHAPE, {
  error: 'transaction_code must be a UUID like 3f1c2a9e-8b7d-4c6e-9f0a-1b2c3d4e5f60',
});

/** An absolute http(s) URL of at most 2048 characters. */
export const httpUrlSchema = z
  .string()
  .max(2048, { error: 'must be at most 2048 characters' })
  // `new URL` would silently strip or escape them, but the raw text is what gets stored.
  .refine((value) => !hasControlCharacter(value), {
    error: 'must not contain control characters (U+0000–U+001F, U+007F)',
  })
  .refine(isAbsoluteHttpUrl, { error: 'must be an absolute http:// or https:// URL' });

/** ISO 8601 timestamp in UTC, as produced by `Date.prototype.toISOString`. */
export const isoDateTimeSchema = z.iso.datetime({ offset: true });

/** A USD amount on the wire: a JSON number with at most 2 decimals. */
export const usdAmountSchema = z
  .number()
  .nonnegative()
  .refine((value) => Number.isFinite(value) && decimalPlaces(parseDecimal(value)) <= 2, {
    error: 'must be a USD amount with at most 2 decimals',
  });

/** A crypto or fiat amount on the wire: a canonical non-negative decimal string ("0.00039063"). */
export const decimalStringSchema = z
  .string()
  .regex(/^(0|[1-9]\d*)(\.\d+)?$/, { error: 'must be a decimal string like "12.5"' });

/**
 * An amount a client sends as a decimal string: canonical, with at most {@link MAX_INTEGER_DIGITS}
 * digits before the point, the most the service's exact arithmetic takes (docs/api.md "Amounts").
 */
export const decimalInputSchema = decimalStringSchema.refine(
  (value) => value.split('.')[0]!.length <= MAX_INTEGER_DIGITS,
  { error: `must have at most ${MAX_INTEGER_DIGITS} digits before the decimal point` },
);

/** Printable characters only: no control characters, no line breaks. */
export const printableText = (maximum: number) =>
  z
    .string()
    .min(1, { error: 'must not be empty' })
    .max(maximum, { error: `must be at most ${maximum} characters` })
    .regex(/^[^\p{Cc}\p{Cs}]+$/u, { error: 'must contain printable characters only' });

/** Checks that a string is an absolute http(s) URL with a host. */
export function isAbsoluteHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}
