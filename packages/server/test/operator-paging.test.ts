import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OperatorRepository } from '../src/db/operator-repository.js';
import type { DatabaseSchema } from '../src/db/schema.js';
import { startTestServer, type TestServer } from './helpers.js';
import {
  type GeneratedTransaction,
  insertGeneratedTransactions,
  newestFirst,
  OPERATOR_TOKEN,
  operatorRequest,
  readAllPages,
} from './operator-helpers.js';

const ROWS = 10_000;

describe(`the operator's transactions list over ${ROWS} rows`, () => {
  let server: TestServer;
  let rows: GeneratedTransaction[];
  beforeAll(async () => {
    server = await startTestServer({ operatorToken: OPERATOR_TOKEN });
    rows = insertGeneratedTransactions(server, ROWS);
  });
  afterAll(() => server?.dispose());

  it('pages through every row once, newest first with ties broken by code, at any page size', async () => {
    const expected = newestFirst(rows).map((row) => row.transaction_code);
    for (const limit of [200, 137]) {
      const { codes, pages } = await readAllPages(server, '/transactions', limit);
      expect(pages).toBe(Math.ceil(ROWS / limit));
      expect(codes).toEqual(expected);
    }
  });

  it('pages a status filter and a date range exactly like the same filter over all rows', async () => {
    const settled = newestFirst(rows.filter((row) => row.status === 'settled'));
    expect((await readAllPages(server, '/transactions?status=settled', 150)).codes).toEqual(
      settled.map((row) => row.transaction_code),
    );
    const inRange = newestFirst(
      rows.filter((row) => row.created_at >= '2026-10-05' && row.created_at < '2026-10-11'),
    );
    expect(inRange.length).toBeGreaterThan(0);
    expect((await readAllPages(server, '/transactions?from=2026-10-05&to=2026-10-10', 99)).codes).toEqual(
      inRange.map((row) => row.transaction_code),
    );
    const both = inRange.filter((row) => row.status === 'expired');
    expect(
      (await readAllPages(server, '/transactions?status=expired&from=2026-10-05&to=2026-10-10', 40)).codes,
    ).toEqual(both.map((row) => row.transaction_code));
  });

  it('finds by exact reference and by code (any letter case)', async () => {
    const reference = rows[1234]!.external_reference;
    const byReference = newestFirst(rows.filter((row) => row.external_reference === reference));
    expect(byReference.length).toBeGreaterThan(5);
    expect((await readAllPages(server, `/transactions?q=${reference}`, 4)).codes).toEqual(
      byReference.map((row) => row.transaction_code),
    );
    const code = rows[42]!.transaction_code;
    const byCode = await operatorRequest(server, `/transactions?q=${code.toUpperCase()}`);
    expect(byCode.json.data.items.map((item: { transaction_code: string }) => item.transaction_code)).toEqual(
      [code],
    );
    const nothing = await operatorRequest(server, '/transactions?q=order-999999');
    expect(nothing.json.data).toEqual({ items: [], next_cursor: null });
  });

  it('reads each page through an index, never by sorting the whole table', async () => {
    const file = new Database(join(server.dataDir, 'cryptocheckout.sqlite'));
    const queries: Array<{ sql: string; parameters: readonly unknown[] }> = [];
    const db = new Kysely<DatabaseSchema>({
      dialect: new SqliteDialect({ database: file }),
      log: (event) => {
        if (event.level === 'query') queries.push(event.query);
      },
    });
    try {
      const repository = new OperatorRepository(db);
      const after = { createdAt: '2026-10-20T00:00:00.000Z', transactionCode: 'f' };
      await repository.transactions({}, after, 51);
      await repository.transactions({ status: 'settled' }, after, 51);
      await repository.transactions({ search: 'order-5' }, after, 51);
      const plans = queries.map(({ sql, parameters }) =>
        file
          .prepare(`EXPLAIN QUERY PLAN ${sql}`)
          .all(...parameters)
          .map((step) => (step as { detail: string }).detail)
          .join(' | '),
      );
      expect(plans).toHaveLength(3);
      expect(plans[0]).toMatch(/SEARCH transactions USING INDEX transactions_created/);
      expect(plans[1]).toMatch(/SEARCH transactions USING INDEX transactions_status_created/);
      // A search finds its few rows by the code's and the reference's indexes, then sorts only them.
      expect(plans[2]).toMatch(/SEARCH transactions USING INDEX transactions_reference/);
      for (const plan of plans.slice(0, 2)) expect(plan).not.toMatch(/TEMP B-TREE FOR ORDER BY/);
      for (const plan of plans) {
        expect(plan).toMatch(/SEARCH webhook_outbox USING INDEX webhook_outbox_by_transaction/);
      }
    } finally {
      await db.destroy();
    }
  });

  it('refuses bad filters with the field and the fix', async () => {
    const cases: Array<[string, string, RegExp]> = [
      ['/transactions?status=paid', 'status', /status must be one of "pending"/],
      ['/transactions?from=2026-13-01', 'from', /from must be a real calendar date/],
      ['/transactions?from=yesterday', 'from', /from must be a date like 2026-01-31/],
      ['/transactions?from=2026-10-10&to=2026-10-01', 'to', /is before from/],
      ['/transactions?limit=500', 'limit', /limit must be a whole number from 1 to 200/],
      [
        '/transactions?cursor=bm90LWEtY3Vyc29y',
        'cursor',
        /pass next_cursor from the previous page unchanged/,
      ],
    ];
    for (const [path, field, message] of cases) {
      const answer = await operatorRequest(server, path);
      expect(answer.status, path).toBe(400);
      expect(answer.json.error, path).toMatchObject({ code: 'invalid_request', field });
      expect(answer.json.error.message, path).toMatch(message);
    }
  });
});

