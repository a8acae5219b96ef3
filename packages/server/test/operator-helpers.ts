import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { TestServer } from './helpers.js';

/** A fixed operator token for tests (the server generates one when none is given). */
export const OPERATOR_TOKEN = 'test-operator-token-0123456789abcdef';

/** Calls the operator API of `server` with a bearer token (the right one unless told otherwise). */
export async function operatorRequest(
  server: { url: string },
  path: string,
  options: { method?: string; token?: string | null; body?: unknown } = {},
): Promise<{ status: number; json: any; text: string; headers: Headers }> {
  const token = options.token === undefined ? OPERATOR_TOKEN : options.token;
  const response = await fetch(`${server.url}/api/operator${path}`, {
    method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
    headers: {
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text, headers: response.headers };
}

/** A transaction row as the list needs it, for rows written straight into the database. */
export interface GeneratedTransaction {
  transaction_code: string;
  status: string;
  external_reference: string;
  created_at: string;
}

const STATUSES = ['pending', 'processing', 'underpaid', 'settled', 'expired'];

/**
 * Writes `count` transactions straight into a test server's SQLite file, in one database
 * transaction: creation times fall on a few hundred distinct instants (so many rows share one and
 * the order must break ties by code), statuses and references repeat.
 */
export function insertGeneratedTransactions(server: TestServer, count: number): GeneratedTransaction[] {
  const database = new Database(join(server.dataDir, 'cryptocheckout.sqlite'));
  database.pragma('busy_timeout = 5000');
  const insert = database.prepare(
    `INSERT INTO transactions (transaction_code, status, external_reference, fiat_amount, fiat_currency, usd_rate, rate_source, amount_in_usd, received_usd, webhook_url, success_url, cancel_url, wallet_address, wallet_currency, wallet_network, payout_dispatched, payment_method, late, created_at, expires_at, monitor_until, settled_at, version)
     VALUES (@transaction_code, @status, @external_reference, '10.00', 'EUR', '1.08', 'test', '10.80', '0', NULL, NULL, NULL, '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', 'USDC', 'POLYGON', 0, NULL, 0, @created_at, @expires_at, @expires_at, NULL, 0)`,
  );
  const rows: GeneratedTransaction[] = [];
  const base = Date.parse('2026-10-01T00:00:00.000Z');
  database.transaction(() => {
    for (let index = 0; index < count; index++) {
      const row = {
        transaction_code: randomUUID(),
        status: STATUSES[(index * 7) % STATUSES.length]!,
        external_reference: `order-${index % 997}`,
        // 300 distinct instants over 30 days.
        created_at: new Date(base + ((index * 7919) % 300) * 8_640_000).toISOString(),
      };
      // Expiring far ahead: the server's sweep must not change the rows while the test reads them.
      insert.run({ ...row, expires_at: '2099-01-01T00:00:00.000Z' });
      rows.push(row);
    }
  })();
  database.close();
  return rows;
}

/** Newest first, ties by code descending: the order the operator list promises. */
export function newestFirst(rows: GeneratedTransaction[]): GeneratedTransaction[] {
  return [...rows].sort((a, b) =>
    a.created_at === b.created_at
      ? compareText(b.transaction_code, a.transaction_code)
      : compareText(b.created_at, a.created_at),
  );
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Every page of a list, following `next_cursor`; fails on an error answer. */
export async function readAllPages(
  server: { url: string },
  path: string,
  limit: number,
): Promise<{ codes: string[]; pages: number }> {
  const codes: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const url: string = `${path}${separator}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`;
    const page = await operatorRequest(server, url);
    if (page.status !== 200) throw new Error(`${url} answered ${page.status}: ${page.text}`);
    codes.push(...page.json.data.items.map((item: { transaction_code: string }) => item.transaction_code));
    cursor = page.json.data.next_cursor;
    pages++;
  } while (cursor);
  return { codes, pages };
}
