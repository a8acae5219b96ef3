import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { migrateToLatest } from './migrations.js';
import type { DatabaseSchema } from './schema.js';

export type Database = Kysely<DatabaseSchema>;

/** Where orders are kept: an embedded SQLite file (default) or PostgreSQL for several server nodes. */
export type StorageOptions =
  | { kind: 'sqlite'; dataDir: string }
  | { kind: 'postgres'; connectionString: string };

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
    db = new Kysely<DatabaseSchema>({ dialect: new SqliteDialect({ database: withStatementCache(file) }) });
  } else {
    db = new Kysely<DatabaseSchema>({
      dialect: new PostgresDialect({
        pool: new pg.Pool({ connectionString: storage.connectionString, max: 10 }),
      }),
    });
  }
  await migrateToLatest(db as Kysely<unknown>);
  return db;
}

/**
 * better-sqlite3 compiles SQL on every `prepare`; the driver prepares per query. The service runs a
 * small fixed set of statements, so caching them by SQL text removes most of a lookup's cost.
 */
function withStatementCache(file: SQLite.Database): SQLite.Database {
  const statements = new Map<string, SQLite.Statement>();
  return new Proxy(file, {
    get(target, property, receiver) {
      if (property === 'prepare') {
        return (sql: string) => {
          let statement = statements.get(sql);
          if (!statement) {
            statement = target.prepare(sql);
            if (statements.size < 500) statements.set(sql, statement);
          }
          return statement;
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
