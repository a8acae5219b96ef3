import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createServer as createTlsServer } from 'node:tls';
import { sql } from 'kysely';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig, type ServerOptions } from '../config.js';
import { type Database, openDatabase } from '../db/database.js';
import { type OutboxNetworkOptions, WebhookOutbox } from './outbox.js';

const cleanups: Array<() => Promise<void> | void> = [];
/** Cuts every connection test servers hold open, so stopping an outbox never waits on them. */
const hangUps: Array<() => void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  hangUps.length = 0;
});

/** A clock moved by hand, so leases and due times do not depend on how fast the machine is. */
function handClock() {
  let now = Date.parse('2026-11-01T10:00:00.000Z');
  return {
    now: () => new Date(now),
    advance(ms: number) {
      now += ms;
    },
  };
}

async function database(): Promise<Database> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cryptocheckout-outbox-'));
  const db = await openDatabase({ kind: 'sqlite', dataDir });
  cleanups.push(async () => {
    await db.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return db;
}

function outboxOn(
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

async function enqueue(db: Database, outbox: WebhookOutbox, url: string, code = 'tx') {
  await db
    .transaction()
    .execute((trx) => outbox.enqueue(trx, { transactionCode: code, url, body: `{"c":"${code}"}` }));
}

/** A pino logger whose lines the test can read. */
function capturingLogger() {
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
async function receiver(options: { host?: string; port?: number; hold?: boolean; status?: number } = {}) {
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
async function blackHole() {
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

async function rows(db: Database) {
  return db.selectFrom('webhook_outbox').selectAll().orderBy('created_at').orderBy('delivery_id').execute();
}

describe('webhook delivery pinning (live mode)', () => {
  it('connects to the address it vetted even when DNS answers differently the second time', async () => {
    const vetted = await receiver({ host: '127.0.0.1' });
    const rebound = await receiver({ host: '127.0.0.2', port: vetted.port });
    const answers = [['127.0.0.1'], ['127.0.0.2']];
    const lookups: string[] = [];
    const network: OutboxNetworkOptions = {
      // A rebinding DNS server: a vetted address first, a forbidden one for every later question.
      resolve: async (host) => {
        lookups.push(host);
        return answers[Math.min(lookups.length - 1, 1)]!;
      },
      // Stand-ins for "public" and "private", since a test can only listen on loopback.
      isForbiddenAddress: (address) => address === '127.0.0.2',
    };
    const db = await database();
    const outbox = outboxOn(db, () => new Date(), { mode: 'live' }, network);
    await enqueue(db, outbox, `http://hooks.rebind.test:${vetted.port}/hook?token=t1`);
    await outbox.kick();
    await outbox.idle();
    expect(rebound.received).toHaveLength(0);
    expect(vetted.received).toHaveLength(1);
    expect(vetted.received[0]).toMatchObject({
      url: '/hook?token=t1',
      headers: { host: `hooks.rebind.test:${vetted.port}` },
    });
    expect((await rows(db))[0]).toMatchObject({ state: 'delivered', attempts: 1 });
  });

  it('refuses the delivery when the only answer is forbidden', async () => {
    const target = await receiver({ host: '127.0.0.2' });
    const db = await database();
    const outbox = outboxOn(
      db,
      () => new Date(),
      { mode: 'live' },
      { resolve: async () => ['127.0.0.2'], isForbiddenAddress: (address) => address === '127.0.0.2' },
    );
    await enqueue(db, outbox, `http://hooks.rebind.test:${target.port}/hook`);
    await outbox.kick();
    await outbox.idle();
    expect(target.received).toHaveLength(0);
    const attempts = await db.selectFrom('webhook_attempts').selectAll().execute();
    expect(attempts[0]!.error).toMatch(/resolves to 127\.0\.0\.2/);
  });

  it('sends the URL host name as TLS server name while connecting to the vetted address', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'cryptocheckout-tls-'));
    cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=other.test',
        '-keyout',
        join(directory, 'key.pem'),
        '-out',
        join(directory, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const names: Array<string | false> = [];
    const tls = createTlsServer({
      key: readFileSync(join(directory, 'key.pem')),
      cert: readFileSync(join(directory, 'cert.pem')),
      SNICallback: (name, callback) => {
        names.push(name);
        callback(null);
      },
    });
    tls.on('tlsClientError', () => {});
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => tls.close(() => resolve())));
    const db = await database();
    const outbox = outboxOn(db, () => new Date(), {}, { resolve: async () => ['127.0.0.1'] });
    await enqueue(db, outbox, `https://hooks.example.test:${(tls.address() as AddressInfo).port}/hook`);
    await outbox.kick();
    await outbox.idle();
    expect(names).toEqual(['hooks.example.test']);
    // The self-signed certificate for another name is refused: the name checked is the URL's.
    const attempts = await db.selectFrom('webhook_attempts').selectAll().execute();
    expect(attempts[0]).toMatchObject({ http_status: null });
    expect(attempts[0]!.error).toBeTruthy();
  });

  it('keeps loopback targets working in sandbox mode, trying each address of a name', async () => {
    const target = await receiver({ host: '127.0.0.1' });
    const db = await database();
    // ::1 first, where nothing listens: the next address is tried.
    const outbox = outboxOn(db, () => new Date(), {}, { resolve: async () => ['::1', '127.0.0.1'] });
    await enqueue(db, outbox, `http://localhost:${target.port}/hook`);
    await outbox.kick();
    await outbox.idle();
    expect(target.received).toHaveLength(1);
    expect((await rows(db))[0]).toMatchObject({ state: 'delivered' });
  });
});

describe('redirects', () => {
  it('counts a 3xx as a failed delivery and does not follow it', async () => {
    const target = await receiver({ status: 302 });
    const db = await database();
    const outbox = outboxOn(db, () => new Date());
    await enqueue(db, outbox, `http://127.0.0.1:${target.port}/hook`);
    await outbox.kick();
    await outbox.idle();
    expect(target.received.map((webhook) => webhook.url)).toEqual(['/hook']);
    expect((await rows(db))[0]).toMatchObject({ state: 'failed' });
    const attempts = await db.selectFrom('webhook_attempts').selectAll().execute();
    expect(attempts[0]).toMatchObject({ http_status: 302, error: 'HTTP 302' });
  });
});

describe('fair, bounded concurrent delivery', () => {
  it('delivers to a healthy receiver while a black-holed one holds its deliveries', async () => {
    const dead = await blackHole();
    const healthy = await receiver();
    const clock = handClock();
    const db = await database();
    // A timeout far beyond the test, so "before the timeouts" cannot be a race.
    const outbox = outboxOn(db, clock.now, { webhooks: { timeoutMs: 600_000 } });
    for (let index = 0; index < 100; index += 1) await enqueue(db, outbox, dead.url, `dead-${index}`);
    clock.advance(1000);
    // More healthy rows than one batch or one pool holds: they must flow through freed slots.
    for (let index = 0; index < 60; index += 1)
      await enqueue(db, outbox, `http://127.0.0.1:${healthy.port}/ok`, `ok-${index}`);
    clock.advance(1000);
    void outbox.kick();
    await healthy.waitFor(60);
    let states = await rows(db);
    // The last answers may still be on their way into the database.
    while (states.filter((row) => row.state === 'delivered').length < 60) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      states = await rows(db);
    }
    expect(
      states.filter((row) => row.transaction_code.startsWith('ok-') && row.state === 'delivered'),
    ).toHaveLength(60);
    // The dead endpoint holds its per-origin share of the pool, no more, and none timed out yet.
    const deadRows = states.filter((row) => row.transaction_code.startsWith('dead-'));
    expect(deadRows.filter((row) => row.attempts === 1)).toHaveLength(4);
    expect(dead.connections()).toBeLessThanOrEqual(4);
    expect(
      states.filter((row) => row.transaction_code.startsWith('dead-') && row.state !== 'pending'),
    ).toHaveLength(0);
    const stopping = outbox.stop();
    dead.destroyAll();
    await stopping;
  });
});

