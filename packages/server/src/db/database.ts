import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type Transaction } from 'kysely';
import pg from 'pg';
import { migrateToLatest } from './migrations.js';
import type { DatabaseSchema } from './schema.js';

export type Database = Kysely<DatabaseSchema>;
/** A database transaction in progress; writes through it commit or roll back together. */
export type WriteScope = Transaction<DatabaseSchema>;

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
  let reader: SQLite.Database | undefined;
  if (storage.kind === 'sqlite') {
    mkdirSync(storage.dataDir, { recursive: true });
    const path = join(storage.dataDir, 'cryptocheckout.sqlite');
    const file = openSqliteFile(path);
    // WAL keeps readers unblocked while a write commits; NORMAL sync is durable across process crashes.
    file.pragma('journal_mode = WAL');
    db = new Kysely<DatabaseSchema>({ dialect: new SqliteDialect({ database: withStatementCache(file) }) });
    await migrateToLatest(db as Kysely<unknown>);
    reader = openSqliteFile(path);
    reader.pragma('query_only = ON');
    syncReaders.set(db, cachedReader(reader));
    readerConnections.set(db, reader);
  } else {
    db = new Kysely<DatabaseSchema>({
      dialect: new PostgresDialect({
        pool: new pg.Pool({ connectionString: storage.connectionString, max: 10 }),
      }),
    });
    await migrateToLatest(db as Kysely<unknown>);
  }
  return db;
}

/** Closes the database and, on SQLite, its read connection. */
export async function closeDatabase(db: Database): Promise<void> {
  await db.destroy();
  readerConnections.get(db)?.close();
  readerConnections.delete(db);
}

/** Runs a compiled read at once and returns its rows. */
export type SyncReader = <Row>(sql: string, parameters: readonly unknown[]) => Row[];

/**
 * The SQLite read connection of a database, undefined on PostgreSQL. Reads through it are
 * synchronous and never queue behind a write transaction that is awaiting its next statement on the
 * write connection (WAL lets them run alongside); each sees the last committed state, never a write
 * in progress.
 */
export function syncReaderOf(db: Database): SyncReader | undefined {
  return syncReaders.get(db);
}

const syncReaders = new WeakMap<Database, SyncReader>();
const readerConnections = new WeakMap<Database, SQLite.Database>();

function openSqliteFile(path: string): SQLite.Database {
  const file = new SQLite(path);
  file.pragma('synchronous = NORMAL');
  file.pragma('busy_timeout = 5000');
  file.pragma('foreign_keys = ON');
  return file;
}

/**
 * Reads through statements prepared once per SQL text. Rows come from SQLite as arrays and are
 * built here with the statement's column names, which costs less than the driver's own objects.
 */
function cachedReader(connection: SQLite.Database): SyncReader {
  const statements = new Map<string, { statement: SQLite.Statement; columns: string[] }>();
  return <Row>(sql: string, parameters: readonly unknown[]) => {
    let prepared = statements.get(sql);
    if (!prepared) {
      const statement = connection.prepare(sql).raw(true);
      prepared = { statement, columns: statement.columns().map((column) => column.name) };
      statements.set(sql, prepared);
    }
    const { statement, columns } = prepared;
    return (statement.all(...parameters) as unknown[][]).map((values) => {
      const row: Record<string, unknown> = {};
      for (let index = 0; index < columns.length; index++) row[columns[index]!] = values[index];
      return row as Row;
    });
  };
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
