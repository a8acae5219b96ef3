import type { Kysely, Migration } from 'kysely';

/** Refunds (docs/refunds.md): refunds, their status history, merchant keys, refund transfers. Shipped: never edit. */
export const refundsSchema: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('refunds')
      .addColumn('refund_id', 'varchar(36)', (column) => column.primaryKey())
      .addColumn('transaction_code', 'varchar(36)', (column) => column.notNull())
      // 1, 2, … per transaction: two refunds created at once cannot both take the same number, so the
      // one whose check of the refundable amount is stale loses and checks again.
      .addColumn('sequence', 'integer', (column) => column.notNull())
      .addColumn('reference', 'varchar(64)')
      .addColumn('status', 'varchar(24)', (column) => column.notNull())
      .addColumn('amount', 'varchar(80)', (column) => column.notNull())
      .addColumn('asset', 'varchar(16)', (column) => column.notNull())
      .addColumn('network', 'varchar(16)', (column) => column.notNull())
      .addColumn('fiat_amount', 'varchar(40)')
      .addColumn('fiat_currency', 'varchar(3)', (column) => column.notNull())
      .addColumn('reason', 'varchar(200)')
      .addColumn('claim_code', 'varchar(64)', (column) => column.notNull().unique())
      .addColumn('claim_expires_at', 'varchar(32)', (column) => column.notNull())
      .addColumn('address', 'varchar(128)')
      .addColumn('address_confirmed_at', 'varchar(32)')
      .addColumn('tx_id', 'varchar(128)')
      .addColumn('paid_at', 'varchar(32)')
      .addColumn('cancelled_at', 'varchar(32)')
      .addColumn('created_at', 'varchar(32)', (column) => column.notNull())
      .addColumn('created_by', 'varchar(120)', (column) => column.notNull())
      .addColumn('cancelled_by', 'varchar(120)')
      .addColumn('version', 'integer', (column) => column.notNull())
      .execute();
    await db.schema
      .createIndex('refunds_sequence')
      .unique()
      .on('refunds')
      .columns(['transaction_code', 'sequence'])
      .execute();
    // NULL references are distinct on both SQLite and PostgreSQL: only given references are unique.
    await db.schema
      .createIndex('refunds_reference')
      .unique()
      .on('refunds')
      .columns(['transaction_code', 'reference'])
      .execute();
    await db.schema
      .createIndex('refunds_created')
      .on('refunds')
      .columns(['created_at', 'refund_id'])
      .execute();
    await db.schema
      .createIndex('refunds_status_created')
      .on('refunds')
      .columns(['status', 'created_at', 'refund_id'])
      .execute();
    await db.schema.createIndex('refunds_address').on('refunds').columns(['network', 'status']).execute();

    await db.schema
      .createTable('refund_events')
      .addColumn('refund_id', 'varchar(36)', (column) => column.notNull())
      .addColumn('status', 'varchar(24)', (column) => column.notNull())
      .addColumn('at', 'varchar(32)', (column) => column.notNull())
      .addColumn('note', 'varchar(300)')
      // A refund enters each status at most once.
      .addPrimaryKeyConstraint('refund_events_pk', ['refund_id', 'status'])
      .execute();

    await db.schema
      .createTable('merchant_keys')
      .addColumn('key_id', 'varchar(36)', (column) => column.primaryKey())
      .addColumn('label', 'varchar(80)', (column) => column.notNull())
      .addColumn('key_hash', 'varchar(64)', (column) => column.notNull().unique())
      .addColumn('wallet_addresses', 'text', (column) => column.notNull())
      .addColumn('created_at', 'varchar(32)', (column) => column.notNull())
      .addColumn('revoked_at', 'varchar(32)')
      .addColumn('last_used_at', 'varchar(32)')
      .execute();

    // Live mode: transfers to a refund's confirmed address, confirmed like payments (docs/refunds.md).
    await db.schema
      .createTable('refund_transfers')
      .addColumn('network', 'varchar(16)', (column) => column.notNull())
      .addColumn('tx_hash', 'varchar(66)', (column) => column.notNull())
      .addColumn('log_index', 'integer', (column) => column.notNull())
      .addColumn('block_number', 'bigint', (column) => column.notNull())
      .addColumn('block_hash', 'varchar(66)', (column) => column.notNull())
      .addColumn('block_time', 'varchar(32)', (column) => column.notNull())
      .addColumn('refund_id', 'varchar(36)', (column) => column.notNull())
      .addColumn('from_address', 'varchar(42)', (column) => column.notNull())
      .addColumn('amount', 'varchar(80)', (column) => column.notNull())
      // 1 when the amount is the refund's exact amount: only such a transfer pays it.
      .addColumn('exact', 'integer', (column) => column.notNull())
      .addColumn('confirmed', 'integer', (column) => column.notNull())
      .addColumn('recorded_at', 'varchar(32)', (column) => column.notNull())
      .addPrimaryKeyConstraint('refund_transfers_pk', ['network', 'tx_hash', 'log_index'])
      .execute();
    await db.schema
      .createIndex('refund_transfers_by_refund')
      .on('refund_transfers')
      .column('refund_id')
      .execute();
    await db.schema
      .createIndex('refund_transfers_unconfirmed')
      .on('refund_transfers')
      .columns(['network', 'confirmed'])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('refund_transfers').execute();
    await db.schema.dropTable('merchant_keys').execute();
    await db.schema.dropTable('refund_events').execute();
    await db.schema.dropTable('refunds').execute();
  },
};
