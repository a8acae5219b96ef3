import {
  checkoutCreatedSchema,
  checkoutRequestSchema,
  errorEnvelopeSchema,
  paymentLinkQuerySchema,
  paymentLinkSchema,
  paymentOptionsQuerySchema,
  paymentOptionsSchema,
  successEnvelopeSchema,
  transactionQuerySchema,
  transactionSchema,
} from '@cryptocheckout/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { CheckoutService } from '../domain/checkout-service.js';
import { sendSuccess } from './envelope.js';

const errors = {
  400: errorEnvelopeSchema,
  404: errorEnvelopeSchema,
  409: errorEnvelopeSchema,
  422: errorEnvelopeSchema,
};

/** The four endpoints of docs/api.md ("Endpoints") and the health check, under /api. */
export function registerApiRoutes(
  app: FastifyInstance,
  service: CheckoutService,
  describeServer: () => object,
): void {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/api/payment_options',
    {
      schema: {
        summary: 'Price-check the payment rails for an amount',
        tags: ['checkout'],
        querystring: paymentOptionsQuerySchema,
        response: { 200: successEnvelopeSchema(paymentOptionsSchema), ...errors },
      },
    },
    async (request, reply) =>
      sendSuccess(
        reply,
        await service.paymentOptions(request.query.fiat_amount, request.query.fiat_currency),
      ),
  );

  api.post(
    '/api/checkout',
    {
      schema: {
        summary: 'Create a pending checkout; redirect the buyer to checkout_url',
        tags: ['checkout'],
        body: checkoutRequestSchema,
        response: { 201: successEnvelopeSchema(checkoutCreatedSchema), ...errors },
      },
    },
    async (request, reply) => sendSuccess(reply, await service.createCheckout(request.body), 201),
  );

  api.get(
    '/api/payment_link',
    {
      schema: {
        summary: 'Payment instructions for one rail of a transaction',
        tags: ['checkout'],
        querystring: paymentLinkQuerySchema,
        response: { 200: successEnvelopeSchema(paymentLinkSchema), ...errors, 429: errorEnvelopeSchema },
      },
    },
    async (request, reply) =>
      sendSuccess(
        reply,
        await service.paymentLink(request.query.transaction_code, request.query.payment_method, request.ip),
      ),
  );

  api.get(
    '/api/transaction',
    {
      schema: {
        summary: 'Look up the live state of a transaction',
        tags: ['checkout'],
        querystring: transactionQuerySchema,
        response: { 200: successEnvelopeSchema(transactionSchema), ...errors },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return sendSuccess(reply, await service.getTransaction(request.query.transaction_code));
    },
  );

  api.get(
    '/api/health',
    {
      schema: {
        summary: 'Liveness and configuration summary',
        tags: ['operations'],
        response: { 200: successEnvelopeSchema(z.object({ ok: z.literal(true) }).loose()) },
      },
    },
    async (_request, reply) => sendSuccess(reply, { ok: true, ...describeServer() }),
  );
}