describe('claims and crashes', () => {
  it('records the attempt before sending, and a second node resends only after the lease ran out', async () => {
    const target = await receiver({ hold: true });
    const clock = handClock();
    const db = await database();
    const options = { webhooks: { timeoutMs: 60_000 } };
    const first = outboxOn(db, clock.now, options);
    await enqueue(db, first, `http://127.0.0.1:${target.port}/hook`);
    await first.kick();
    await target.waitFor(1);
    const claimedAt = clock.now().getTime();
    expect((await rows(db))[0]).toMatchObject({
      state: 'pending',
      attempts: 1,
      locked_until: new Date(claimedAt + 62_000).toISOString(),
    });

    // The first node "dies" mid-send; a second node (or the restarted one) looks at the outbox.
    const second = outboxOn(db, clock.now, options);
    clock.advance(61_000);
    await second.kick();
    expect((await rows(db))[0]).toMatchObject({ attempts: 1 });
    expect(target.received).toHaveLength(1);

    clock.advance(1_001);
    await second.kick();
    await target.waitFor(2);
    expect((await rows(db))[0]).toMatchObject({ attempts: 2 });
    const history = await db.selectFrom('webhook_attempts').selectAll().orderBy('attempt_number').execute();
    expect(history).toEqual([
      expect.objectContaining({ attempt_number: 1, error: expect.stringMatching(/^interrupted/) }),
    ]);
    target.closeConnections();
  });
});

