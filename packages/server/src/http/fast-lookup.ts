import type { IncomingMessage, ServerResponse } from 'node:http';
import { transactionQuerySchema } from '@cryptocheckout/core';
import type { CheckoutService } from '../domain/checkout-service.js';

const PREFIX = '/api/transaction?transaction_code=';
const CODE_LENGTH = 36;

/** Answers a request and says true, or says false and leaves it to the framework. */
export type FastRoute = (request: IncomingMessage, response: ServerResponse) => boolean;

/**
 * The most frequent request of all — the pay page and every plugin poll the status — answered on
 * Node's own request object: `GET /api/transaction?transaction_code=<36 characters>` and nothing
 * else in the URL. Its answer is the one the Fastify route gives: the same validation (the core
 * schema), the same service call, the same body and headers (a test compares the two answers). Everything else — another URL shape, a code the schema refuses, any error, a server that is
 * closing — goes to the framework, which owns every answer that is not a plain success.
 */
export function fastTransactionLookup(
  service: CheckoutService,
  isClosing: () => boolean,
  fallback: (request: IncomingMessage, response: ServerResponse) => void,
): FastRoute {
  return (request, response) => {
    const url = request.url;
    if (
      request.method !== 'GET' ||
      url === undefined ||
      url.length !== PREFIX.length + CODE_LENGTH ||
      !url.startsWith(PREFIX) ||
      isClosing()
    ) {
      return false;
    }
    const parsed = transactionQuerySchema.safeParse({ transaction_code: url.slice(PREFIX.length) });
    if (!parsed.success) return false;
    service.getTransaction(parsed.data.transaction_code).then(
      (transaction) => {
        const body = JSON.stringify({ status: 'success', data: transaction });
        response.writeHead(200, {
          'cache-control': 'no-store',
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(body),
          'x-content-type-options': 'nosniff',
        });
        response.end(body);
      },
      // Not found, contention, anything unexpected: the framework answers it (and logs what it must).
      () => fallback(request, response),
    );
    return true;
  };
}
