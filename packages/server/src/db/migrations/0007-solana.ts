import { type Kysely, type Migration, PostgresAdapter } from 'kysely';

/**
 * Solana live mode (docs/solana.md): the Solana Pay reference handed out per checkout and rail, the
 * wallets to watch until when, and the watcher's cursor per watched address. Transfers go into `chain_transfers` like the EVM
 * chains' (network `SOLANA`, the signature as `tx_hash`, the slot as `block_number`). Shipped: never edit.
 */
export const solanaSchema: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('solana_references')
      .addColumn('reference', 'varchar(64)', (column) => column.primaryKey())
      .addColumn('transaction_code', 'varchar(64)', (column) => column.notNull())
      .addColumn('payment_method', 'varchar(32)', (column) => column.notNull())
      .addColumn('wallet_address', 'varchar(64)', (column) => column.notNull())
      .addColumn('created_at', 'varchar(32)', (column) => column.notNull())
      .addColumn('monitor_until', 'varchar(32)', (column) => column.notNull())
      .execute();
    // One row per wallet and rail, so a poll reads the merchants, not their open checkouts.
    await db.schema
      .createTable('solana_watched_wallets')
      .addColumn('wallet_address', 'varchar(64)', (column) => column.notNull())
      .addColumn('payment_method', 'varchar(32)', (column) => column.notNull())
      .addColumn('since', 'varchar(32)', (column) => column.notNull())
      .addColumn('monitor_until', 'varchar(32)', (column) => column.notNull())
      .addPrimaryKeyConstraint('solana_watched_wallets_pk', ['wallet_address', 'payment_method'])
      .execute();
    // The newest finalized signature read per address: a poll asks only for what came after it.
    await db.schema
      .createTable('solana_cursors')
      .addColumn('address', 'varchar(64)', (column) => column.primaryKey())
      .addColumn('signature', 'varchar(128)', (column) => column.notNull())
      .addColumn('slot', 'bigint', (column) => column.notNull())
      .addColumn('updated_at', 'varchar(32)', (column) => column.notNull())
      .execute();
    // The transfer tables were sized for EVM (0x hashes, 42-character addresses): a signature is up
    // to 88 characters, an address or mint up to 44. SQLite ignores the length; PostgreSQL enforces it.
    if (db.getExecutor().adapter instanceof PostgresAdapter) {
      const widened: Array<[string, string[]]> = [
        ['chain_transfers', ['tx_hash', 'token_contract', 'from_address', 'to_address']],
        ['refund_transfers', ['tx_hash', 'from_address']],
      ];
      for (const [table, columns] of widened) {
        for (const column of columns) {
          await db.schema
            .alterTable(table)
            .alterColumn(column, (alter) => alter.setDataType('varchar(128)'))
            .execute();
        }
      }
    }
  },
};
