import {
  errorEnvelopeSchema,
  sandboxPaymentRequestSchema,
  successEnvelopeSchema,
  transactionCodeSchema,
  transactionQuerySchema,
  transactionSchema,
} from '@cryptocheckout/core';
import { escapeHtml, frameAncestorsDirective } from '@cryptocheckout/pay-page';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { CheckoutService } from '../domain/checkout-service.js';
import { findRail } from '../rails/catalog.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';
import { sendSuccess } from './envelope.js';
import { merchantOriginsOf } from './page-routes.js';

// Codes are checked here, not only in the service: a NUL byte must never reach PostgreSQL.
const cardParams = z.object({ transaction_code: transactionCodeSchema });
const cardQuery = z.object({
  method: z
    .string()
    .regex(/^[a-z0-9_]{1,64}$/, { error: 'method must be a rail slug such as "card"' })
    .default('card'),
});

const errors = { 400: errorEnvelopeSchema, 404: errorEnvelopeSchema, 409: errorEnvelopeSchema };

/** Sandbox-only controls: simulate payments, inspect webhook deliveries, the simulated card page. */
export function registerSandboxRoutes(
  app: FastifyInstance,
  service: CheckoutService,
  outbox: WebhookOutbox,
): void {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    '/api/sandbox/pay',
    {
      schema: {
        summary: 'Sandbox: simulate a full, partial or over-payment by any rail',
        tags: ['sandbox'],
        body: sandboxPaymentRequestSchema,
        response: { 200: successEnvelopeSchema(transactionSchema), ...errors },
      },
    },
    async (request, reply) => sendSuccess(reply, await service.sandboxPay(request.body)),
  );

  api.get(
    '/api/sandbox/webhooks',
    {
      schema: {
        summary: 'Sandbox: webhook deliveries of a transaction with every attempt',
        tags: ['sandbox'],
        querystring: transactionQuerySchema,
      },
    },
    async (request, reply) => {
      await service.applyDueTransition(request.query.transaction_code);
      return sendSuccess(reply, {
        deliveries: await outbox.deliveriesOf(request.query.transaction_code.toLowerCase()),
      });
    },
  );

  api.get(
    '/sandbox/card/:transaction_code',
    { schema: { hide: true, params: cardParams, querystring: cardQuery } },
    async (request, reply) => {
      const details = await service.getCheckoutDetails(request.params.transaction_code);
      const { transaction } = details;
      const rail = findRail(request.query.method);
      const code = escapeHtml(transaction.transaction_code);
      const method = escapeHtml(rail?.slug ?? 'card');
      // Framed like the pay page it replaces inside the merchant's modal, and by nobody else.
      reply.header(
        'content-security-policy',
        `default-src 'none'; style-src 'self'; form-action 'self'; ${frameAncestorsDirective(merchantOriginsOf(details))}`,
      );
      return reply.type('text/html; charset=utf-8').send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sandbox ${escapeHtml(rail?.name ?? 'card')} payment</title><link rel="stylesheet" href="/pay/assets/pay.css"></head>
<body><main class="sandbox-card">
<p class="sandbox-banner" role="note">Sandbox — no real money moves</p>
<h1>${escapeHtml(rail?.name ?? 'Card')} payment</h1>
<p>Pay <strong>${escapeHtml(String(transaction.fiat_amount))} ${escapeHtml(transaction.fiat_currency)}</strong> for order ${escapeHtml(transaction.external_reference)}.</p>
<form method="post" action="/sandbox/card/${code}?method=${method}">
<button type="submit" name="outcome" value="pay">Pay</button>
<button type="submit" name="outcome" value="cancel">Cancel</button>
</form></main></body></html>`);
    },
  );

  api.post(
    '/sandbox/card/:transaction_code',
    {
      schema: {
        hide: true,
        params: cardParams,
        querystring: cardQuery,
        body: z.object({ outcome: z.enum(['pay', 'cancel']) }),
      },
    },
    async (request, reply) => {
      const code = request.params.transaction_code.toLowerCase();
      if (request.body.outcome === 'pay') {
        await service.sandboxPay({
          transaction_code: code,
          payment_method: request.query.method,
          size: 'full',
          confirmed: true,
        });
      }
      return reply.redirect(`/pay/${encodeURIComponent(code)}`, 303);
    },
  );
}
