import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Transaction } from '@cryptocheckout/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutBody } from './helpers.js';
import { findPostgresBin, startPostgresCluster } from './postgres-cluster.js';
import { type ServerProcess, startServerProcess } from './server-process.js';

const TRANSACTIONS = 20;
const PAYMENTS_PER_TRANSACTION = 24;

const postgresBin = findPostgresBin();
if (!postgresBin && process.env.CI)
  throw new Error('CI must test PostgreSQL: install the postgresql package (.ci/run does).');

/** What the API answered: the envelope's data on success, its error otherwise. */
interface Answer {
  status: number;
  json: { data: Transaction & { transaction_code: string }; error: { code: string; message: string } };
}

async function call(apiBase: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${apiBase}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Answer['json'] };
}

/**
 * 20 transactions, each paid 24 times at once through two server processes that share one
 * database. Returns what each transaction's payments were answered and how it ended.
 */
async function payConcurrently(nodes: ServerProcess[], payment: Record<string, unknown>) {
  const results = [];
  for (let index = 0; index < TRANSACTIONS; index++) {
    const created = await call(
      nodes[0]!.apiBase,
      'POST',
      '/checkout',
      checkoutBody({ external_reference: `order-${index}` }),
    );
    expect(created.status).toBe(201);
    const code = created.json.data.transaction_code;
    const answers = await Promise.all(
      Array.from({ length: PAYMENTS_PER_TRANSACTION }, (_, attempt) =>
        call(nodes[attempt % nodes.length]!.apiBase, 'POST', '/sandbox/pay', {
          transaction_code: code,
          payment_method: 'usdc_polygon',
          ...payment,
        }),
      ),
    );
    const transaction = (await call(nodes[1]!.apiBase, 'GET', `/transaction?transaction_code=${code}`)).json
      .data;
    results.push({ answers, transaction });
  }
  return results;
}

function summarise(results: Awaited<ReturnType<typeof payConcurrently>>) {
  const statuses: Record<number, number> = {};
  for (const { answers } of results)
    for (const { status } of answers) statuses[status] = (statuses[status] ?? 0) + 1;
  return statuses;
}

function expectOnePaymentEach(results: Awaited<ReturnType<typeof payConcurrently>>) {
  for (const { answers, transaction } of results) {
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    for (const refused of answers.filter((answer) => answer.status !== 200)) {
      expect(refused.status).toBe(409);
      expect(refused.json.error.code).toBe('conflict');
    }
    expect(transaction.payments).toHaveLength(1);
    expect(transaction.status).toBe('settled');
    expect(transaction.received_usd).toBe(transaction.amount_in_usd);
    for (const payment of transaction.payments) expect(payment.seen_at <= transaction.settled_at!).toBe(true);
  }
}

function suite(name: string, nodeArgs: () => string[][]) {
  describe(`${name}: two server processes, ${TRANSACTIONS} transactions × ${PAYMENTS_PER_TRANSACTION} payments at once`, () => {
    let nodes: ServerProcess[] = [];
    beforeAll(async () => {
      const [first, second] = nodeArgs();
      // The first node creates the schema before the second opens the database.
      nodes.push(await startServerProcess(first!));
      nodes.push(await startServerProcess(second!));
    });
    afterAll(async () => {
      await Promise.all(nodes.map((node) => node.stop()));
      nodes = [];
    });

    it('takes exactly one full payment per transaction; the rest are refused as covered or settled', async () => {
      const results = await payConcurrently(nodes, { size: 'full' });
      console.log(`${name}, size full: answers by HTTP status`, summarise(results));
      expectOnePaymentEach(results);
    });

    it('takes no payment of an exact amount once one has settled the transaction', async () => {
      const results = await payConcurrently(nodes, { amount_usd: '27.11' });
      console.log(`${name}, amount_usd: answers by HTTP status`, summarise(results));
      expectOnePaymentEach(results);
    });
  });
}

describe.skipIf(!postgresBin)('PostgreSQL', () => {
  let cluster: Awaited<ReturnType<typeof startPostgresCluster>>;
  beforeAll(async () => {
    cluster = await startPostgresCluster(postgresBin!);
  });
  afterAll(() => cluster?.stop());
  suite('PostgreSQL', () => [
    ['--database-url', cluster.connectionString],
    ['--database-url', cluster.connectionString],
  ]);
});

describe('SQLite', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cryptocheckout-two-processes-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  suite('SQLite (one file)', () => [
    ['--data-dir', dataDir],
    ['--data-dir', dataDir],
  ]);
});
