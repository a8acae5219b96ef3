import type { onRequestHookHandler } from 'fastify';
import type { FailedCredentials } from '../domain/failed-credentials.js';
import { bearerMatches } from '../operator-token.js';
import { sendError } from './envelope.js';

/**
 * The hook in front of every operator route (docs/operator-dashboard.md): answers are never cached,
 * and a request without `Authorization: Bearer <operator token>` gets 401 in the error envelope. A
 * header rather than a cookie, so a page on another site cannot make a browser send it (no CSRF).
 * Wrong tokens count against the client address in `failedCredentials`.
 */
export function requireOperatorToken(
  token: string,
  failedCredentials: FailedCredentials,
): onRequestHookHandler {
  return async (request, reply) => {
    reply.header('cache-control', 'no-store');
    // A client that sent too many wrong tokens waits: 429 with Retry-After (docs/api.md "Limits").
    failedCredentials.assertMayTry(request.ip);
    if (bearerMatches(request.headers.authorization, token)) return;
    if (request.headers.authorization) failedCredentials.failed(request.ip, 'operator token');
    reply.header('www-authenticate', 'Bearer realm="operator"');
    return sendError(
      reply,
      401,
      'unauthorized',
      request.headers.authorization
        ? 'The operator token is not right. Use the token the server printed when it first started (also in <data dir>/operator-token), or the one given with --operator-token.'
        : 'The operator API needs the header Authorization: Bearer <operator token>.',
    );
  };
}
