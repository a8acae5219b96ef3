import type { Kysely, Migration } from 'kysely';

/** Live mode: amount holds, watcher cursors and chain transfers. Shipped: never edit. */
export const liveRailSchema: Migration = {
  async up(db: Kysely<unknown>) {
    // The exact amount each open live checkout asks for: unique per wallet, asset and network while held.
    await db.schema
      .createTable('amount_holds')
      .addColumn('network', 'varchar(16)', (column) => column.notNull())
      .addColumn('asset', 'varchar(16)', (column) => column.notNull())
      .addColumn('wallet_address', 'varchar(128)', (column) => column.notNull())
      .addColumn('amount_base_units', 'bigint', (column) => column.notNull())
      .addColumn('amount', 'varchar(64)', (column) => column.notNull())
      .addColumn('transaction_code', 'varchar(36)', (column) => column.notNull())
      .addColumn('payment_method', 'varchar(64)', (column) => column.notNull())
      .addColumn('held_until', 'varchar(32)', (column) => column.notNull())
      .addPrimaryKeyConstraint('amount_holds_pk', ['network', 'asset', 'wallet_address', 'amount_base_units'])
      .execute();
    await db.schema
      .createIndex('amount_holds_by_transaction')
      .on('amount_holds')
      .columns(['transaction_code', 'payment_method'])
      .unique()
      .execute();
    await db.schema
      .createIndex('amount_holds_by_wallet')
      .on('amount_holds')
      .columns(['network', 'held_until'])
      .execute();

    await db.schema
      .createTable('chain_cursors')
      .addColumn('network', 'varchar(16)', (column) => column.primaryKey())
      .addColumn('block_number', 'bigint', (column) => column.notNull())
      .addColumn('block_hash', 'varchar(66)', (column) => column.notNull())
      .addColumn('block_time', 'varchar(32)', (column) => column.notNull())
      .addColumn('updated_at', 'varchar(32)', (column) => column.notNull())
      .execute();

    // Every token transfer to a watched wallet: matched to a checkout or kept for the operator.
    await db.schema
      .createTable('chain_transfers')
      .addColumn('network', 'varchar(16)', (column) => column.notNull())
      .addColumn('tx_hash', 'varchar(66)', (column) => column.notNull())
      .addColumn('log_index', 'integer', (column) => column.notNull())
      .addColumn('block_number', 'bigint', (column) => column.notNull())
      .addColumn('block_hash', 'varchar(66)', (column) => column.notNull())
      .addColumn('block_time', 'varchar(32)', (column) => column.notNull())
      .addColumn('token_contract', 'varchar(42)', (column) => column.notNull())
      .addColumn('asset', 'varchar(16)', (column) => column.notNull())
      .addColumn('from_address', 'varchar(42)', (column) => column.notNull())
      .addColumn('to_address', 'varchar(42)', (column) => column.notNull())
      .addColumn('amount', 'varchar(64)', (column) => column.notNull())
      .addColumn('transaction_code', 'varchar(36)')
      .addColumn('payment_id', 'varchar(36)')
      .addColumn('unmatched_reason', 'text')
      .addColumn('confirmed', 'integer', (column) => column.notNull())
      .addColumn('recorded_at', 'varchar(32)', (column) => column.notNull())
      .addPrimaryKeyConstraint('chain_transfers_pk', ['network', 'tx_hash', 'log_index'])
      .execute();
    await db.schema
      .createIndex('chain_transfers_unconfirmed')
      .on('chain_transfers')
      .columns(['network', 'confirmed'])
      .execute();
    await db.schema
      .createIndex('chain_transfers_recorded')
      .on('chain_transfers')
      .column('recorded_at')
      .execute();
  },
  async down(db: Kysely<unknown>) {
    for (const table of ['chain_transfers', 'chain_cursors', 'amount_holds']) {
      await db.schema.dropTable(table).execute();
    }
  },
};
