import type { CompiledQuery, Kysely, Selectable } from 'kysely';
import { BatchedInsert } from './batched-insert.js';
import { type SyncReader, syncReaderOf, type WriteScope } from './database.js';
import type { DatabaseSchema, PaymentsTable, TransactionsTable } from './schema.js';

export type TransactionRow = Selectable<TransactionsTable>;
export type PaymentRow = Selectable<PaymentsTable>;
/** A transaction as stored, with its payments oldest first. */
export interface StoredTransaction {
  row: TransactionRow;
  payments: PaymentRow[];
}

/** The fields a state change writes; the version is what the update claims. */
export type TransactionState = Pick<
  TransactionRow,
  'status' | 'received_usd' | 'late' | 'settled_at' | 'payment_method' | 'payout_dispatched' | 'version'
>;

/**
 * The SQL behind transactions, their payments and deposit addresses. The statements a lookup or a
 * checkout runs are compiled once: building a query costs more than running it.
 */
export class TransactionRepository {
  /** The transaction with its payment count, so one without payments (the usual case) needs one query. */
  private readonly selectTransaction;
  private readonly selectPayments;
  private readonly insertTransaction;
  /** SQLite's read connection (synchronous); undefined on PostgreSQL, which reads through the pool. */
  private readonly reader: SyncReader | undefined;

  constructor(private readonly db: Kysely<DatabaseSchema>) {
    this.reader = syncReaderOf(db);
    this.selectTransaction = db
      .selectFrom('transactions')
      .selectAll()
      .select((select) =>
        select
          .selectFrom('payments')
          .select((count) => count.fn.countAll().as('count'))
          .whereRef('payments.transaction_code', '=', 'transactions.transaction_code')
          .as('payment_count'),
      )
      .where('transaction_code', '=', '')
      .compile();
    this.selectPayments = db
      .selectFrom('payments')
      .selectAll()
      .where('transaction_code', '=', '')
      .orderBy('seen_at')
      .orderBy('payment_id')
      .compile();
    this.insertTransaction = new BatchedInsert<TransactionRow>(db, 'transactions', TRANSACTION_COLUMNS);
  }

  /** Stores a new transaction row; resolves once it is committed (with rows created alongside it). */
  insert(row: TransactionRow): Promise<void> {
    return this.insertTransaction.insert(row);
  }

  /** The row and its payments (oldest first), or undefined when no transaction has the code. */
  async find(transactionCode: string): Promise<StoredTransaction | undefined> {
    const found = (
      await this.read<TransactionRow & { payment_count: number | string }>(this.selectTransaction, [
        transactionCode.toLowerCase(),
      ])
    )[0];
    if (!found) return undefined;
    const { payment_count: paymentCount, ...row } = found;
    const payments =
      Number(paymentCount) > 0
        ? await this.read<PaymentRow>(this.selectPayments, [row.transaction_code])
        : [];
    return { row, payments };
  }

  private async read<Row>(query: CompiledQuery, parameters: unknown[]): Promise<Row[]> {
    if (this.reader) return this.reader<Row>(query.sql, parameters);
    return (await this.db.executeQuery<Row>({ ...query, parameters })).rows;
  }

  /** Codes of open transactions past their expiry and of transactions with payments due to confirm. */
  async dueForSweep(nowIso: string, limit: number): Promise<Set<string>> {
    const expiring = await this.db
      .selectFrom('transactions')
      .select('transaction_code')
      .where('status', 'in', ['pending', 'underpaid'])
      .where('expires_at', '<=', nowIso)
      .limit(limit)
      .execute();
    const confirming = await this.db
      .selectFrom('payments')
      .select('transaction_code')
      .where('confirmed', '=', 0)
      .where('confirm_at', '<=', nowIso)
      .limit(limit)
      .execute();
    return new Set([...expiring, ...confirming].map((row) => row.transaction_code));
  }

