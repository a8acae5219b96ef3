// One delivery attempt (vet and pin the target, post, classify the answer, log), driven through the outbox.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import type { OutboxNetworkOptions } from './outbox.js';
import {
  capturingLogger,
  database,
  enqueue,
  onRelease,
  outboxOn,
  receiver,
  releaseFixtures,
  rows,
} from './outbox.test-helpers.js';

afterEach(releaseFixtures);

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
    onRelease(() => rmSync(directory, { recursive: true, force: true }));
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
    onRelease(() => new Promise<void>((resolve) => tls.close(() => resolve())));
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
