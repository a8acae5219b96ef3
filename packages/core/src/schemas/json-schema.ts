import { z } from 'zod';
import { checkoutCreatedSchema, checkoutRequestSchema } from './checkout.js';
import { errorEnvelopeSchema } from './envelope.js';
import { paymentLinkSchema } from './payment-link.js';
import { paymentOptionsSchema } from './payment-options.js';
import { transactionSchema } from './transaction.js';
import { settledWebhookSchema } from './webhook.js';

const CONTRACT = {
  checkoutRequest: [checkoutRequestSchema, 'input'],
  checkoutCreated: [checkoutCreatedSchema, 'output'],
  paymentOptions: [paymentOptionsSchema, 'output'],
  paymentLink: [paymentLinkSchema, 'output'],
  transaction: [transactionSchema, 'output'],
  settledWebhook: [settledWebhookSchema, 'output'],
  errorEnvelope: [errorEnvelopeSchema, 'output'],
} as const;

/**
 * JSON Schema (draft 2020-12) of every wire shape, generated from the zod schemas, so code in
 * other languages can be tested against the same contract. Refinements that JSON Schema cannot
 * express (address checksums, amount precision per currency) are in the conformance vectors.
 */
export function jsonSchemas(): Record<keyof typeof CONTRACT, Record<string, unknown>> {
  return Object.fromEntries(
    Object.entries(CONTRACT).map(([name, [schema, io]]) => [
      name,
      z.toJSONSchema(schema, { io, unrepresentable: 'any' }),
    ]),
  ) as unknown as Record<keyof typeof CONTRACT, Record<string, unknown>>;
}
