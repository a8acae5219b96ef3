import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BatchedInsert } from './batched-insert.js';
import { closeDatabase, type Database, openDatabase } from './database.js';

type AddressRow = { transaction_code: string; payment_method: string; address: string; created_at: string };
const COLUMNS = ['transaction_code', 'payment_method', 'address', 'created_at'] as const;

function row(code: string): AddressRow {
  return {
    transaction_code: code,
    payment_method: 'usdc_polygon',
    address: `0x${code}`,
    created_at: '2026-01-01T00:00:00.000Z',
  };
}

describe('BatchedInsert', () => {
  let dataDir: string;
  let db: Database;

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'cryptocheckout-batched-'));
    db = await openDatabase({ kind: 'sqlite', dataDir });
  });

  afterEach(async () => {
    await closeDatabase(db);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const stored = async () =>
    (
      await db
        .selectFrom('deposit_addresses')
        .select('transaction_code')
        .orderBy('transaction_code')
        .execute()
    ).map((each) => each.transaction_code);

  it('writes the rows of one event-loop turn with one statement, and each caller learns when its row is stored', async () => {
    const inserts = new BatchedInsert<AddressRow>(db, 'deposit_addresses', COLUMNS);
    const statements = vi.spyOn(db, 'executeQuery');
    const codes = Array.from({ length: 10 }, (_, index) => `code-${String(index).padStart(2, '0')}`);
    await Promise.all(codes.map((code) => inserts.insert(row(code))));
    expect(statements).toHaveBeenCalledTimes(1);
    expect(await stored()).toEqual(codes);
  });

  it('splits a large turn into statements of at most 64 rows', async () => {
    const inserts = new BatchedInsert<AddressRow>(db, 'deposit_addresses', COLUMNS);
    const statements = vi.spyOn(db, 'executeQuery');
    const codes = Array.from({ length: 130 }, (_, index) => `code-${String(index).padStart(3, '0')}`);
    await Promise.all(codes.map((code) => inserts.insert(row(code))));
    expect(statements).toHaveBeenCalledTimes(3);
    expect(await stored()).toEqual(codes);
  });

  it('fails only the caller whose row is refused; the other rows of its turn are stored', async () => {
    const inserts = new BatchedInsert<AddressRow>(db, 'deposit_addresses', COLUMNS);
    await inserts.insert(row('taken'));
    const results = await Promise.allSettled(
      ['first', 'taken', 'last'].map((code) => inserts.insert(row(code))),
    );
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/UNIQUE|constraint/i);
    expect(await stored()).toEqual(['first', 'last', 'taken']);
  });
});
