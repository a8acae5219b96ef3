import type { Kysely, Migration } from 'kysely';

/** The first schema: transactions, payments, deposit addresses, the webhook outbox and its attempts. Shipped: never edit. */
export const initialSchema: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('transactions')
      .addColumn('transaction_code', 'varchar(36)', (column) => column.primaryKey())
      .addColumn('status', 'varchar(16)', (column) => column.notNull())
      .addColumn('external_reference', 'varchar(128)', (column) => column.notNull())
      .addColumn('fiat_amount', 'varchar(32)', (column) => column.notNull())
      .addColumn('fiat_currency', 'varchar(3)', (column) => column.notNull())
      .addColumn('usd_rate', 'varchar(32)', (column) => column.notNull())
      .addColumn('rate_source', 'varchar(128)', (column) => column.notNull())
      .addColumn('amount_in_usd', 'varchar(32)', (column) => column.notNull())
      .addColumn('received_usd', 'varchar(32)', (column) => column.notNull())
      .addColumn('webhook_url', 'varchar(2048)')
      .addColumn('success_url', 'varchar(2048)')
      .addColumn('cancel_url', 'varchar(2048)')
      .addColumn('wallet_address', 'varchar(128)', (column) => column.notNull())
      .addColumn('wallet_currency', 'varchar(16)', (column) => column.notNull())
      .addColumn('wallet_network', 'varchar(16)', (column) => column.notNull())
      .addColumn('payout_dispatched', 'integer', (column) => column.notNull())
      .addColumn('payment_method', 'varchar(64)')
      .addColumn('late', 'integer', (column) => column.notNull())
      .addColumn('created_at', 'varchar(32)', (column) => column.notNull())
      .addColumn('expires_at', 'varchar(32)', (column) => column.notNull())
      .addColumn('monitor_until', 'varchar(32)', (column) => column.notNull())
      .addColumn('settled_at', 'varchar(32)')
      .addColumn('version', 'integer', (column) => column.notNull())
      .execute();
    await db.schema
      .createIndex('transactions_open')
      .on('transactions')
      .columns(['status', 'expires_at'])
      .execute();

    await db.schema
      .createTable('payments')
      .addColumn('payment_id', 'varchar(36)', (column) => column.primaryKey())
      .addColumn('transaction_code', 'varchar(36)', (column) =>
        column.notNull().references('transactions.transaction_code'),
      )
      .addColumn('payment_method', 'varchar(64)', (column) => column.notNull())
      .addColumn('asset', 'varchar(16)', (column) => column.notNull())
      .addColumn('network', 'varchar(16)')
      .addColumn('amount', 'varchar(64)', (column) => column.notNull())
      .addColumn('amount_usd', 'varchar(32)', (column) => column.notNull())
      .addColumn('tx_id', 'varchar(128)', (column) => column.notNull())
      .addColumn('seen_at', 'varchar(32)', (column) => column.notNull())
      .addColumn('confirm_at', 'varchar(32)', (column) => column.notNull())
      .addColumn('confirmed', 'integer', (column) => column.notNull())
      .execute();
    await db.schema
      .createIndex('payments_by_transaction')
      .on('payments')
      .column('transaction_code')
      .execute();
    await db.schema
      .createIndex('payments_unconfirmed')
      .on('payments')
      .columns(['confirmed', 'confirm_at'])
      .execute();

    await db.schema
      .createTable('deposit_addresses')
      .addColumn('transaction_code', 'varchar(36)', (column) => column.notNull())
      .addColumn('payment_method', 'varchar(64)', (column) => column.notNull())
      .addColumn('address', 'varchar(128)', (column) => column.notNull())
      .addColumn('created_at', 'varchar(32)', (column) => column.notNull())
      .addPrimaryKeyConstraint('deposit_addresses_pk', ['transaction_code', 'payment_method'])
      .execute();

    await db.schema
      .createTable('webhook_outbox')
      .addColumn('delivery_id', 'varchar(36)', (column) => column.primaryKey())
      .addColumn('transaction_code', 'varchar(36)', (column) => column.notNull())
      .addColumn('url', 'varchar(2048)', (column) => column.notNull())
      .addColumn('body', 'text', (column) => column.notNull())
      .addColumn('state', 'varchar(16)', (column) => column.notNull())
      .addColumn('attempts', 'integer', (column) => column.notNull())
      .addColumn('next_attempt_at', 'varchar(32)', (column) => column.notNull())
      .addColumn('locked_until', 'varchar(32)')
      .addColumn('created_at', 'varchar(32)', (column) => column.notNull())
      .addColumn('finished_at', 'varchar(32)')
      .execute();
    await db.schema
      .createIndex('webhook_outbox_due')
      .on('webhook_outbox')
      .columns(['state', 'next_attempt_at'])
      .execute();

    await db.schema
      .createTable('webhook_attempts')
      .addColumn('attempt_id', 'varchar(36)', (column) => column.primaryKey())
      .addColumn('delivery_id', 'varchar(36)', (column) => column.notNull())
      .addColumn('attempt_number', 'integer', (column) => column.notNull())
      .addColumn('attempted_at', 'varchar(32)', (column) => column.notNull())
      .addColumn('http_status', 'integer')
      .addColumn('latency_ms', 'integer', (column) => column.notNull())
      .addColumn('error', 'text')
      .execute();
    await db.schema
      .createIndex('webhook_attempts_by_delivery')
      .on('webhook_attempts')
      .column('delivery_id')
      .execute();
  },
  async down(db: Kysely<unknown>) {
    for (const table of [
      'webhook_attempts',
      'webhook_outbox',
      'deposit_addresses',
      'payments',
      'transactions',
    ]) {
      await db.schema.dropTable(table).execute();
    }
  },
};
