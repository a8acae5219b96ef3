import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { findPostgresBin, startPostgresCluster } from '../../../test/postgres-cluster.js';
import { closeDatabase, type Database, openDatabase } from '../../db/database.js';
import { type HoldScope, LiveRailRepository } from '../../db/live-rail-repository.js';
import { RailUnavailable } from '../payment-rail-provider.js';
import { AMOUNT_TAG_TIERS, AmountHolds, MAX_AMOUNT_TAG } from './amount-holds.js';

const WALLET = '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359';
const OTHER_WALLET = '0x71c7656ec7ab88b098defb751b7401b5f6d8976f';
const SCOPE: HoldScope = { network: 'POLYGON', asset: 'USDC', walletAddress: WALLET };
const START = new Date('2026-11-01T10:00:00.000Z');
const DAY_MS = 24 * 60 * 60 * 1000;

const postgresBin = findPostgresBin();
if (!postgresBin && process.env.CI)
  throw new Error('CI must test PostgreSQL: install the postgresql package (.ci/run does).');

/** A database for one suite: opened once, emptied of holds before each test. */
interface TestStorage {
  open(): Promise<Database>;
  /** Closes what `open` opened, also when opening failed half-way (`db` undefined). */
  close(db: Database | undefined): Promise<void>;
}

