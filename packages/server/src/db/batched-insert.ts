import type { CompiledQuery, Kysely } from 'kysely';
import type { DatabaseSchema } from './schema.js';

type TableName = keyof DatabaseSchema;

/** Rows written by one statement at most; far under SQLite's and PostgreSQL's bound-parameter limits. */
const MAX_BATCH = 64;

/**
 * Inserts rows into one table, writing the rows that arrive during the same turn of the event loop
 * with one multi-row INSERT (group commit): under load, one commit then carries many rows instead of
 * one each, which is what a commit costs most. Each caller's promise settles once its row is
 * committed. The statement is atomic, so when it fails each of its rows is retried alone and only
 * the failing row's caller sees the error.
 */
export class BatchedInsert<Row extends object> {
  private pending: { row: Row; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private readonly statements = new Map<number, CompiledQuery>();
  private scheduled = false;

  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly table: TableName,
    private readonly columns: ReadonlyArray<keyof Row>,
  ) {}

  /** Resolves once the row is committed. @throws the database's error for this row. */
  insert(row: Row): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ row, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    const waiting = this.pending;
    this.pending = [];
    for (let start = 0; start < waiting.length; start += MAX_BATCH) {
      const batch = waiting.slice(start, start + MAX_BATCH);
      try {
        await this.write(batch.map((entry) => entry.row));
        for (const entry of batch) entry.resolve();
      } catch (error) {
        if (batch.length === 1) {
          batch[0]!.reject(error);
          continue;
        }
        for (const entry of batch) {
          await this.write([entry.row]).then(entry.resolve, entry.reject);
        }
      }
    }
  }

  private async write(rows: Row[]): Promise<void> {
    await this.db.executeQuery({
      ...this.statementFor(rows.length),
      parameters: rows.flatMap((row) => this.columns.map((column) => row[column])),
    });
  }

  /** The INSERT for `count` rows, compiled once per count: building a query costs more than running it. */
  private statementFor(count: number): CompiledQuery {
    let statement = this.statements.get(count);
    if (!statement) {
      const template = Object.fromEntries(this.columns.map((column) => [column, null]));
      statement = this.db
        .insertInto(this.table)
        .values(Array.from({ length: count }, () => template) as never)
        .compile();
      this.statements.set(count, statement);
    }
    return statement;
  }
}
