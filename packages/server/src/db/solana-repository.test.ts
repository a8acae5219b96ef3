import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeDatabase, type Database, openDatabase } from './database.js';
import { SolanaRepository } from './solana-repository.js';

const WALLET = 'FiorHa5DgsoRsV3uTJVYco7H4i4whfTwJLu9TW4qZEyM';

describe('SolanaRepository', () => {
  let dataDir: string;
  let db: Database;
  let repository: SolanaRepository;
  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'cryptocheckout-solana-repository-'));
    db = await openDatabase({ kind: 'sqlite', dataDir });
    repository = new SolanaRepository(db);
  });
  afterEach(async () => {
    await closeDatabase(db);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const reference = (index: number, createdAt: string, monitorUntil: string, method = 'usdc_solana') => ({
    reference: `Reference${index}`,
    transaction_code: `code-${index}`,
    payment_method: method,
    wallet_address: WALLET,
    created_at: createdAt,
    monitor_until: monitorUntil,
  });

  it('watches a wallet once per rail, until its latest checkout’s monitor_until, since its oldest reference', async () => {
    await repository.saveReference(reference(1, '2026-11-01T10:00:00.000Z', '2026-11-02T11:00:00.000Z'));
    await repository.saveReference(reference(2, '2026-11-01T12:00:00.000Z', '2026-11-02T13:00:00.000Z'));
    await repository.saveReference(
      reference(3, '2026-11-01T12:30:00.000Z', '2026-11-02T13:30:00.000Z', 'sol_solana'),
    );
    // A repeat of a stored reference changes nothing, even with other times.
    await repository.saveReference(reference(1, '2026-11-05T00:00:00.000Z', '2026-11-09T00:00:00.000Z'));
    expect(await repository.watchedWallets('2026-11-02T12:00:00.000Z')).toEqual([
      {
        walletAddress: WALLET,
        paymentMethods: ['sol_solana', 'usdc_solana'],
        since: '2026-11-01T10:00:00.000Z',
      },
    ]);
    expect(await repository.watchedWallets('2026-11-02T13:15:00.000Z')).toEqual([
      { walletAddress: WALLET, paymentMethods: ['sol_solana'], since: '2026-11-01T12:30:00.000Z' },
    ]);
    expect(await repository.watchedWallets('2026-11-03T00:00:00.000Z')).toEqual([]);
  });

  it('starts a new watch at the next reference once the last one ended, so an idle month is not read back', async () => {
    await repository.saveReference(reference(1, '2026-10-01T10:00:00.000Z', '2026-10-02T11:00:00.000Z'));
    await repository.saveReference(reference(2, '2026-11-01T10:00:00.000Z', '2026-11-02T11:00:00.000Z'));
    expect(await repository.watchedWallets('2026-11-01T10:00:00.000Z')).toEqual([
      { walletAddress: WALLET, paymentMethods: ['usdc_solana'], since: '2026-11-01T10:00:00.000Z' },
    ]);
    expect(
      (await repository.referencesAmong(['Reference1', 'Other', 'Reference2']))
        .map((row) => row.transaction_code)
        .sort(),
    ).toEqual(['code-1', 'code-2']);
  });

  it('moves a cursor forward only', async () => {
    await repository.saveCursor(WALLET, 'newer', 200, '2026-11-01T10:00:00.000Z');
    await repository.saveCursor(WALLET, 'older', 150, '2026-11-01T10:00:01.000Z');
    expect(await repository.cursor(WALLET)).toEqual({ signature: 'newer', slot: 200 });
    await repository.saveCursor(WALLET, 'newest', 250, '2026-11-01T10:00:02.000Z');
    expect(await repository.cursor(WALLET)).toEqual({ signature: 'newest', slot: 250 });
  });
});
