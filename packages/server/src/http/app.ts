import { createServer } from 'node:http';
import { escapeHtml } from '@cryptocheckout/pay-page';
import fastifySwagger from '@fastify/swagger';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config.js';
import type { CheckoutService } from '../domain/checkout-service.js';
import type { FailedCredentials } from '../domain/failed-credentials.js';
import type { OperatorService } from '../domain/operator-service.js';
import { defaultTokenTable } from '../rails/evm/evm-networks.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';
import { registerApiRoutes } from './api-routes.js';
import { registerDashboardRoutes } from './dashboard-routes.js';
import { sendError } from './envelope.js';
import { answerClientError, answerConnectRequest, BODY_LIMIT_BYTES, handleError } from './errors.js';
import { fastTransactionLookup } from './fast-lookup.js';
import { registerOperatorRoutes } from './operator-routes.js';
import { registerPageRoutes } from './page-routes.js';
import { parseQueryFirstValueWins, repeatedQueryKey } from './query-string.js';
import { type RefundClaimPort, registerRefundPageRoutes } from './refund-page-routes.js';
import { type RefundRouteDependencies, registerRefundRoutes } from './refund-routes.js';
import { registerSandboxRoutes } from './sandbox-routes.js';
import { RequestValidationError, zodValidatorCompiler } from './validation.js';
import { registerWalletCheckRoutes } from './wallet-check-routes.js';

/** Paths the API serves, with their methods, so a wrong method gets 405 instead of 404. */
const KNOWN_PATHS: Record<string, string[]> = {
  '/api/payment_options': ['GET'],
  '/api/checkout': ['POST'],
  '/api/payment_link': ['GET'],
  '/api/transaction': ['GET'],
  '/api/health': ['GET'],
  '/api/wallet_check': ['GET'],
  '/api/openapi.json': ['GET'],
  '/api/sandbox/pay': ['POST'],
  '/api/sandbox/webhooks': ['GET'],
  '/api/sandbox/refunds/pay': ['POST'],
  '/api/refunds': ['GET', 'POST'],
  '/api/refund': ['GET'],
};

export interface AppDependencies {
  config: ResolvedConfig;
  service: CheckoutService;
  operator: OperatorService;
  /** The bearer token the operator API takes. */
  operatorToken: string;
  outbox: WebhookOutbox;
  /** Refunds: the service, its payments, the operator's view, merchant keys. */
  refunds: Omit<RefundRouteDependencies, 'operatorToken' | 'sandbox' | 'failedCredentials'> & {
    claims: RefundClaimPort;
  };
  /** Wrong operator tokens and merchant keys per client address. */
  failedCredentials: FailedCredentials;
  logger: Logger;
  describeServer: () => object;
  version: string;
  clock: () => Date;
}

