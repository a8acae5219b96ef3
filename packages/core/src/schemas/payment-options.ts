import { z } from 'zod';
import { decimalStringSchema, requiredString, usdAmountSchema } from './common.js';

/** Rail kinds: crypto rails pay to an address, fiat rails redirect to a payment page. */
export const RAIL_KINDS = ['crypto', 'fiat'] as const;

/** `GET /payment_options` query (docs/api.md); query values arrive as strings. */
export const paymentOptionsQuerySchema = z.object({
  fiat_amount: requiredString('fiat_amount', ', e.g. ?fiat_amount=12.50'),
  fiat_currency: requiredString('fiat_currency', ', e.g. ?fiat_currency=EUR'),
});

/**
 * One payment rail priced for an amount. `amount` is in `asset` units (the fiat currency for fiat
 * rails), as a decimal string; `network` is null for fiat rails.
 */
export const paymentOptionSchema = z.object({
  slug: z.string().regex(/^[a-z0-9_]+$/),
  name: z.string(),
  kind: z.enum(RAIL_KINDS),
  asset: z.string(),
  network: z.string().nullable(),
  amount: decimalStringSchema,
  amount_usd: usdAmountSchema,
  min_usd: usdAmountSchema,
  max_usd: usdAmountSchema,
  available: z.boolean(),
  /** Present when `available` is false: why, in words the hosted page shows the buyer. */
  unavailable_reason: z.string().optional(),
});
export type PaymentOption = z.infer<typeof paymentOptionSchema>;

/** `GET /payment_options` success `data`. */
export const paymentOptionsSchema = z.object({
  fiat_amount: z.number(),
  fiat_currency: z.string(),
  amount_in_usd: usdAmountSchema,
  payment_options: z.array(paymentOptionSchema),
});
export type PaymentOptions = z.infer<typeof paymentOptionsSchema>;
