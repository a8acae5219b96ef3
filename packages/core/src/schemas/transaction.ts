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
});
export type Transaction = z.infer<typeof transactionSchema>;