/** Builds the Fastify application: API, OpenAPI document, hosted page, sandbox controls. */
export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  let closing = false;
  const app = Fastify({
    // Node's server as Fastify would make it, with the status lookup answered ahead of the router.
    serverFactory: (handler, options) => {
      const fastRoute = fastTransactionLookup(deps.service, () => closing, handler);
      const server = createServer(options.http ?? {}, (request, response) => {
        if (!fastRoute(request, response)) handler(request, response);
      });
      server.keepAliveTimeout = deps.config.keepAliveTimeoutMs;
      server.requestTimeout = deps.config.requestTimeoutMs;
      return server;
    },
    loggerInstance: deps.logger as unknown as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    // request.ip is the client address the new-hold limits count (docs/live-mode.md "Floods and limits").
    trustProxy: deps.config.trustProxy,
    // Per-request logs would dominate a busy server's output; state changes are logged instead.
    logController: new LogController({ disableRequestLogging: true }),
    // No per-request child logger: nothing logs per request, and a pino child costs microseconds on
    // every answer. The one request-scoped log (an unhandled error) names the request id itself.
    childLoggerFactory: (logger) => logger,
    routerOptions: {
      ignoreTrailingSlash: true,
      maxParamLength: 200,
      querystringParser: parseQueryFirstValueWins,
    },
    // Fastify's own 503 while closing is not in the envelope; the onRequest hook below answers it.
    return503OnClosing: false,
    // A client gets requestTimeoutMs for the whole request, at most 10 s of it for the headers;
    // the checks run often enough that the limits hold within a fraction of themselves.
    requestTimeout: deps.config.requestTimeoutMs,
    keepAliveTimeout: deps.config.keepAliveTimeoutMs,
    http: {
      requestTimeout: deps.config.requestTimeoutMs,
      headersTimeout: Math.min(deps.config.requestTimeoutMs, 10_000),
      connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(deps.config.requestTimeoutMs / 5))),
    },
    clientErrorHandler: answerClientError,
    // Malformed URLs and over-long path segments never reach the error handler otherwise.
    frameworkErrors: handleError,
  });
  app.server.maxConnections = deps.config.maxConnections;
  app.server.on('connect', answerConnectRequest);
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Callback-style hook: an async one costs a promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    // Browsers must not guess a type for any answer, JSON errors included (set here, once, for all).
    reply.header('x-content-type-options', 'nosniff');
    if (closing) {
      reply.header('connection', 'close');
      sendError(
        reply,
        503,
        'unavailable',
        'The server is shutting down; send the request again in a moment.',
      );
      return;
    }
    if (!request.url.startsWith('/api/')) return done();
    const repeated = repeatedQueryKey(request.url);
    if (repeated === undefined) return done();
    done(
      new RequestValidationError(
        repeated,
        `${repeated} is given more than once in the query string; send it once.`,
      ),
    );
  });
  app.setValidatorCompiler(zodValidatorCompiler);
  // Responses are built from typed objects; plain JSON.stringify keeps lookups fast.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  // JSON only on the API (and form posts for the sandbox card page): anything else is 415.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    },
  );
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Crypto Checkout API',
        version: deps.version,
        description: [
          'Hosted crypto checkout: create a checkout in a fiat amount, send the buyer to checkout_url, reconcile by webhook or GET /transaction. See docs/api.md.',
          '',
          'Live mode (docs/live-mode.md) takes USDC and USDT on EVM networks straight to the merchant wallet, watching these token contracts unless configured otherwise:',
          '',
          ...defaultTokenTable().map((line) => `- ${line}`),
        ].join('\n'),
      },
      servers: [{ url: '/' }],
      tags: [
        { name: 'checkout', description: 'The four endpoints of the service' },
        {
          name: 'refunds',
          description:
            'Refunds paid from the merchant wallet to an address the buyer confirmed (docs/refunds.md)',
        },
        { name: 'sandbox', description: 'Simulated payments (sandbox mode only)' },
        { name: 'operations', description: 'Health' },
      ],
    },
    transform: jsonSchemaTransform,
  });
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!.replace(/\/$/, '');
    const methods = KNOWN_PATHS[path];
    if (methods && !methods.includes(request.method)) {
      reply.header('allow', methods.join(', '));
      return sendError(reply, 405, 'method_not_allowed', `${path} accepts ${methods.join(', ')} only.`);
    }
    return sendError(reply, 404, 'not_found', `No such endpoint: ${request.method} ${path}.`);
  });
  registerApiRoutes(app, deps.service, deps.describeServer);
  registerWalletCheckRoutes(app, deps.config.bitcoin?.chain ?? 'main');
  if (deps.config.mode === 'sandbox') registerSandboxRoutes(app, deps.service, deps.outbox);
  registerPageRoutes(app, deps.service, deps.config, deps.clock);
  registerRefundPageRoutes(app, deps.refunds.claims, deps.clock);
  registerOperatorRoutes(app, deps.operator, deps.operatorToken, deps.failedCredentials);
  registerRefundRoutes(app, {
    ...deps.refunds,
    operatorToken: deps.operatorToken,
    failedCredentials: deps.failedCredentials,
    sandbox: deps.config.mode === 'sandbox',
  });
  registerDashboardRoutes(app, deps.config.dashboardDir);
  app.get('/api/openapi.json', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(JSON.stringify(app.swagger())),
  );
  app.get('/', { schema: { hide: true } }, async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', "default-src 'none'")
      .send(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Crypto Checkout server</title></head><body><h1>Crypto Checkout reference server</h1><p>Mode: <strong>${escapeHtml(deps.config.mode)}</strong>. API base: <code>/api</code>. OpenAPI: <a href="/api/openapi.json">/api/openapi.json</a>. Health: <a href="/api/health">/api/health</a>. Operator dashboard: <a href="/dashboard">/dashboard</a>.</p></body></html>`,
      ),
  );
  return app;
}
