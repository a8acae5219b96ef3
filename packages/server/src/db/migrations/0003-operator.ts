import type { Kysely, Migration } from 'kysely';

/** The operator dashboard: list indexes, status events, webhook resends. Shipped: never edit. */
export const operatorSchema: Migration = {
  async up(db: Kysely<unknown>) {
    // The operator's transactions list: newest first, keyset paging, optionally by status.
    await db.schema
      .createIndex('transactions_created')
      .on('transactions')
      .columns(['created_at', 'transaction_code'])
      .execute();
    await db.schema
      .createIndex('transactions_status_created')
      .on('transactions')
      .columns(['status', 'created_at', 'transaction_code'])
      .execute();
    await db.schema
      .createIndex('transactions_reference')
      .on('transactions')
      .column('external_reference')
      .execute();
    await db.schema.createIndex('transactions_settled').on('transactions').column('settled_at').execute();

    // Each status change, written with the change itself; a transaction's creation is its row.
    await db.schema
      .createTable('transaction_events')
      .addColumn('transaction_code', 'varchar(36)', (column) => column.notNull())
      .addColumn('version', 'integer', (column) => column.notNull())
      .addColumn('at', 'varchar(32)', (column) => column.notNull())
      .addColumn('from_status', 'varchar(16)', (column) => column.notNull())
      .addColumn('to_status', 'varchar(16)', (column) => column.notNull())
      .addColumn('late', 'integer', (column) => column.notNull())
      .addPrimaryKeyConstraint('transaction_events_pk', ['transaction_code', 'version'])
      .execute();

    // Resends: which delivery a row repeats, and a key that lets only one resend of it be pending.
    await db.schema.alterTable('webhook_outbox').addColumn('resend_of', 'varchar(36)').execute();
    await db.schema.alterTable('webhook_outbox').addColumn('resend_key', 'varchar(80)').execute();
    await db.schema
      .createIndex('webhook_outbox_resend_key')
      .unique()
      .on('webhook_outbox')
      .column('resend_key')
      .execute();
    await db.schema
      .createIndex('webhook_outbox_by_transaction')
      .on('webhook_outbox')
      .columns(['transaction_code', 'created_at'])
      .execute();
    await db.schema
      .createIndex('chain_transfers_by_transaction')
      .on('chain_transfers')
      .column('transaction_code')
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex('chain_transfers_by_transaction').execute();
    await db.schema.dropIndex('webhook_outbox_by_transaction').execute();
    await db.schema.dropIndex('webhook_outbox_resend_key').execute();
    await db.schema.alterTable('webhook_outbox').dropColumn('resend_key').execute();
    await db.schema.alterTable('webhook_outbox').dropColumn('resend_of').execute();
    await db.schema.dropTable('transaction_events').execute();
    for (const index of [
      'transactions_settled',
      'transactions_reference',
      'transactions_status_created',
      'transactions_created',
    ]) {
      await db.schema.dropIndex(index).execute();
    }
  },
};
