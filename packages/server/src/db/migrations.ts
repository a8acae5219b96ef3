import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely';
import { initialSchema } from './migrations/0001-initial.js';
import { liveRailSchema } from './migrations/0002-live-rail.js';
import { operatorSchema } from './migrations/0003-operator.js';
import { depositModeSchema } from './migrations/0004-deposit-mode.js';
import { refundsSchema } from './migrations/0005-refunds.js';
import { liveRatesSchema } from './migrations/0006-live-rates.js';
import { solanaSchema } from './migrations/0007-solana.js';
import { bitcoinSchema } from './migrations/0008-bitcoin.js';

/** Migrations in code, so the built server needs no migration files on disk. Never edit a shipped one. */
const MIGRATIONS: Record<string, Migration> = {
  '0001_initial': initialSchema,
  '0002_live_rail': liveRailSchema,
  '0003_operator': operatorSchema,
  '0004_deposit_mode': depositModeSchema,
  '0005_refunds': refundsSchema,
  '0006_live_rates': liveRatesSchema,
  '0007_solana': solanaSchema,
  '0008_bitcoin': bitcoinSchema,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/**
 * Brings the database schema up to date. Safe to run on every start and from several nodes
 * (Kysely's migrator takes a lock).
 * @throws Error naming the failed migration.
 */
export async function migrateToLatest(db: Kysely<unknown>): Promise<void> {
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest();
  const failed = results?.find((result) => result.status === 'Error');
  if (error || failed) {
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed: ${String(error)}`, {
      cause: error,
    });
  }
}
