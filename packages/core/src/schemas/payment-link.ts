import { z } from 'zod';
import {
  decimalStringSchema,
  httpUrlSchema,
  isoDateTimeSchema,
  requiredString,
  transactionCodeSchema,
} from './common.js';

/** `GET /payment_link` query (docs/api.md). */
export const paymentLinkQuerySchema = z.object({
  transaction_code: transactionCodeSchema,
  payment_method: requiredString('payment_method', ', a rail slug such as "usdc_polygon"').regex(
    /^[a-z0-9_]{1,64}$/,
    { error: 'payment_method must be a rail slug such as "usdc_polygon"' },
  ),
});

/** Instructions for a crypto rail: pay `amount` of `asset` on `network` to `address`; `uri` opens a wallet. */
export const cryptoPaymentLinkSchema = z.object({
  kind: z.literal('crypto'),
  payment_method: z.string(),
  address: z.string().min(1),
  amount: decimalStringSchema,
  asset: z.string(),
  network: z.string(),
  uri: z.string().min(1),
  expires_at: isoDateTimeSchema,
});

/** Instructions for a fiat rail: send the buyer to `redirect_url`. */
export const fiatPaymentLinkSchema = z.object({
  kind: z.literal('fiat'),
  payment_method: z.string(),
  redirect_url: httpUrlSchema,
  expires_at: isoDateTimeSchema,
});

/** `GET /payment_link` success `data`, discriminated by `kind`. */
export const paymentLinkSchema = z.discriminatedUnion('kind', [
  cryptoPaymentLinkSchema,
  fiatPaymentLinkSchema,
]);
export type PaymentLink = z.infer<typeof paymentLinkSchema>;
export type CryptoPaymentLink = z.infer<typeof cryptoPaymentLinkSchema>;
export type FiatPaymentLink = z.infer<typeof fiatPaymentLinkSchema>;