describe('a failing row never stops the outbox', () => {
  it('settles a row whose recording fails, delivers an unparsable URL as failed, and sends the rest', async () => {
    const target = await receiver();
    const db = await database();
    const { lines, logger } = capturingLogger();
    const outbox = outboxOn(db, () => new Date(), {}, {}, logger);
    const url = `http://127.0.0.1:${target.port}/hook`;
    await enqueue(db, outbox, url, 'poisoned');
    await enqueue(db, outbox, 'http://exa mple.com/hook', 'unparsable');
    await enqueue(db, outbox, url, 'healthy-1');
    // A database that refuses to record attempts of one row, and only of that row.
    await sql`CREATE TRIGGER poison BEFORE INSERT ON webhook_attempts
      WHEN NEW.delivery_id = (SELECT delivery_id FROM webhook_outbox WHERE transaction_code = 'poisoned')
      BEGIN SELECT RAISE(ABORT, 'poisoned row'); END`.execute(db);
    await outbox.kick();
    await outbox.idle();
    await enqueue(db, outbox, url, 'healthy-2');
    await outbox.kick();
    await outbox.idle();
    const byCode = Object.fromEntries((await rows(db)).map((row) => [row.transaction_code, row]));
    expect(byCode.poisoned).toMatchObject({ state: 'delivered', attempts: 1, locked_until: null });
    expect(byCode.unparsable).toMatchObject({ state: 'failed' });
    expect(byCode['healthy-1']).toMatchObject({ state: 'delivered' });
    expect(byCode['healthy-2']).toMatchObject({ state: 'delivered' });
    expect(target.received.map((webhook) => webhook.body).sort()).toEqual([
      '{"c":"healthy-1"}',
      '{"c":"healthy-2"}',
      '{"c":"poisoned"}',
    ]);
    expect(lines.join('')).toMatch(/could not be recorded/);
  });
});

describe('outbox logs', () => {
  it('log the origin and path of a target, never its query string', async () => {
    const target = await receiver();
    const db = await database();
    const { lines, logger } = capturingLogger();
    const outbox = outboxOn(db, () => new Date(), {}, {}, logger);
    await enqueue(db, outbox, `http://127.0.0.1:${target.port}/hook?token=s3cr3t-token`);
    await outbox.kick();
    await outbox.idle();
    const log = lines.join('');
    expect(log).toContain(`http://127.0.0.1:${target.port}/hook`);
    expect(log).not.toContain('s3cr3t-token');
  });
});
