// A 413 reaches a client that is still sending its body (issue 40, item 7).
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMIT_BYTES } from '../src/http/errors.js';
import { REFUSED_BODY_DRAIN_BYTES } from '../src/http/refused-body.js';
import { startTestServer, type TestServer } from './helpers.js';

const CHUNK = Buffer.alloc(64 * 1024, 'x');

/** A raw client: every byte answered, every socket error, and a way to wait for answers. */
function rawClient(port: number) {
  const socket: Socket = connect(port, '127.0.0.1');
  const state = { text: '', errors: [] as string[], closed: false };
  const waiters: Array<() => void> = [];
  const wake = () => {
    for (const waiter of waiters.splice(0)) waiter();
  };
  socket.on('data', (chunk) => {
    state.text += chunk.toString('latin1');
    wake();
  });
  socket.on('error', (error: NodeJS.ErrnoException) => {
    state.errors.push(error.code ?? error.message);
    wake();
  });
  socket.on('close', () => {
    state.closed = true;
    wake();
  });
  /** Resolves once `check` holds; rejects if the socket closes first. */
  const until = async (what: string, check: () => boolean) => {
    while (!check()) {
      if (state.closed)
        throw new Error(`closed before ${what}; errors ${state.errors}; got ${state.text.slice(0, 300)}`);
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  const write = (data: string | Buffer) =>
    new Promise<void>((resolve) => {
      if (socket.destroyed) return resolve();
      socket.write(data, () => resolve());
    });
  /** The statuses of the complete answers so far (each has a Content-Length). */
  const answers = () => {
    const statuses: number[] = [];
    let rest = state.text;
    for (;;) {
      const headEnd = rest.indexOf('\r\n\r\n');
      if (headEnd < 0) return statuses;
      const head = rest.slice(0, headEnd);
      const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (rest.length < headEnd + 4 + length) return statuses;
      statuses.push(Number(head.split(' ')[1]));
      rest = rest.slice(headEnd + 4 + length);
    }
  };
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return { socket, state, until, write, answers, connected };
}

const HEALTH = 'GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';

describe('a body over the limit', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.dispose();
  });

  it.each([
    ['/api/checkout', 'application/json', 'payload_too_large'],
    [`/refund/${'A'.repeat(43)}`, 'application/x-www-form-urlencoded', 'The form could not be read'],
  ])('with a Content-Length of 1 MiB to %s: the client sending it chunk by chunk gets the 413, no EPIPE or ECONNRESET, and the connection still answers', async (path, type, expected) => {
    const client = rawClient(server.port);
    await client.connected;
    const total = 16 * CHUNK.length;
    expect(total).toBeGreaterThan(BODY_LIMIT_BYTES);
    await client.write(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${type}\r\nContent-Length: ${total}\r\n\r\n`,
    );
    await client.write(CHUNK);
    await client.until('the 413', () => client.answers().length >= 1);
    // The client keeps sending what it declared after the answer came, as one that reads only
    // at the end would: the server must still be reading.
    for (let sent = 1; sent < 16; sent++) {
      await client.write(CHUNK);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await client.write(HEALTH);
    await client.until('the second answer', () => client.answers().length >= 2);
    expect(client.answers()).toEqual([413, 200]);
    expect(client.state.text).toContain(expected);
    expect(client.state.errors).toEqual([]);
    client.socket.destroy();
  });

  it('sent chunked, without a length: the 413 comes once the limit is passed, and the rest is read', async () => {
    const client = rawClient(server.port);
    await client.connected;
    await client.write(
      'POST /api/checkout HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
    );
    const chunk = Buffer.concat([
      Buffer.from(`${CHUNK.length.toString(16)}\r\n`),
      CHUNK,
      Buffer.from('\r\n'),
    ]);
    let sent = 0;
    while (client.answers().length === 0) {
      expect(sent, 'chunks sent before the 413').toBeLessThan(8);
      await client.write(chunk);
      sent++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    for (let more = 0; more < 8; more++) await client.write(chunk);
    await client.write('0\r\n\r\n');
    await client.write(HEALTH);
    await client.until('the second answer', () => client.answers().length >= 2);
    expect(client.answers()).toEqual([413, 200]);
    expect(client.state.errors).toEqual([]);
    client.socket.destroy();
  });

  it('past the drain bound: the server cuts the connection after its 413', async () => {
    const client = rawClient(server.port);
    await client.connected;
    await client.write(
      `POST /api/checkout HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${1024 ** 3}\r\n\r\n`,
    );
    await client.write(CHUNK);
    await client.until('the 413', () => client.answers().length >= 1);
    expect(client.answers()).toEqual([413]);
    // Kernel buffers hold a few MiB on either side, so the client gets far beyond the bound
    // before it notices; eight times the bound is more than enough, and without a bound the
    // connection would still be open after it.
    const ceiling = 8 * REFUSED_BODY_DRAIN_BYTES;
    let sent = 0;
    while (!client.state.closed && !client.socket.destroyed && sent < ceiling) {
      await client.write(CHUNK);
      sent += CHUNK.length;
    }
    expect(client.state.closed || client.socket.destroyed, `open after ${sent} bytes`).toBe(true);
  });
});