function sqliteStorage(): TestStorage {
  let dataDir = '';
  return {
    async open() {
      dataDir = mkdtempSync(join(tmpdir(), 'cryptocheckout-holds-'));
      return openDatabase({ kind: 'sqlite', dataDir });
    },
    async close(db) {
      if (db) await closeDatabase(db);
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function postgresStorage(bin: string): TestStorage {
  let cluster: Awaited<ReturnType<typeof startPostgresCluster>> | undefined;
  return {
    async open() {
      cluster = await startPostgresCluster(bin);
      return openDatabase({ kind: 'postgres', connectionString: cluster.connectionString });
    },
    async close(db) {
      try {
        if (db) await closeDatabase(db);
      } finally {
        cluster?.stop();
      }
    },
  };
}

function amountHoldsSuite(label: string, skip: boolean, storage: () => TestStorage) {
  describe.skipIf(skip)(`AmountHolds on ${label}`, () => {
    let testStorage: TestStorage;
    let db: Database;
    let now: Date;
    let holds: AmountHolds;

    beforeAll(async () => {
      testStorage = storage();
      db = await testStorage.open();
    });

    afterAll(async () => {
      await testStorage?.close(db);
    });

    beforeEach(async () => {
      await db.deleteFrom('amount_holds').execute();
      now = START;
      holds = new AmountHolds(new LiveRailRepository(db), () => now);
    });

    /** A checkout of `dueAmount` USDC on POLYGON to WALLET, held a day from now unless told otherwise. */
    const ask = (
      transactionCode: string,
      overrides: {
        scope?: Partial<HoldScope>;
        dueAmount?: string;
        holdUntil?: string;
        paymentMethod?: string;
      } = {},
    ) =>
      holds.amountFor({
        transactionCode,
        paymentMethod: overrides.paymentMethod ?? 'usdc_polygon',
        scope: { ...SCOPE, ...overrides.scope },
        decimals: 6,
        dueAmount: overrides.dueAmount ?? '12.34',
        holdUntil: overrides.holdUntil ?? new Date(now.getTime() + DAY_MS).toISOString(),
      });

    /** The stored holds as (transaction, base units) pairs, base units read back exactly. */
    const storedHolds = async () =>
      (
        await db
          .selectFrom('amount_holds')
          .select(['transaction_code', 'payment_method', 'amount_base_units', 'amount'])
          .orderBy('transaction_code')
          .orderBy('payment_method')
          .execute()
      ).map((row) => ({
        transactionCode: row.transaction_code,
        paymentMethod: row.payment_method,
        baseUnits: BigInt(String(row.amount_base_units)),
        amount: row.amount,
      }));

    it('gives two checkouts of the same due amount different exact amounts, the smallest free tags', async () => {
      expect(await ask('tx-a')).toBe('12.340001');
      expect(await ask('tx-b')).toBe('12.340002');
      expect(await storedHolds()).toEqual([
        {
          transactionCode: 'tx-a',
          paymentMethod: 'usdc_polygon',
          baseUnits: 12_340_001n,
          amount: '12.340001',
        },
        {
          transactionCode: 'tx-b',
          paymentMethod: 'usdc_polygon',
          baseUnits: 12_340_002n,
          amount: '12.340002',
        },
      ]);
    });

    it('answers a repeated call for the same transaction and rail with the amount it holds', async () => {
      const first = await ask('tx-a');
      await ask('tx-b');
      // Even with another due amount (a re-quote): the buyer may already be paying the first one.
      expect(await ask('tx-a')).toBe(first);
      expect(await ask('tx-a', { dueAmount: '50.00' })).toBe(first);
      expect((await storedHolds()).filter((hold) => hold.transactionCode === 'tx-a')).toHaveLength(1);
    });

    it('counts tags per wallet, asset and network: each starts again at tag 1', async () => {
      expect(await ask('tx-a')).toBe('12.340001');
      expect(await ask('tx-b', { scope: { walletAddress: OTHER_WALLET } })).toBe('12.340001');
      expect(await ask('tx-c', { scope: { asset: 'USDT' }, paymentMethod: 'usdt_polygon' })).toBe(
        '12.340001',
      );
      expect(await ask('tx-d', { scope: { network: 'ETHEREUM' }, paymentMethod: 'usdc_ethereum' })).toBe(
        '12.340001',
      );
      // One transaction offering two rails holds an amount on each.
      expect(await ask('tx-a', { scope: { asset: 'USDT' }, paymentMethod: 'usdt_polygon' })).toBe(
        '12.340002',
      );
      expect(await ask('tx-e')).toBe('12.340002');
    });

    it('treats another due amount as its own range', async () => {
      expect(await ask('tx-a', { dueAmount: '12.34' })).toBe('12.340001');
      expect(await ask('tx-b', { dueAmount: '12.35' })).toBe('12.350001');
    });

    it('keeps a hold until its held_until and releases it once that has passed, reusing the amount', async () => {
      const heldUntil = new Date(START.getTime() + 15 * 60 * 1000);
      expect(await ask('tx-a', { holdUntil: heldUntil.toISOString() })).toBe('12.340001');

      now = heldUntil;
      expect(await ask('tx-b')).toBe('12.340002');

      now = new Date(heldUntil.getTime() + 1);
      expect(await ask('tx-c')).toBe('12.340001');
      const stored = await storedHolds();
      expect(stored.map((hold) => [hold.transactionCode, hold.baseUnits])).toEqual([
        ['tx-b', 12_340_002n],
        ['tx-c', 12_340_001n],
      ]);
    });

    it('gives 50 concurrent checkouts of the same due amount 50 distinct amounts', async () => {
      const codes = Array.from({ length: 50 }, (_, index) => `tx-${String(index).padStart(2, '0')}`);
      // allSettled, so no call is still writing when the next test empties the table.
      const outcomes = await Promise.allSettled(codes.map((code) => ask(code)));
      const refusals = outcomes.flatMap((outcome) =>
        outcome.status === 'rejected' ? [String(outcome.reason)] : [],
      );
      expect(refusals).toEqual([]);
      const amounts = outcomes.map((outcome) => (outcome as PromiseFulfilledResult<string>).value);
      expect(new Set(amounts).size).toBe(50);
      // No tag is skipped: the 50 amounts are exactly tags 1 to 50.
      const baseUnits = amounts
        .map((amount) => BigInt(amount.replace('.', '')))
        .sort((a, b) => (a < b ? -1 : 1));
      expect(baseUnits).toEqual(Array.from({ length: 50 }, (_, index) => 12_340_000n + BigInt(index + 1)));
      // What each caller was told is what the database holds for it.
      const stored = await storedHolds();
      expect(stored.map((hold) => [hold.transactionCode, hold.amount])).toEqual(
        codes.map((code, index) => [code, amounts[index]]),
      );
    });

    /**
     * Holds tags `first` to `last` of 12.34 USDC for filler checkouts, held until `holdUntil`, in one
     * statement: thousands of rows of parameters would exceed SQLite's and PostgreSQL's bind limits.
     */
    const fillTags = async (first: bigint, last: bigint, holdUntil: string) => {
      await sql`
        WITH RECURSIVE tags (tag) AS (
          SELECT CAST(${Number(first)} AS BIGINT) UNION ALL SELECT tag + 1 FROM tags WHERE tag < ${Number(last)}
        )
        INSERT INTO amount_holds
          (network, asset, wallet_address, amount_base_units, amount, transaction_code, payment_method, held_until)
        SELECT ${SCOPE.network}, ${SCOPE.asset}, ${WALLET}, CAST(${'12340000'} AS BIGINT) + tag, 'filler',
          'filler-' || tag, 'usdc_polygon', ${holdUntil}
        FROM tags
      `.execute(db);
    };

    it('takes a second-tier tag only once every first-tier tag of the amount is held', async () => {
      expect(AMOUNT_TAG_TIERS).toEqual([
        { first: 1n, last: 9_999n },
        { first: 10_000n, last: 99_999n },
      ]);
      const holdUntil = new Date(START.getTime() + DAY_MS).toISOString();
      // All of the first tier but its last tag: that one is still taken first.
      await fillTags(1n, 9_998n, holdUntil);
      expect(await ask('tx-last-of-first')).toBe('12.349999');
      expect(await ask('tx-second-tier')).toBe('12.350000');
      expect(await ask('tx-second-tier-2')).toBe('12.350001');
      expect(await storedHolds()).toHaveLength(9_998 + 3);

      // Another wallet and another amount still start at tag 1.
      expect(await ask('tx-other', { scope: { walletAddress: OTHER_WALLET } })).toBe('12.340001');
      expect(await ask('tx-other-amount', { dueAmount: '12.36' })).toBe('12.360001');

      // A first-tier tag freed by its window's end is taken before the second tier again.
      await db.deleteFrom('amount_holds').where('transaction_code', '=', 'filler-77').execute();
      expect(await ask('tx-freed')).toBe('12.340077');
    });

    it('refuses with RailUnavailable naming when the first hold ends once both tiers are held', async () => {
      expect(MAX_AMOUNT_TAG).toBe(99_999n);
      const laterEnd = new Date(START.getTime() + 2 * DAY_MS).toISOString();
      const firstEnd = new Date(START.getTime() + 25 * 60 * 60 * 1000 - 90 * 1000).toISOString();
      await fillTags(1n, 49_999n, laterEnd);
      await fillTags(50_000n, 99_999n, laterEnd);
      // One hold, deep in the second tier, ends before the others (one ends later still).
      await db
        .updateTable('amount_holds')
        .set({ held_until: new Date(START.getTime() + 3 * DAY_MS).toISOString() })
        .where('transaction_code', '=', 'filler-5')
        .execute();
      await db
        .updateTable('amount_holds')
        .set({ held_until: firstEnd })
        .where('transaction_code', '=', 'filler-60000')
        .execute();
      expect(await storedHolds()).toHaveLength(99_999);

      const refusal = await ask('tx-full').catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(RailUnavailable);
      const message = (refusal as Error).message;
      expect(message).toContain('12.34 USDC');
      expect(message).toContain(`free again at ${firstEnd} (in 24 h 59 min)`);
      expect(message).not.toContain('few minutes');

      // Once that hold's window passes, its amount is the one given out.
      now = new Date(Date.parse(firstEnd) + 1);
      expect(await ask('tx-full')).toBe('12.400000');
    });

    it('keeps every digit of a large due amount with its tag', async () => {
      expect(await ask('tx-a', { dueAmount: '99999.999999' })).toBe('100000.000000');
      expect(await ask('tx-b', { dueAmount: '99999.999999' })).toBe('100000.000001');
      expect(await ask('tx-c', { dueAmount: '100000.000000' })).toBe('100000.000002');
      expect((await storedHolds()).map((hold) => hold.baseUnits)).toEqual([
        100_000_000_000n,
        100_000_000_001n,
        100_000_000_002n,
      ]);
    });
  });
}

amountHoldsSuite('SQLite', false, sqliteStorage);
amountHoldsSuite('PostgreSQL', !postgresBin, () => postgresStorage(postgresBin!));
