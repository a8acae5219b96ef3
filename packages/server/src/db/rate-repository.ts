import { type Kysely, sql } from 'kysely';
import type { DatabaseSchema, RateQuotesTable, RateSourceStatusTable } from './schema.js';

/**
 * Live prices in the database: each source's newest value per currency or asset and how its last
 * attempt went. Every node writes what it reads and loads what all nodes wrote, so nodes sharing
 * PostgreSQL quote from the same values and a restart serves the last ones at once.
 */
export class RateRepository {
  constructor(private readonly db: Kysely<DatabaseSchema>) {}

  /** Stores a source's values; a value older than the one stored (a lagging mirror) is kept out. */
  async saveQuotes(rows: readonly RateQuotesTable[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db
      .insertInto('rate_quotes')
      .values([...rows])
      .onConflict((conflict) =>
        conflict
          .columns(['source', 'code'])
          .doUpdateSet({
            kind: (expression) => expression.ref('excluded.kind'),
            usd_per_unit: (expression) => expression.ref('excluded.usd_per_unit'),
            as_of: (expression) => expression.ref('excluded.as_of'),
            fresh_until: (expression) => expression.ref('excluded.fresh_until'),
            fetched_at: (expression) => expression.ref('excluded.fetched_at'),
          })
          .where(sql<boolean>`rate_quotes.as_of <= excluded.as_of`),
      )
      .execute();
  }

  async saveStatus(row: RateSourceStatusTable): Promise<void> {
    const values = {
      last_attempt_at: row.last_attempt_at,
      last_success_at: row.last_success_at,
      last_error: row.last_error,
    };
    await this.db
      .insertInto('rate_source_status')
      .values(row)
      .onConflict((conflict) => conflict.column('source').doUpdateSet(values))
      .execute();
  }

  async allQuotes(): Promise<RateQuotesTable[]> {
    return this.db.selectFrom('rate_quotes').selectAll().execute();
  }

  async allStatuses(): Promise<RateSourceStatusTable[]> {
    return this.db.selectFrom('rate_source_status').selectAll().execute();
  }
}
