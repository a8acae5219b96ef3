import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely';

/** Migrations in code, so the built server needs no migration files on disk. Never edit a shipped one. */
const MIGRATIONS: Record<string, Migration> = {
  '0001_initial': {
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
  },
  '0002_live_rail': {
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
        .addPrimaryKeyConstraint('amount_holds_pk', [
          'network',
          'asset',
          'wallet_address',
          'amount_base_units',
        ])
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
  },
  '0003_operator': {
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
  },
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/**
 * Brings the database schema up to date. Safe to run on every start and from several nodes
 * (Kysely's migrator takes a lock).
 * @throws Error naming the failed migration.
 */
export async function migrateToLatest(db: Kysely<unknown>): Promise<void> {
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest();
  const failed = results?.find((result) => result.status === 'Error');
  if (error || failed) {
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed: ${String(error)}`, {
      cause: error,
    });
  }
}
