import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { migrateToLatest } from './migrations.js';
import type { DatabaseSchema } from './schema.js';

export type Database = Kysely<DatabaseSchema>;

/** Where orders are kept: an embedded SQLite file (default) or PostgreSQL for several server nodes. */
export type StorageOptions = { kind: 'sqlite'; dataDir: string } | { kind: 'postgres'; connectionString: string };

/**
 * Opens the database and migrates it to the latest schema.
 * @throws Error when the data directory cannot be created or the database cannot be reached.
 */
export async function openDatabase(storage: StorageOptions): Promise<Database> {
  let db: Database;
  if (storage.kind === 'sqlite') {
    mkdirSync(storage.dataDir, { recursive: true });
    const file = new SQLite(join(storage.dataDir, 'cryptocheckout.sqlite'));
    // WAL keeps readers unblocked while a write commits; NORMAL sync is durable across process crashes.
    file.pragma('journal_mode = WAL');
    file.pragma('synchronous = NORMAL');
    file.pragma('busy_timeout = 5000');
    file.pragma('foreign_keys = ON');
    db = new Kysely<DatabaseSchema>({ dialect: new SqliteDialect({ database: file }) });
  } else {
    db = new Kysely<DatabaseSchema>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: storage.connectionString, max: 10 }) }),
    });
  }
  await migrateToLatest(db as Kysely<unknown>);
  return db;
}
