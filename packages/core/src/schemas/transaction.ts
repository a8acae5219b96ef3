import { z } from 'zod';
import {
  decimalStringSchema,
  httpUrlSchema,
  isoDateTimeSchema,
  TRANSACTION_STATUSES,
  transactionCodeSchema,
  usdAmountSchema,
} from './common.js';

/** `GET /transaction` query (docs/api.md). */
export const transactionQuerySchema = z.object({ transaction_code: transactionCodeSchema });

/** One payment seen for a transaction; `amount` is in `asset` units. */
export const paymentSchema = z.object({
  payment_method: z.string(),
  asset: z.string(),
  network: z.string().nullable(),
  amount: decimalStringSchema,
  amount_usd: usdAmountSchema,
  tx_id: z.string(),
  seen_at: isoDateTimeSchema,
});
export type Payment = z.infer<typeof paymentSchema>;

/**
 * The fiat rate a checkout was priced at and keeps for its whole life (docs/rates.md). An addition
 * to the specified shape: clients that do not know it ignore it.
 */
/** A rate's decimal: up to 21 integer digits and 18 decimals (8 significant digits of a weak currency). */
const rateDecimalSchema = z
  .string()
  .max(32, { error: 'must be at most 32 characters' })
  .regex(/^(0|[1-9]\d{0,20})(\.\d{1,18})?$/, { error: 'must be a decimal string like "1.0612"' });
/** Source texts: letters, digits, spaces and plain punctuation only, so they are safe in any note. */
const readableText = (maxLength: number) =>
  z
    .string()
    .max(maxLength, { error: `must be at most ${maxLength} characters` })
    .regex(/^[\p{L}\p{N}][\p{L}\p{N} .,:;·()/+_-]*$/u, {
      error: 'must be letters, digits, spaces and plain punctuation',
    });
export const lockedRateSchema = z.object({
  /** USD per one unit of the order's `fiat_currency`, spread included. */
  usd_per_unit: rateDecimalSchema.refine((value) => !/^0(\.0+)?$/.test(value), {
    error: 'must be greater than 0',
  }),
  /** Readable origin, e.g. "ECB 2026-11-27 15:00 UTC · ExchangeRate-API 2026-11-28 00:02 UTC" or "static table 2026-11-01". */
  source: readableText(200),
  /** The sources whose median it is, by name. */
  sources: z.array(readableText(64)).max(16, { error: 'must name at most 16 sources' }),
  /** The oldest publication time among those sources. */
  as_of: isoDateTimeSchema,
  /** The spread added for the merchant, in percent ("0" when none). */
  spread_percent: rateDecimalSchema,
  /** Until when the checkout's price holds: its expiry. */
  held_until: isoDateTimeSchema,
});
export type LockedRate = z.infer<typeof lockedRateSchema>;

/** `GET /transaction` success `data`: the authoritative state of an order (docs/api.md). */
export const transactionSchema = z.object({
  transaction_code: transactionCodeSchema,
  status: z.enum(TRANSACTION_STATUSES),
  external_reference: z.string(),
  fiat_amount: z.number().nonnegative(),
  fiat_currency: z.string(),
  amount_in_usd: usdAmountSchema,
  received_usd: usdAmountSchema,
  checkout_url: httpUrlSchema,
  wallet_address: z.string(),
  wallet_currency: z.string(),
  wallet_network: z.string(),
  payout_dispatched: z.boolean(),
  payment_method: z.string().nullable(),
  late: z.boolean(),
  created_at: isoDateTimeSchema,
  expires_at: isoDateTimeSchema,
  settled_at: isoDateTimeSchema.nullable(),
  payments: z.array(paymentSchema),
  /** The locked rate (docs/rates.md); this server always sends it. */
  rate: lockedRateSchema.optional(),
  /**
   * Sent when the service settles payments short of `amount_in_usd` by up to `percent`
   * (docs/rates.md "Payment tolerance"): `accepted_shortfall_usd` is what a settled transaction
   * lacks ("0.00" when nothing, or while not settled).
   */
  payment_tolerance: z
    .object({ percent: rateDecimalSchema, accepted_shortfall_usd: rateDecimalSchema })
    .optional(),
});
export type Transaction = z.infer<typeof transactionSchema>;
