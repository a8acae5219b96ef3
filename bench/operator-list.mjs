#!/usr/bin/env node
// Operator dashboard benchmark: the transactions list at 100,000 rows (BENCH_ROWS). Fills a fresh
// SQLite database through the server's own schema, then times, over real HTTP on loopback:
//   first page, a page 400 pages deep (keyset paging: it should cost what the first one does),
//   a status filter, a date range, a reference search, one transaction's detail, 30 days of figures,
//   and the whole list as CSV (rows/s).
// Prints the median and p95 of each and the deep-to-first page ratio.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startServer } from '../packages/server/dist/index.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 40);
const TOKEN = 'bench-operator-token-0123456789';
const STATUSES = ['pending', 'processing', 'underpaid', 'settled', 'expired'];

const dataDir = mkdtempSync(join(tmpdir(), 'cc-bench-operator-'));
try {
  // A first start creates the schema; the rows then go in directly, in one transaction.
  await (await startServer({ port: 0, dataDir, logLevel: 'warn', operatorToken: TOKEN })).close();
  process.stdout.write(`Writing ${ROWS} transactions… `);
  const started = Date.now();
  const file = new Database(join(dataDir, 'cryptocheckout.sqlite'));
  const insert = file.prepare(
    `INSERT INTO transactions (transaction_code, status, external_reference, fiat_amount, fiat_currency, usd_rate, rate_source, amount_in_usd, received_usd, webhook_url, success_url, cancel_url, wallet_address, wallet_currency, wallet_network, payout_dispatched, payment_method, late, created_at, expires_at, monitor_until, settled_at, version)
     VALUES (?, ?, ?, '49.90', 'EUR', '1.0841', 'bench', '54.10', '0', NULL, NULL, NULL, '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', 'USDC', 'POLYGON', 0, NULL, 0, ?, ?, ?, ?, 0)`,
  );
  const now = Date.now();
  const references = [];
  file.transaction(() => {
    for (let index = 0; index < ROWS; index++) {
      // Spread over the last 90 days, newest last.
      const created = new Date(now - Math.floor(((ROWS - index) / ROWS) * 90 * 86_400_000)).toISOString();
      const status = STATUSES[index % STATUSES.length];
      const reference = `order-${index}`;
      if (index % 10_000 === 0) references.push(reference);
      // Expiring far ahead, so the server's sweep leaves the rows alone while they are timed.
      const expires = '2099-01-01T00:00:00.000Z';
      insert.run(
        randomUUID(),
        status,
        reference,
        created,
        expires,
        expires,
        status === 'settled' ? created : null,
      );
    }
  })();
  file.close();
  console.log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const server = await startServer({ port: 0, dataDir, logLevel: 'warn', operatorToken: TOKEN });
  const get = async (path) => {
    const begin = process.hrtime.bigint();
    const response = await fetch(`${server.url}/api/operator${path}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const body = await response.text();
    const ms = Number(process.hrtime.bigint() - begin) / 1e6;
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${body}`);
    return { ms, body };
  };
  const timed = async (label, path) => {
    for (let warm = 0; warm < 3; warm++) await get(path);
    const times = [];
    for (let sample = 0; sample < SAMPLES; sample++) times.push((await get(path)).ms);
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)];
    const p95 = times[Math.floor(times.length * 0.95)];
    console.log(
      `  ${label.padEnd(34)} median ${median.toFixed(2).padStart(7)} ms   p95 ${p95.toFixed(2).padStart(7)} ms`,
    );
    return median;
  };

  console.log(`\nOperator API over ${ROWS} transactions (${SAMPLES} requests each, loopback HTTP):`);
  const first = await timed('first page (50 rows)', '/transactions');
  // Walk 400 pages down by following the cursors, as a person paging would.
  let cursor = null;
  process.stdout.write('  (following 400 cursors…)\n');
  for (let page = 0; page < 400; page++) {
    const { body } = await get(`/transactions${cursor ? `?cursor=${cursor}` : ''}`);
    cursor = JSON.parse(body).data.next_cursor;
  }
  const deep = await timed('page 401 (rows 20,001–20,050)', `/transactions?cursor=${cursor}`);
  await timed('status = settled, first page', '/transactions?status=settled');
  const today = new Date(now).toISOString().slice(0, 10);
  const monthAgo = new Date(now - 30 * 86_400_000).toISOString().slice(0, 10);
  await timed('last 30 days, first page', `/transactions?from=${monthAgo}&to=${today}`);
  await timed('search by exact reference', `/transactions?q=${references[3]}`);
  const code = JSON.parse((await get('/transactions?limit=1')).body).data.items[0].transaction_code;
  await timed('one transaction (detail)', `/transactions/${code}`);
  await timed('30 days of figures (chart)', '/stats?days=30');

  const csv = await get('/transactions.csv');
  const lines = csv.body.split('\r\n').length - 2;
  console.log(
    `  ${'CSV of every row'.padEnd(34)} ${lines} rows in ${(csv.ms / 1000).toFixed(2)} s = ${Math.round(lines / (csv.ms / 1000))} rows/s`,
  );
  console.log(`\nDeep page / first page: ${(deep / first).toFixed(2)} (keyset paging: about 1 at any depth)`);
  await server.close();
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
