import type { Socket } from 'node:net';
import { ERROR_CODES, type ErrorCode } from '@cryptocheckout/core';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { RateLimited } from '../domain/new-hold-limits.js';
import { ServiceProblem } from '../domain/service-problem.js';
import { sendError } from './envelope.js';
import { answeredWhileReceiving, drainRefusedBody } from './refused-body.js';
import { RequestValidationError } from './validation.js';

/** Largest request body accepted; a checkout body is well under 4 KiB. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/** The envelope code of each 4xx status the framework or Node itself can produce. */
const CODE_OF_STATUS: Record<number, ErrorCode> = Object.fromEntries(
  Object.entries(ERROR_CODES).map(([code, status]) => [status, code as ErrorCode]),
);

/**
 * Answers what Node's HTTP parser refuses before Fastify sees a request (garbage, oversized
 * headers, a request that took too long) in the error envelope, then closes the connection.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  // A request answered early (a 413) whose body is still arriving has had its answer: cut it.
  if (answeredWhileReceiving(socket)) {
    socket.destroy();
    return;
  }
  const [status, reason, code, message] = CLIENT_ERRORS[error.code ?? ''] ?? CLIENT_ERRORS.default!;
  answerOnSocket(socket, status, reason, code, message);
}

/**
 * Answers a CONNECT request with 405 in the envelope: Node hands CONNECT to a `connect` listener
 * and, without one, closes the connection silently. This server is not a proxy.
 */
export function answerConnectRequest(_request: unknown, socket: Socket): void {
  answerOnSocket(
    socket,
    405,
    'Method Not Allowed',
    'method_not_allowed',
    'This server is not a proxy; CONNECT is not accepted.',
  );
}

/** Writes a raw HTTP/1.1 error answer in the envelope, then closes the connection. */
function answerOnSocket(
  socket: Socket,
  status: number,
  reason: string,
  code: ErrorCode,
  message: string,
): void {
  // Nothing can be said on a socket that is gone or already carries the head of an answer (a
  // kept-alive socket carries earlier, complete answers: bytesWritten alone would silence it).
  const response = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !response?.headersSent) {
    const body = JSON.stringify({ status: 'error', error: { code, message } });
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        'X-Content-Type-Options: nosniff\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroySoon();
}

/** Node's client errors by code: status, reason phrase, envelope code, message. */
const CLIENT_ERRORS: Record<string, [number, string, ErrorCode, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [
    408,
    'Request Timeout',
    'request_timeout',
    'The request took too long to arrive; send it again at once.',
  ],
  HPE_HEADER_OVERFLOW: [
    431,
    'Request Header Fields Too Large',
    'request_header_fields_too_large',
    'The request headers are too large; send smaller headers (at most 16 KiB).',
  ],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [
    413,
    'Payload Too Large',
    'payload_too_large',
    'The chunk extensions of the request body are too large.',
  ],
  default: [400, 'Bad Request', 'invalid_request', 'The request is not valid HTTP/1.1.'],
};

/** Every error of a request, the framework's included, as an envelope with its documented status. */
export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof RateLimited) {
    reply.header('retry-after', String(error.retryAfterSeconds));
    return sendError(reply, error.httpStatus, error.code, error.message, error.field, {
      retry_after: error.retryAfterSeconds,
    });
  }
  if (error instanceof ServiceProblem) {
    return sendError(reply, error.httpStatus, error.code, error.message, error.field);
  }
  if (error instanceof RequestValidationError) {
    return sendError(reply, 400, 'invalid_request', error.message, error.field);
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      drainRefusedBody(request, reply);
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
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH' || error.statusCode === 414) {
    return sendError(
      reply,
      414,
      'uri_too_long',
      'A path segment of the URL is too long (at most 200 characters).',
    );
  }
  if (error.code === 'FST_ERR_BAD_URL') {
    return sendError(reply, 400, 'invalid_request', 'The URL is malformed: a % escape is not valid UTF-8.');
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    // Only statuses the envelope documents go out; any other client error is a plain 400.
    const code = CODE_OF_STATUS[error.statusCode];
    return code
      ? sendError(reply, error.statusCode, code, error.message)
      : sendError(reply, 400, 'invalid_request', error.message);
  }
  request.log.error(
    { err: error, reqId: request.id, method: request.method, url: request.url },
    'unhandled error',
  );
  return sendError(reply, 500, 'internal_error', 'Something went wrong on the server; it has been logged.');
}
