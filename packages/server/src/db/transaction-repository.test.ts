import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeDatabase, type Database, openDatabase } from './database.js';
import { TransactionRepository, type TransactionRow } from './transaction-repository.js';

const CODE = '3f1c2a9e-8b7d-4c6e-9f0a-1b2c3d4e5f60';

function transactionRow(): TransactionRow {
  return {
    transaction_code: CODE,
    status: 'pending',
    external_reference: 'order-1',
    fiat_amount: '25.00',
    fiat_currency: 'EUR',
    usd_rate: '1.08',
    rate_source: 'static',
    amount_in_usd: '27.00',
    received_usd: '0',
    webhook_url: null,
    success_url: null,
    cancel_url: null,
    wallet_address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
    wallet_currency: 'USDC',
    wallet_network: 'POLYGON',
    payout_dispatched: 0,
    payment_method: null,
    late: 0,
    created_at: '2026-11-01T10:00:00.000Z',
    expires_at: '2026-11-01T10:15:00.000Z',
    monitor_until: '2026-11-02T10:15:00.000Z',
    settled_at: null,
    version: 0,
    payout_by_forward: 0,
    payment_tolerance_percent: '0',
    rate_sources: 'static table',
    rate_as_of: '2026-11-01T00:00:00.000Z',
    rate_spread_percent: '0',
  };
}

describe('TransactionRepository on SQLite', () => {
  let dataDir: string;
  let db: Database;
  let repository: TransactionRepository;

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'cryptocheckout-repository-'));
    db = await openDatabase({ kind: 'sqlite', dataDir });
    repository = new TransactionRepository(db);
    await repository.insert(transactionRow());
  });

  afterEach(async () => {
    await closeDatabase(db);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('reads the stored row back as it was written, in upper or lower case', async () => {
    expect(await repository.find(CODE)).toEqual({ row: transactionRow(), payments: [] });
    expect(await repository.find(CODE.toUpperCase())).toEqual({ row: transactionRow(), payments: [] });
    expect(await repository.find('00000000-0000-4000-8000-000000000000')).toBeUndefined();
  });

  // Reads use their own connection: one arriving while a write transaction waits between its
  // statements neither waits for it nor sees what it has not committed.
  it('reads the committed state while a write transaction is open, and the new state once it commits', async () => {
    const seenDuringWrite = await repository.write(async (scope) => {
      const claimed = await repository.claimAndUpdate(scope, CODE, 0, {
        ...transactionRow(),
        status: 'processing',
        version: 1,
      });
      expect(claimed).toBe(true);
      return (await repository.find(CODE))?.row.status;
    });
    expect(seenDuringWrite).toBe('pending');
    expect((await repository.find(CODE))?.row).toMatchObject({ status: 'processing', version: 1 });
  });
});
