// Connections that misbehave or come at a bad time: slow clients, too many clients, a closing server.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutBody, eventually, startTestServer, type TestServer } from './helpers.js';
import { parseRaw, rawExchange } from './raw-http.js';

describe('slow clients', () => {
  let strict: TestServer;
  beforeAll(async () => {
    strict = await startTestServer({ requestTimeoutMs: 500 });
  });
  afterAll(() => strict.dispose());

  /** The last HTTP answer in a raw exchange. */
  const lastAnswer = (text: string) => parseRaw(text.slice(text.lastIndexOf('HTTP/1.1 ')));

  it('a body trickled one byte at a time is cut off with a 408 envelope', async () => {
    const body = JSON.stringify(checkoutBody());
    const head = `POST /api/checkout HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const { text, closed } = await rawExchange(strict.port, [head, ...body.slice(0, 60)], {
      intervalMs: 100,
      holdOpen: true,
    });
    expect(closed).toBe(true);
    const response = parseRaw(text);
    expect(response.status).toBe(408);
    expect(response.headers.connection).toBe('close');
    expect(response.json.error.code).toBe('request_timeout');
  });

  it('headers trickled one line at a time, or none at all, get the same 408', async () => {
    const lines = ['GET /api/health HTTP/1.1\r\n', ...Array.from({ length: 40 }, (_, i) => `X-${i}: 1\r\n`)];
    const trickled = await rawExchange(strict.port, lines, { intervalMs: 100, holdOpen: true });
    expect(parseRaw(trickled.text).json.error.code).toBe('request_timeout');
    const silent = await rawExchange(strict.port, [], { holdOpen: true });
    expect(parseRaw(silent.text).json.error.code).toBe('request_timeout');
  });

  it('a second request trickled on a kept-alive connection gets the 408 too', async () => {
    const lines = [
      'GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n',
      ...Array.from({ length: 40 }, (_, i) => (i === 0 ? 'GET /api/health HTTP/1.1\r\n' : `X-${i}: 1\r\n`)),
    ];
    const { text } = await rawExchange(strict.port, lines, { intervalMs: 100, holdOpen: true });
    expect(parseRaw(text).status).toBe(200);
    const last = lastAnswer(text);
    expect(last.status).toBe(408);
    expect(last.json.error.code).toBe('request_timeout');
  });
});

describe('too many clients', () => {
  let capped: TestServer;
  beforeAll(async () => {
    capped = await startTestServer({ maxConnections: 2 });
  });
  afterAll(() => capped.dispose());

  it('connections beyond the cap are closed at once, and the server still answers afterwards', async () => {
    const idle = await Promise.all(
      [0, 1].map(
        () =>
          new Promise<ReturnType<typeof connect>>((resolve) => {
            const socket = connect(capped.port, '127.0.0.1', () => resolve(socket));
            socket.on('error', () => {});
          }),
      ),
    );
    const third = await rawExchange(capped.port, ['GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n'], {
      holdOpen: true,
    });
    expect(third.text).toBe('');
    for (const socket of idle) socket.destroy();
    await eventually(async () => expect((await capped.get('/api/health')).status).toBe(200));
  });
});

describe('shutting down', () => {
  it('a request arriving while the server closes gets a 503 envelope, not a bare Fastify body', async () => {
    const closingServer = await startTestServer();
    try {
      const body = JSON.stringify({ transaction_code: 'x' });
      const head = `POST /api/sandbox/pay HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
      const socket = connect(closingServer.port, '127.0.0.1');
      socket.on('error', () => {});
      const received: Buffer[] = [];
      socket.on('data', (chunk) => received.push(chunk));
      const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
      // The first request is under way (headers in, body pending) when the server starts closing…
      socket.write(head + body.slice(0, 5));
      await new Promise((resolve) => setTimeout(resolve, 100));
      const closed = closingServer.close();
      await new Promise((resolve) => setTimeout(resolve, 100));
      // …and a second one follows on the same connection.
      socket.write(`${body.slice(5)}GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n`);
      await ended;
      await closed;
      const text = Buffer.concat(received).toString('latin1');
      // Under load the first request may itself arrive late and get the 503; the last answer is it.
      const last = parseRaw(text.slice(text.lastIndexOf('HTTP/1.1 ')));
      expect(last.status).toBe(503);
      expect(last.json).toMatchObject({ status: 'error', error: { code: 'unavailable' } });
    } finally {
      await closingServer.dispose();
    }
  });
});
