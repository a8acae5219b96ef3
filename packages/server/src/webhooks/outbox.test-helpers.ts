// Fixtures for the outbox's tests: a database, outboxes on it, receivers and a black hole, all
// released by `releaseFixtures` (call it in afterEach).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { resolveConfig, type ServerOptions } from '../config.js';
import { type Database, openDatabase } from '../db/database.js';
import { type OutboxNetworkOptions, WebhookOutbox } from './outbox.js';

const cleanups: Array<() => Promise<void> | void> = [];
/** Cuts every connection test servers hold open, so stopping an outbox never waits on them. */
const hangUps: Array<() => void> = [];

/** Stops the outboxes and closes the servers and databases the fixtures made, newest first. */
export async function releaseFixtures(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  hangUps.length = 0;
}

/** Runs `cleanup` in the next `releaseFixtures`. */
export function onRelease(cleanup: () => Promise<void> | void): void {
  cleanups.push(cleanup);
}

/** A clock moved by hand, so leases and due times do not depend on how fast the machine is. */
export function handClock() {
  let now = Date.parse('2026-11-01T10:00:00.000Z');
  return {
    now: () => new Date(now),
    advance(ms: number) {
      now += ms;
    },
  };
}

/** A migrated SQLite database in its own temporary directory. */
export async function database(): Promise<Database> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cryptocheckout-outbox-'));
  const db = await openDatabase({ kind: 'sqlite', dataDir });
  cleanups.push(async () => {
    await db.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return db;
}

export function outboxOn(
  db: Database,
  clock: () => Date,
  options: ServerOptions = {},
  network: OutboxNetworkOptions = {},
  logger = pino({ level: 'silent' }),
) {
  const outbox = new WebhookOutbox(
    db,
    resolveConfig({ dataDir: '/unused', ...options }),
    clock,
    logger,
    network,
  );
  cleanups.push(async () => {
    const stopping = outbox.stop();
    for (const hangUp of hangUps) hangUp();
    await stopping;
  });
  return outbox;
}

export async function enqueue(db: Database, outbox: WebhookOutbox, url: string, code = 'tx') {
  await db
    .transaction()
    .execute((trx) => outbox.enqueue(trx, { transactionCode: code, url, body: `{"c":"${code}"}` }));
}

/** A pino logger whose lines the test can read. */
export function capturingLogger() {
  const lines: string[] = [];
  const logger = pino(
    { level: 'info' },
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    }),
  );
  return { lines, logger };
}

/** An HTTP receiver on a chosen loopback address; `hold` keeps requests unanswered. */
export async function receiver(
  options: { host?: string; port?: number; hold?: boolean; status?: number } = {},
) {
  const received: Array<{ url: string; headers: IncomingHttpHeaders; body: string }> = [];
  const waiters: Array<() => void> = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push({ url: request.url ?? '', headers: request.headers, body });
      for (const wake of waiters.splice(0)) wake();
      if (!options.hold)
        response
          .writeHead(options.status ?? 200, { location: `http://127.0.0.1:${port}/elsewhere` })
          .end('ok');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  hangUps.push(() => server.closeAllConnections());
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    received,
    closeConnections: () => server.closeAllConnections(),
    async waitFor(count: number) {
      while (received.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
      return received;
    },
  };
}

/** Accepts TCP connections and never answers, like a black-holed endpoint. */
export async function blackHole() {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createTcpServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const destroyAll = () => {
    for (const socket of sockets) socket.destroy();
  };
  hangUps.push(destroyAll);
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        destroyAll();
        server.close(() => resolve());
      }),
  );
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/dead`,
    open: () => sockets.size,
    connections: () => connections,
    destroyAll,
  };
}

/** Every outbox row, oldest first. */
export async function rows(db: Database) {
  return db.selectFrom('webhook_outbox').selectAll().orderBy('created_at').orderBy('delivery_id').execute();
}
