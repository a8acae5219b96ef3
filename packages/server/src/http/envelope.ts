import type { FastifyReply } from 'fastify';

/** Sends `{"status":"success","data":...}`. */
export function sendSuccess(reply: FastifyReply, data: unknown, httpStatus = 200): FastifyReply {
  return reply.code(httpStatus).send({ status: 'success', data });
}

/**
 * Sends `{"status":"error","error":{code,message,field?,retry_after?}}`. Carries nosniff itself because errors the
 * router raises (a malformed URL) are answered before the onRequest hook that sets it on the rest.
 */
export function sendError(
  reply: FastifyReply,
  httpStatus: number,
  code: string,
  message: string,
  field?: string,
  extra?: { retry_after: number },
): FastifyReply {
  return reply
    .code(httpStatus)
    .type('application/json; charset=utf-8')
    .header('x-content-type-options', 'nosniff')
    .send({
      status: 'error',
      error: { code, message, ...(field === undefined ? {} : { field }), ...extra },
    });
}
