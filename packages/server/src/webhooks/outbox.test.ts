import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import {
  blackHole,
  capturingLogger,
  database,
  enqueue,
  handClock,
  outboxOn,
  receiver,
  releaseFixtures,
  rows,
} from './outbox.test-helpers.js';

afterEach(releaseFixtures);

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
