import type { onRequestHookHandler } from 'fastify';
import { bearerMatches } from '../operator-token.js';
import { sendError } from './envelope.js';

/**
 * The hook in front of every operator route (docs/operator-dashboard.md): answers are never cached,
 * and a request without `Authorization: Bearer <operator token>` gets 401 in the error envelope. A
 * header rather than a cookie, so a page on another site cannot make a browser send it (no CSRF).
 */
export function requireOperatorToken(token: string): onRequestHookHandler {
  return (request, reply, done) => {
    reply.header('cache-control', 'no-store');
    if (bearerMatches(request.headers.authorization, token)) return done();
    reply.header('www-authenticate', 'Bearer realm="operator"');
    sendError(
      reply,
      401,
      'unauthorized',
      request.headers.authorization
        ? 'The operator token is not right. Use the token the server printed when it first started (also in <data dir>/operator-token), or the one given with --operator-token.'
        : 'The operator API needs the header Authorization: Bearer <operator token>.',
    );
  };
}