describe('unmatched chain transfers', () => {
  it('lists only transfers no checkout took, newest first, page by page', async () => {
    const server = await startTestServer({ operatorToken: OPERATOR_TOKEN });
    try {
      const database = new Database(join(server.dataDir, 'cryptocheckout.sqlite'));
      const insert = database.prepare(
        `INSERT INTO chain_transfers (network, tx_hash, log_index, block_number, block_hash, block_time, token_contract, asset, from_address, to_address, amount, transaction_code, payment_id, unmatched_reason, confirmed, recorded_at)
         VALUES ('POLYGON', ?, ?, 100, '0xblock', '2026-11-01T00:00:00.000Z', '0xtoken', 'USDC', '0xfrom', '0xto', '1.5', ?, NULL, ?, 1, ?)`,
      );
      const unmatched: string[] = [];
      for (let index = 0; index < 23; index++) {
        const hash = `0x${index.toString(16).padStart(64, '0')}`;
        const matched = index % 4 === 0;
        // Several transfers share one recorded time: the order breaks ties by hash and log index.
        const recordedAt = `2026-11-01T00:00:${String(Math.floor(index / 3)).padStart(2, '0')}.000Z`;
        insert.run(
          hash,
          index % 2,
          matched ? crypto.randomUUID() : null,
          matched ? null : 'no open checkout',
          recordedAt,
        );
        if (!matched) unmatched.push(hash);
      }
      database.close();
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: Awaited<ReturnType<typeof operatorRequest>> = await operatorRequest(
          server,
          `/unmatched?limit=5${cursor ? `&cursor=${cursor}` : ''}`,
        );
        expect(page.status).toBe(200);
        seen.push(...page.json.data.items.map((item: { tx_hash: string }) => item.tx_hash));
        expect(
          page.json.data.items.every((item: { unmatched_reason: string }) => item.unmatched_reason),
        ).toBe(true);
        cursor = page.json.data.next_cursor;
      } while (cursor);
      expect(seen).toEqual([...unmatched].reverse());
    } finally {
      await server.dispose();
    }
  });
});
