import { isAbsoluteHttpUrl, readEmbedParams, transactionCodeSchema } from '@cryptocheckout/core';
import {
  PAY_ASSETS_DIR,
  PAY_ASSETS_PATH,
  payPageSecurityHeaders,
  renderPayPage,
  resolveLanguage,
} from '@cryptocheckout/pay-page';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ResolvedConfig } from '../config.js';
import type { CheckoutService } from '../domain/checkout-service.js';
import { ServiceProblem } from '../domain/service-problem.js';
import { registerAssetRoute } from './static-assets.js';

/** The hosted page `/pay/<transaction_code>` (docs/api.md) and its static assets. */
export function registerPageRoutes(
  app: FastifyInstance,
  service: CheckoutService,
  config: ResolvedConfig,
  clock: () => Date,
): void {
  registerAssetRoute(app, PAY_ASSETS_PATH, PAY_ASSETS_DIR);

  app.get<{ Params: { transactionCode: string }; Querystring: Record<string, string | undefined> }>(
    '/pay/:transactionCode',
    { schema: { hide: true } },
    async (request, reply) => {
      const code = transactionCodeSchema.safeParse(request.params.transactionCode);
      if (!code.success) return notFoundPage(reply);
      let details: Awaited<ReturnType<CheckoutService['getCheckoutDetails']>>;
      try {
        details = await service.getCheckoutDetails(code.data);
      } catch (error) {
        if (error instanceof ServiceProblem && error.code === 'not_found') return notFoundPage(reply);
        throw error;
      }
      const merchantOrigins = merchantOriginsOf(details);
      const embed = readEmbedParams(new URL(request.url, 'http://placeholder'));
      const parentOrigin =
        embed.parentOrigin && merchantOrigins.includes(embed.parentOrigin) ? embed.parentOrigin : null;
      const merchantUrl = details.successUrl ?? details.cancelUrl ?? details.webhookUrl;

      let selected: Parameters<typeof renderPayPage>[0]['selected'];
      const method = request.query.method;
      if (method && /^[a-z0-9_]{1,64}$/.test(method) && details.transaction.status !== 'settled') {
        try {
          selected = { link: await service.paymentLink(code.data, method, request.ip) };
        } catch (error) {
          if (!(error instanceof ServiceProblem)) throw error;
        }
      }
      const html = renderPayPage({
        transaction: details.transaction,
        paymentOptions: details.paymentOptions,
        selected,
        merchantDomain: merchantUrl ? new URL(merchantUrl).hostname : null,
        successUrl: details.successUrl,
        cancelUrl: details.cancelUrl,
        mode: config.mode,
        lang: resolveLanguage(request.query.lang, request.headers['accept-language']),
        apiBase: '/api',
        embed: { embedded: embed.embedded, parentOrigin },
        now: clock(),
      });
      reply.headers(payPageSecurityHeaders({ frameAncestors: merchantOrigins }));
      reply.header('cache-control', 'no-store');
      return reply.type('text/html; charset=utf-8').send(html);
    },
  );
}

/** Origins of the merchant's URLs of an order: the pages allowed to frame its checkout pages. */
export function merchantOriginsOf(details: {
  successUrl: string | null;
  cancelUrl: string | null;
  webhookUrl: string | null;
}): string[] {
  const origins = [details.successUrl, details.cancelUrl, details.webhookUrl]
    .filter((url): url is string => url !== null && isAbsoluteHttpUrl(url))
    .map((url) => new URL(url).origin);
  return [...new Set(origins)];
}

function notFoundPage(reply: FastifyReply): FastifyReply {
  return reply
    .code(404)
    .type('text/html; charset=utf-8')
    .header('content-security-policy', "default-src 'none'")
    .send(
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Checkout not found</title></head><body><h1>Checkout not found</h1><p>This payment link is not valid. Go back to the shop and start the payment again.</p></body></html>',
    );
}
