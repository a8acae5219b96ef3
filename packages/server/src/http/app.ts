import { escapeHtml } from '@cryptocheckout/pay';
import fastifySwagger from '@fastify/swagger';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  LogController,
} from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config.js';
import type { CheckoutService } from '../domain/checkout-service.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';
import { registerApiRoutes } from './api-routes.js';
import { sendError } from './envelope.js';
import { registerPageRoutes } from './page-routes.js';
import { ServiceProblem } from './problem.js';
import { registerSandboxRoutes } from './sandbox-routes.js';
import { RequestValidationError, zodValidatorCompiler } from './validation.js';

/** Largest request body accepted; a checkout body is well under 4 KiB. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/** Paths the API serves, with their methods, so a wrong method gets 405 instead of 404. */
const KNOWN_PATHS: Record<string, string[]> = {
  '/api/payment_options': ['GET'],
  '/api/checkout': ['POST'],
  '/api/payment_link': ['GET'],
  '/api/transaction': ['GET'],
  '/api/health': ['GET'],
  '/api/openapi.json': ['GET'],
  '/api/sandbox/pay': ['POST'],
  '/api/sandbox/webhooks': ['GET'],
};

export interface AppDependencies {
  config: ResolvedConfig;
  service: CheckoutService;
  outbox: WebhookOutbox;
  logger: Logger;
  describeServer: () => object;
  version: string;
  clock: () => Date;
}

/** Builds the Fastify application: API, OpenAPI document, hosted page, sandbox controls. */
export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger as unknown as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    // Per-request logs would dominate a busy server's output; state changes are logged instead.
    logController: new LogController({ disableRequestLogging: true }),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    return503OnClosing: true,
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
        description:
          'Hosted crypto checkout: create a checkout in a fiat amount, send the buyer to checkout_url, reconcile by webhook or GET /transaction. See docs/api.md.',
      },
      servers: [{ url: '/' }],
      tags: [
        { name: 'checkout', description: 'The four endpoints of the service' },
        { name: 'sandbox', description: 'Simulated payments (sandbox mode only)' },
        { name: 'operations', description: 'Health' },
      ],
    },
    transform: jsonSchemaTransform,
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ServiceProblem) {
      return sendError(reply, error.httpStatus, error.code, error.message, error.field);
    }
    if (error instanceof RequestValidationError) {
      return sendError(reply, 400, 'invalid_request', error.message, error.field);
    }
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendError(
          reply,
          413,
          'payload_too_large',
          `The request body is larger than ${BODY_LIMIT_BYTES} bytes.`,
        );
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return sendError(
          reply,
          415,
          'unsupported_media_type',
          'Send the body as JSON with the header Content-Type: application/json.',
        );
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return sendError(
          reply,
          400,
          'invalid_request',
          'The request body is empty; send a JSON object.',
          'body',
        );
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return sendError(reply, 400, 'invalid_request', 'The Content-Length header does not match the body.');
    }
    if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
      return sendError(
        reply,
        400,
        'invalid_request',
        `The request body is not valid JSON: ${error.message}`,
        'body',
      );
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return sendError(reply, error.statusCode, 'invalid_request', error.message);
    }
    request.log.error({ err: error, url: request.url }, 'unhandled error');
    return sendError(reply, 500, 'internal_error', 'Something went wrong on the server; it has been logged.');
  });

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
  if (deps.config.mode === 'sandbox') registerSandboxRoutes(app, deps.service, deps.outbox);
  registerPageRoutes(app, deps.service, deps.config, deps.clock);

  app.get('/api/openapi.json', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(JSON.stringify(app.swagger())),
  );
  app.get('/', { schema: { hide: true } }, async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', "default-src 'none'")
      .send(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Crypto Checkout server</title></head><body><h1>Crypto Checkout reference server</h1><p>Mode: <strong>${escapeHtml(deps.config.mode)}</strong>. API base: <code>/api</code>. OpenAPI: <a href="/api/openapi.json">/api/openapi.json</a>. Health: <a href="/api/health">/api/health</a>.</p></body></html>`,
      ),
  );
  return app;
}
