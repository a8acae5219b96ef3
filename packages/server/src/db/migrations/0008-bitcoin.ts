import { type Kysely, type Migration, PostgresAdapter } from 'kysely';

/**
 * Bitcoin live mode (docs/bitcoin.md) and what it needed of the domain: the merchants' extended keys
 * with their next derivation index, every output script handed out (derived per checkout, or a plain
 * merchant address while exact amounts are held for it), the blocks the watcher scanned (to see a
 * reorganisation), the asset price each checkout and rail was quoted at (the rate lock of volatile
 * assets), and each checkout's payment tolerance. Bitcoin outputs go into `chain_transfers` (network
 * `BITCOIN`, the txid as `tx_hash`, the output index as `log_index`; `block_number` 0 and an empty
 * `block_hash` while the transaction is only in the mempool). Shipped: never edit.
 */
export const bitcoinSchema: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('bitcoin_wallets')
      .addColumn('wallet_id', 'varchar(64)', (column) => column.primaryKey())
      .addColumn('wallet', 'varchar(256)', (column) => column.notNull())
      .addColumn('scheme', 'varchar(16)', (column) => column.notNull())
      .addColumn('next_index', 'integer', (column) => column.notNull())
      // The highest index that received a payment: the gap after it is what wallet software must scan.
      .addColumn('highest_paid_index', 'integer')
      .addColumn('created_at', 'varchar(32)', (column) => column.notNull())
      .execute();
    await db.schema
      .createTable('bitcoin_scripts')
      .addColumn('script_hex', 'varchar(140)', (column) => column.notNull())
      .addColumn('address', 'varchar(100)', (column) => column.notNull())
      // The extended key's id, or the plain address: one script can be both (a key's first address
      // entered alone in another shop), told apart by how the payment matches.
      .addColumn('wallet_id', 'varchar(256)', (column) => column.notNull())
      // Null for a plain merchant address, shared by its checkouts and told apart by amount.
      .addColumn('derivation_index', 'integer')
      .addColumn('transaction_code', 'varchar(64)')
      .addColumn('payment_method', 'varchar(32)')
      .addColumn('created_at', 'varchar(32)', (column) => column.notNull())
      .addColumn('monitor_until', 'varchar(32)', (column) => column.notNull())
      .addPrimaryKeyConstraint('bitcoin_scripts_pk', ['script_hex', 'wallet_id'])
      .execute();
    await db.schema
      .createIndex('bitcoin_scripts_checkout')
      .on('bitcoin_scripts')
      .columns(['transaction_code', 'payment_method'])
      .execute();
    await db.schema
      .createIndex('bitcoin_scripts_wallet_index')
      .on('bitcoin_scripts')
      .columns(['wallet_id', 'derivation_index'])
      .unique()
      .execute();
    await db.schema
      .createTable('bitcoin_blocks')
      .addColumn('height', 'integer', (column) => column.primaryKey())
      .addColumn('hash', 'varchar(64)', (column) => column.notNull())
      .addColumn('scanned_at', 'varchar(32)', (column) => column.notNull())
      .execute();
    await db.schema
      .createTable('asset_rate_locks')
      .addColumn('transaction_code', 'varchar(64)', (column) => column.notNull())
      .addColumn('payment_method', 'varchar(32)', (column) => column.notNull())
      .addColumn('asset', 'varchar(16)', (column) => column.notNull())
      .addColumn('usd_per_unit', 'varchar(40)', (column) => column.notNull())
      .addColumn('locked_at', 'varchar(32)', (column) => column.notNull())
      .addPrimaryKeyConstraint('asset_rate_locks_pk', ['transaction_code', 'payment_method'])
      .execute();
    await db.schema
      .alterTable('transactions')
      .addColumn('payment_tolerance_percent', 'varchar(8)', (column) => column.notNull().defaultTo('0'))
      .execute();
    // A Bitcoin wallet may be a descriptor with its key origin and checksum (about 160 characters).
    // SQLite ignores the length; PostgreSQL enforces it.
    if (db.getExecutor().adapter instanceof PostgresAdapter) {
      await db.schema
        .alterTable('transactions')
        .alterColumn('wallet_address', (alter) => alter.setDataType('varchar(256)'))
        .execute();
    }
  },
};
