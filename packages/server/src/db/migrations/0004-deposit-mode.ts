import type { Kysely, Migration } from 'kysely';

/**
 * Deposit mode and the operator's hand on transfers: a forwarder address per checkout, the forwards
 * that pay deposits out (and which node may send them), the state of each deposit's forward, and
 * what an operator decided about a transfer. Shipped: never edit.
 */
export const depositModeSchema: Migration = {
  async up(db: Kysely<unknown>) {
    // Each checkout's CREATE2 forwarder address on a network; the watcher matches transfers to it.
    await db.schema
      .createTable('deposit_forwarders')
      .addColumn('network', 'varchar(16)', (column) => column.notNull())
      .addColumn('address', 'varchar(42)', (column) => column.notNull())
      .addColumn('transaction_code', 'varchar(36)', (column) => column.notNull())
      .addColumn('payment_method', 'varchar(64)', (column) => column.notNull())
      .addColumn('merchant', 'varchar(42)', (column) => column.notNull())
      .addColumn('salt', 'varchar(66)', (column) => column.notNull())
      .addColumn('factory', 'varchar(42)', (column) => column.notNull())
      .addColumn('created_at', 'varchar(32)', (column) => column.notNull())
      .addPrimaryKeyConstraint('deposit_forwarders_pk', ['network', 'address'])
      .execute();
    await db.schema
      .createIndex('deposit_forwarders_by_transaction')
      .on('deposit_forwarders')
      .column('transaction_code')
      .execute();

    // A transfer into a deposit address is forwarded once confirmed: `forward_id` names the forward
    // carrying it; `forward_approved` is 0 for a token the checkout did not ask for until an
    // operator approves it. The resolution columns record an operator's decision on a transfer.
    await db.schema
      .alterTable('chain_transfers')
      .addColumn('deposit', 'integer', (column) => column.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('chain_transfers')
      .addColumn('forward_approved', 'integer', (column) => column.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable('chain_transfers').addColumn('forward_id', 'varchar(36)').execute();
    await db.schema.alterTable('chain_transfers').addColumn('resolution', 'varchar(16)').execute();
    await db.schema.alterTable('chain_transfers').addColumn('resolved_at', 'varchar(32)').execute();
    await db.schema.alterTable('chain_transfers').addColumn('resolution_note', 'text').execute();
    await db.schema
      .createIndex('chain_transfers_to_forward')
      .on('chain_transfers')
      .columns(['network', 'deposit', 'confirmed', 'forward_id'])
      .execute();

    // Forwards: one signed transaction (and its fee-bumped replacements) per sweeper nonce.
    await db.schema
      .createTable('forwards')
      .addColumn('forward_id', 'varchar(36)', (column) => column.primaryKey())
      .addColumn('network', 'varchar(16)', (column) => column.notNull())
      .addColumn('sweeper', 'varchar(42)', (column) => column.notNull())
      .addColumn('nonce', 'bigint', (column) => column.notNull())
      .addColumn('state', 'varchar(16)', (column) => column.notNull())
      .addColumn('items', 'text', (column) => column.notNull())
      .addColumn('created_at', 'varchar(32)', (column) => column.notNull())
      .addColumn('updated_at', 'varchar(32)', (column) => column.notNull())
      .addColumn('tx_hash', 'varchar(66)')
      .addColumn('block_number', 'bigint')
      .addColumn('block_hash', 'varchar(66)')
      .addColumn('gas_used', 'bigint')
      .addColumn('error', 'text')
      .execute();
    await db.schema
      .createIndex('forwards_by_nonce')
      .on('forwards')
      .columns(['network', 'sweeper', 'nonce'])
      .unique()
      .execute();
    await db.schema.createIndex('forwards_by_state').on('forwards').columns(['network', 'state']).execute();

    // Every signed version of a forward (the first and each fee bump), written before it is sent.
    await db.schema
      .createTable('forward_attempts')
      .addColumn('tx_hash', 'varchar(66)', (column) => column.primaryKey())
      .addColumn('forward_id', 'varchar(36)', (column) => column.notNull())
      .addColumn('raw_transaction', 'text', (column) => column.notNull())
      .addColumn('max_fee_per_gas', 'varchar(32)', (column) => column.notNull())
      .addColumn('max_priority_fee_per_gas', 'varchar(32)', (column) => column.notNull())
      .addColumn('signed_at', 'varchar(32)', (column) => column.notNull())
      .execute();
    await db.schema
      .createIndex('forward_attempts_by_forward')
      .on('forward_attempts')
      .column('forward_id')
      .execute();

    // Which server node sends forwards on a network, until when.
    await db.schema
      .createTable('forwarder_leases')
      .addColumn('network', 'varchar(16)', (column) => column.primaryKey())
      .addColumn('holder', 'varchar(64)', (column) => column.notNull())
      .addColumn('until', 'varchar(32)', (column) => column.notNull())
      .execute();

    // Deposit mode's checkouts report payout_dispatched from their forwards, not from settlement.
    await db.schema
      .alterTable('transactions')
      .addColumn('payout_by_forward', 'integer', (column) => column.notNull().defaultTo(0))
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('transactions').dropColumn('payout_by_forward').execute();
    for (const table of ['forwarder_leases', 'forward_attempts', 'forwards', 'deposit_forwarders']) {
      await db.schema.dropTable(table).execute();
    }
    await db.schema.dropIndex('chain_transfers_to_forward').execute();
    for (const column of [
      'resolution_note',
      'resolved_at',
      'resolution',
      'forward_id',
      'forward_approved',
      'deposit',
    ]) {
      await db.schema.alterTable('chain_transfers').dropColumn(column).execute();
    }
  },
};
