import { z } from 'zod';
import {
  decimalInputSchema,
  decimalStringSchema,
  httpUrlSchema,
  isoDateTimeSchema,
  printableText,
  requiredString,
  transactionCodeSchema,
} from './common.js';

/**
 * Refunds (docs/refunds.md): the merchant pays the buyer back from the merchant's own wallet, in the
 * asset and on the network the order settled to, to an address the buyer confirmed on the claim page.
 */
export const REFUND_STATUSES = [
  'awaiting_address',
  'awaiting_payment',
  'paid',
  'cancelled',
  'expired',
] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A refund id: UUID-shaped, random (docs/refunds.md). */
export const refundIdSchema = requiredString('refund_id').regex(UUID_SHAPE, {
  error: 'refund_id must be a UUID like 0b7c6f1e-2d3a-4e5f-8a9b-0c1d2e3f4a5b',
});

/**
 * `POST /api/refunds` body (credential required). `amount` is in `currency`: the order's fiat
 * currency (converted at the rate the checkout locked) or the settled asset's symbol ("USDC").
 * `reference` is the shop's own id of the refund: asking again with the same reference answers the
 * same refund instead of creating another.
 */
export const refundCreateRequestSchema = z.object({
  transaction_code: transactionCodeSchema,
  amount: requiredString('amount', ', a decimal string such as "12.50"').pipe(decimalInputSchema),
  currency: requiredString(
    'currency',
    ': the order\'s fiat currency ("EUR") or the paid asset ("USDC")',
  ).regex(/^[A-Z0-9]{2,10}$/, { error: 'currency must be an uppercase code such as "EUR" or "USDC"' }),
  reference: printableText(64).optional(),
  reason: printableText(200).optional(),
});
export type RefundCreateRequest = z.infer<typeof refundCreateRequestSchema>;

/** `GET /api/refund?refund_id=…` query (no credential: the id is the secret). */
export const refundQuerySchema = z.object({ refund_id: refundIdSchema });

/** `GET /api/refunds?transaction_code=…` query: the refunds of one order, oldest first. */
export const refundsOfTransactionQuerySchema = z.object({ transaction_code: transactionCodeSchema });

/** One change of a refund's status; the first entry is its creation. */
const refundStateChangeSchema = z.object({
  status: z.enum(REFUND_STATUSES),
  at: isoDateTimeSchema,
  note: z.string().nullable(),
});
export type RefundStateChange = z.infer<typeof refundStateChangeSchema>;

/**
 * What the merchant sends once the buyer confirmed an address: the sentence to show, and a wallet
 * link (EIP-681 `ethereum:` on EVM networks, the network's own URI scheme elsewhere).
 */
const refundPaymentRequestSchema = z.object({
  text: z.string(),
  uri: z.string(),
});
export type RefundPaymentRequest = z.infer<typeof refundPaymentRequestSchema>;

/** A refund as `GET /api/refund` answers it; the claim link is only in the create answer. */
export const refundSchema = z.object({
  refund_id: refundIdSchema,
  transaction_code: transactionCodeSchema,
  external_reference: z.string(),
  reference: z.string().nullable(),
  status: z.enum(REFUND_STATUSES),
  /** In `asset` units, the exact amount the merchant sends. */
  amount: decimalStringSchema,
  asset: z.string(),
  network: z.string(),
  /** The fiat amount asked, when the refund was created in the order's currency. */
  fiat_amount: decimalStringSchema.nullable(),
  fiat_currency: z.string(),
  reason: z.string().nullable(),
  /** The address the buyer confirmed; null until then. */
  address: z.string().nullable(),
  payment_request: refundPaymentRequestSchema.nullable(),
  /** The chain transaction (or sandbox reference) that paid it. */
  tx_id: z.string().nullable(),
  tx_url: httpUrlSchema.nullable(),
  created_at: isoDateTimeSchema,
  /** The buyer must confirm an address before this; afterwards an unclaimed refund expires. */
  claim_expires_at: isoDateTimeSchema,
  address_confirmed_at: isoDateTimeSchema.nullable(),
  paid_at: isoDateTimeSchema.nullable(),
  cancelled_at: isoDateTimeSchema.nullable(),
  history: z.array(refundStateChangeSchema),
});
export type Refund = z.infer<typeof refundSchema>;

/** `POST /api/refunds` answer: the refund and the buyer's claim link, to send to the buyer. */
export const refundCreatedSchema = refundSchema.extend({
  claim_url: httpUrlSchema,
  /** False when `reference` named a refund that already existed. */
  created: z.boolean(),
});
export type RefundCreated = z.infer<typeof refundCreatedSchema>;

/** The refunds of one order with what is left to refund. */
export const refundsOfTransactionSchema = z.object({
  transaction_code: transactionCodeSchema,
  asset: z.string(),
  network: z.string(),
  /** What the order received, in `asset` units. */
  received: decimalStringSchema,
  /** Received minus every refund not cancelled or expired. */
  refundable: decimalStringSchema,
  refunds: z.array(refundSchema),
});
export type RefundsOfTransaction = z.infer<typeof refundsOfTransactionSchema>;

/** The one refund event: sent to the order's `webhook_url` when a refund is paid. */
export const REFUND_PAID_EVENT = 'refund.paid';

/** Body of the `refund.paid` webhook; `timestamp` is Unix seconds. A hint: confirm with `GET /api/refund`. */
export const refundPaidWebhookSchema = z.object({
  event: z.literal(REFUND_PAID_EVENT),
  refund_id: refundIdSchema,
  transaction_code: transactionCodeSchema,
  external_reference: z.string(),
  reference: z.string().nullable(),
  amount: decimalStringSchema,
  asset: z.string(),
  network: z.string(),
  address: z.string(),
  tx_id: z.string(),
  timestamp: z.number().int().nonnegative(),
});
export type RefundPaidWebhook = z.infer<typeof refundPaidWebhookSchema>;

/** Sandbox: `POST /api/sandbox/refunds/pay` pays a refund awaiting payment as the merchant would. */
export const sandboxRefundPaymentRequestSchema = z.object({ refund_id: refundIdSchema });
