import { z } from 'zod';
import { decimalInputSchema, transactionCodeSchema } from './common.js';

/** How much a simulated payment sends, relative to what is due. */
export const SANDBOX_PAYMENT_SIZES = ['full', 'partial', 'over'] as const;

/**
 * `POST /sandbox/pay` body (sandbox mode only): simulate a payment of a transaction by a rail.
 * `amount_usd`, when given, overrides `size` with an exact USD value.
 */
export const sandboxPaymentRequestSchema = z.object({
  transaction_code: transactionCodeSchema,
  payment_method: z.string().regex(/^[a-z0-9_]{1,64}$/, { error: 'payment_method must be a rail slug' }),
  size: z.enum(SANDBOX_PAYMENT_SIZES).default('full'),
  amount_usd: decimalInputSchema.optional(),
  confirmed: z.boolean().default(true),
});
export type SandboxPaymentRequest = z.input<typeof sandboxPaymentRequestSchema>;
