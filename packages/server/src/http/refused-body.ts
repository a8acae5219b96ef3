import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Most bytes of a refused body the server reads and drops after its 413 before it cuts the
 * connection: several times any real client's mistake, far below what would tie a connection up.
 */
export const REFUSED_BODY_DRAIN_BYTES = 8 * 1024 * 1024;

/** Sockets whose request was answered while its body was still arriving. */
const answeredEarly = new WeakSet<Socket>();

/**
 * Lets a client still sending a body too large read the 413. Fastify marks such an answer
 * `Connection: close` and Node then closes the socket at once: a client that writes its whole
 * body before reading (most do) gets EPIPE or ECONNRESET and never sees the answer. Instead the
 * rest of the body is read and dropped, up to `limit` bytes, and the connection then stays usable;
 * a body longer than that is cut by closing the connection. Call it before sending the answer.
 */
export function drainRefusedBody(
  request: FastifyRequest,
  reply: FastifyReply,
  limit = REFUSED_BODY_DRAIN_BYTES,
): void {
  const raw = request.raw;
  if (raw.complete || raw.destroyed) return;
  reply.removeHeader('connection');
  const socket = raw.socket;
  answeredEarly.add(socket);
  let drained = 0;
  const onData = (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > limit) {
      stop();
      socket.destroy();
    }
  };
  const stop = () => {
    raw.off('data', onData);
    raw.off('end', stop);
    raw.off('close', stop);
    answeredEarly.delete(socket);
  };
  raw.on('data', onData);
  raw.once('end', stop);
  raw.once('close', stop);
  raw.resume();
}

/**
 * True when the socket's request was answered while its body was still arriving: a later
 * client error (the whole-request timeout) must not write a second answer after it.
 */
export function answeredWhileReceiving(socket: Socket): boolean {
  return answeredEarly.has(socket);
}
