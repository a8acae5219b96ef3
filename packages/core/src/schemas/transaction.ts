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
export const lockedRateSchema = z.object({
  /** USD per one unit of the order's `fiat_currency`, spread included. */
  usd_per_unit: decimalStringSchema,
  /** Readable origin, e.g. "ECB 2026-11-27 · ExchangeRate-API 2026-11-28 00:02 UTC" or "static table 2026-11-01". */
  source: z.string(),
  /** The sources whose median it is, by name. */
  sources: z.array(z.string()),
  /** The oldest publication time among those sources. */
  as_of: isoDateTimeSchema,
  /** The spread added for the merchant, in percent ("0" when none). */
  spread_percent: decimalStringSchema,
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
});
export type Transaction = z.infer<typeof transactionSchema>;