  /** Runs `work` in one database transaction: all of its writes commit, or none. */
  write<T>(work: (scope: WriteScope) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  /**
   * Writes a new state if the row still has `readVersion` (the claim that orders concurrent writers:
   * a row lock on PostgreSQL, the file's write lock on SQLite). False when another writer won.
   */
  async claimAndUpdate(
    scope: WriteScope,
    transactionCode: string,
    readVersion: number,
    state: TransactionState,
  ): Promise<boolean> {
    const update = await scope
      .updateTable('transactions')
      .set({
        status: state.status,
        received_usd: state.received_usd,
        late: state.late,
        settled_at: state.settled_at,
        payment_method: state.payment_method,
        payout_dispatched: state.payout_dispatched,
        version: state.version,
      })
      .where('transaction_code', '=', transactionCode)
      .where('version', '=', readVersion)
      .executeTakeFirst();
    return Number(update.numUpdatedRows) === 1;
  }

  /** Records a status change in the transaction's history (`transaction_events`). */
  async recordStatusChange(
    scope: WriteScope,
    event: { transactionCode: string; version: number; at: string; from: string; to: string; late: number },
  ): Promise<void> {
    await scope
      .insertInto('transaction_events')
      .values({
        transaction_code: event.transactionCode,
        version: event.version,
        at: event.at,
        from_status: event.from,
        to_status: event.to,
        late: event.late,
      })
      .execute();
  }

  async markConfirmed(scope: WriteScope, paymentIds: readonly string[]): Promise<void> {
    if (paymentIds.length === 0) return;
    await scope.updateTable('payments').set({ confirmed: 1 }).where('payment_id', 'in', paymentIds).execute();
  }

  async insertPayment(scope: WriteScope, payment: PaymentRow): Promise<void> {
    await scope.insertInto('payments').values(payment).execute();
  }

  /** Sets when a payment becomes final (a provider confirming it later). */
  async setConfirmAt(scope: WriteScope, paymentId: string, confirmAt: string): Promise<void> {
    await scope
      .updateTable('payments')
      .set({ confirm_at: confirmAt })
      .where('payment_id', '=', paymentId)
      .execute();
  }

  /** Removes a payment (an unconfirmed chain payment whose block was reorganised away). */
  async deletePayment(scope: WriteScope, paymentId: string): Promise<void> {
    await scope.deleteFrom('payments').where('payment_id', '=', paymentId).execute();
  }

  /** The deposit address handed out for a transaction and rail, if any. */
  async depositAddress(transactionCode: string, paymentMethod: string): Promise<string | undefined> {
    const found = await this.db
      .selectFrom('deposit_addresses')
      .select('address')
      .where('transaction_code', '=', transactionCode)
      .where('payment_method', '=', paymentMethod)
      .executeTakeFirst();
    return found?.address;
  }

  /** Stores a deposit address unless one is already stored for the transaction and rail. */
  async saveDepositAddress(
    transactionCode: string,
    paymentMethod: string,
    address: string,
    createdAt: string,
  ): Promise<void> {
    await this.db
      .insertInto('deposit_addresses')
      .values({
        transaction_code: transactionCode,
        payment_method: paymentMethod,
        address,
        created_at: createdAt,
      })
      .onConflict((conflict) => conflict.columns(['transaction_code', 'payment_method']).doNothing())
      .execute();
  }
}

const TRANSACTION_COLUMNS = [
  'transaction_code',
  'status',
  'external_reference',
  'fiat_amount',
  'fiat_currency',
  'usd_rate',
  'rate_source',
  'amount_in_usd',
  'received_usd',
  'webhook_url',
  'success_url',
  'cancel_url',
  'wallet_address',
  'wallet_currency',
  'wallet_network',
  'payout_dispatched',
  'payment_method',
  'late',
  'created_at',
  'expires_at',
  'monitor_until',
  'settled_at',
  'version',
  'payout_by_forward',
  'rate_sources',
  'rate_as_of',
  'rate_spread_percent',
  'payment_tolerance_percent',
] as const satisfies ReadonlyArray<keyof TransactionRow>;
