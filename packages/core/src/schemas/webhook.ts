import { z } from 'zod';
import { transactionCodeSchema, usdAmountSchema } from './common.js';

/** The only event the service sends (docs/api.md). */
export const SETTLED_EVENT = 'transaction.settled';

/**
 * Body of the `transaction.settled` webhook, exactly the fields docs/api.md lists; `timestamp` is Unix
 * seconds. The body is unsigned: treat it as a hint and confirm with `GET /transaction`.
 */
export const settledWebhookSchema = z.object({
  event: z.literal(SETTLED_EVENT),
  transaction_code: transactionCodeSchema,
  external_reference: z.string(),
  fiat_amount: z.number().nonnegative(),
  fiat_currency: z.string().regex(/^[A-Z]{3}$/),
  received_usd: usdAmountSchema,
  wallet_address: z.string().min(1),
  wallet_currency: z.string().min(1),
  wallet_network: z.string().min(1),
  payout_dispatched: z.boolean(),
  timestamp: z.number().int().nonnegative(),
});
export type SettledWebhook = z.infer<typeof settledWebhookSchema>;
