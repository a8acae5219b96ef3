import type { Kysely, Migration } from 'kysely';

/**
 * Live prices (docs/rates.md): each source's latest values and health, shared by every node, and
 * what each checkout's locked rate was made of. Shipped: never edit.
 */
export const liveRatesSchema: Migration = {
  async up(db: Kysely<unknown>) {
    // A source's newest value per currency or asset; a restart serves it before any source answers.
    await db.schema
      .createTable('rate_quotes')
      .addColumn('source', 'varchar(32)', (column) => column.notNull())
      .addColumn('code', 'varchar(16)', (column) => column.notNull())
      .addColumn('kind', 'varchar(8)', (column) => column.notNull())
      .addColumn('usd_per_unit', 'varchar(48)', (column) => column.notNull())
      .addColumn('as_of', 'varchar(32)', (column) => column.notNull())
      .addColumn('fresh_until', 'varchar(32)', (column) => column.notNull())
      .addColumn('fetched_at', 'varchar(32)', (column) => column.notNull())
      .addPrimaryKeyConstraint('rate_quotes_pk', ['source', 'code'])
      .execute();
    await db.schema
      .createTable('rate_source_status')
      .addColumn('source', 'varchar(32)', (column) => column.primaryKey())
      .addColumn('last_attempt_at', 'varchar(32)')
      .addColumn('last_success_at', 'varchar(32)')
      .addColumn('last_error', 'varchar(512)')
      .execute();
    // Older checkouts keep nulls: their rate_source text is all they were priced with.
    await db.schema.alterTable('transactions').addColumn('rate_sources', 'varchar(256)').execute();
    await db.schema.alterTable('transactions').addColumn('rate_as_of', 'varchar(32)').execute();
    await db.schema.alterTable('transactions').addColumn('rate_spread_percent', 'varchar(16)').execute();
  },
};
