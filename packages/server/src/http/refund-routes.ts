import {
  errorEnvelopeSchema,
  REFUND_STATUSES,
  refundCreatedSchema,
  refundCreateRequestSchema,
  refundIdSchema,
  refundQuerySchema,
  refundSchema,
  refundsOfTransactionQuerySchema,
  refundsOfTransactionSchema,
  sandboxRefundPaymentRequestSchema,
  successEnvelopeSchema,
} from '@cryptocheckout/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { FailedCredentials } from '../domain/failed-credentials.js';
import type { MerchantKeys } from '../domain/merchant-keys.js';
import type { OperatorRefunds } from '../domain/operator-refunds.js';
import type { RefundPayments } from '../domain/refund-payments.js';
import type { RefundService } from '../domain/refund-service.js';
import { sendSuccess } from './envelope.js';
import { cursorField, limitOf, optional } from './list-query.js';
import { requireOperatorToken } from './operator-access.js';

/** What the refund routes need. */
export interface RefundRouteDependencies {
  refunds: RefundService;
  payments: RefundPayments;
  operatorRefunds: OperatorRefunds;
  keys: MerchantKeys;
  operatorToken: string;
  /** Wrong credentials per client address (operator token and merchant keys alike). */
  failedCredentials: FailedCredentials;
  sandbox: boolean;
}

const errors = {
  400: errorEnvelopeSchema,
  401: errorEnvelopeSchema,
  403: errorEnvelopeSchema,
  404: errorEnvelopeSchema,
  409: errorEnvelopeSchema,
  422: errorEnvelopeSchema,
  503: errorEnvelopeSchema,
};
const refundParams = z.object({ refund_id: refundIdSchema });
const cancelBody = z
  .object({
    reason: z.string().trim().max(200, { error: 'reason must be at most 200 characters' }).optional(),
  })
  .optional();
const operatorListQuery = z.object({
  q: optional(z.string().trim().max(128, { error: 'q must be at most 128 characters' })),
  status: optional(z.enum(REFUND_STATUSES)),
  limit: limitOf(50),
  cursor: cursorField,
});
const keyParams = z.object({
  keyId: z.string().regex(/^[0-9a-f-]{36}$/i, { error: 'key_id must be a merchant key id (a UUID)' }),
});
const issueBody = z.object({ label: z.unknown(), wallet_addresses: z.unknown() });

/**
 * Refunds (docs/refunds.md): create and cancel with a credential, look up without one; the sandbox
 * control that pays a refund; the operator's refunds list and merchant keys.
 */
export function registerRefundRoutes(app: FastifyInstance, deps: RefundRouteDependencies): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { refunds, keys } = deps;

  api.post(
    '/api/refunds',
    {
      schema: {
        summary:
          'Create a refund of a settled order (Authorization: Bearer <merchant key or operator token>)',
        tags: ['refunds'],
        body: refundCreateRequestSchema,
        response: {
          200: successEnvelopeSchema(refundCreatedSchema),
          201: successEnvelopeSchema(refundCreatedSchema),
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const actor = await keys.authenticate(request.headers.authorization, request.ip);
      const refund = await refunds.create(actor, request.body);
      // The answer carries the claim link, which only the buyer should follow: no cache keeps it.
      reply.header('cache-control', 'no-store');
      return sendSuccess(reply, refund, refund.created ? 201 : 200);
    },
  );

  api.post(
    '/api/refunds/:refund_id/cancel',
    {
      schema: {
        summary: 'Cancel a refund not yet paid (Authorization: Bearer <merchant key or operator token>)',
        tags: ['refunds'],
        params: refundParams,
        body: cancelBody,
        response: { 200: successEnvelopeSchema(refundSchema), ...errors },
      },
    },
    async (request, reply) => {
      const actor = await keys.authenticate(request.headers.authorization, request.ip);
      reply.header('cache-control', 'no-store');
      return sendSuccess(reply, await refunds.cancel(actor, request.params.refund_id, request.body?.reason));
    },
  );

  api.get(
    '/api/refund',
    {
      schema: {
        summary: 'Look up a refund by its id (no credential: the id is unguessable)',
        tags: ['refunds'],
        querystring: refundQuerySchema,
        response: { 200: successEnvelopeSchema(refundSchema), ...errors },
      },
    },
    async (request, reply) => sendSuccess(reply, await refunds.get(request.query.refund_id)),
  );

  api.get(
    '/api/refunds',
    {
      schema: {
        summary: 'The refunds of an order, with what it received and what is left to refund',
        tags: ['refunds'],
        querystring: refundsOfTransactionQuerySchema,
        response: { 200: successEnvelopeSchema(refundsOfTransactionSchema), ...errors },
      },
    },
    async (request, reply) => sendSuccess(reply, await refunds.ofTransaction(request.query.transaction_code)),
  );

  if (deps.sandbox) {
    api.post(
      '/api/sandbox/refunds/pay',
      {
        schema: {
          summary: 'Sandbox: pay a refund whose buyer confirmed an address, as the merchant would',
          tags: ['sandbox'],
          body: sandboxRefundPaymentRequestSchema,
          response: { 200: successEnvelopeSchema(refundSchema), ...errors },
        },
      },
      async (request, reply) => sendSuccess(reply, await deps.payments.sandboxPay(request.body.refund_id)),
    );
  }

  registerOperatorRefundRoutes(app, deps);
}

/** `/api/operator/refunds…` and `/api/operator/merchant-keys…`, behind the operator token. */
function registerOperatorRefundRoutes(app: FastifyInstance, deps: RefundRouteDependencies): void {
  app.register(async (scope) => {
    scope.addHook('onRequest', requireOperatorToken(deps.operatorToken, deps.failedCredentials));
    const api = scope.withTypeProvider<ZodTypeProvider>();
    const hidden = { hide: true };
    api.get(
      '/api/operator/refunds',
      { schema: { ...hidden, querystring: operatorListQuery } },
      async (request, reply) => {
        const { q, status, limit, cursor } = request.query;
        return sendSuccess(reply, await deps.operatorRefunds.list({ search: q, status }, cursor, limit));
      },
    );
    api.get(
      '/api/operator/refunds/:refund_id',
      { schema: { ...hidden, params: refundParams } },
      async (request, reply) =>
        sendSuccess(reply, await deps.operatorRefunds.detail(request.params.refund_id)),
    );
    api.get('/api/operator/merchant-keys', { schema: hidden }, async (_request, reply) =>
      sendSuccess(reply, await deps.keys.list()),
    );
    api.post(
      '/api/operator/merchant-keys',
      { schema: { ...hidden, body: issueBody } },
      async (request, reply) =>
        sendSuccess(reply, await deps.keys.issue(request.body.label, request.body.wallet_addresses), 201),
    );
    api.post(
      '/api/operator/merchant-keys/:keyId/revoke',
      { schema: { ...hidden, params: keyParams } },
      async (request, reply) => sendSuccess(reply, await deps.keys.revoke(request.params.keyId)),
    );
  });
}
