import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { WriteScope } from './database.js';
import type { DatabaseSchema, RefundEventsTable, RefundsTable, RefundTransfersTable } from './schema.js';

export type RefundRow = Selectable<RefundsTable>;
export type RefundEventRow = Selectable<RefundEventsTable>;
export type RefundTransferRow = Selectable<RefundTransfersTable>;

/** Filters of the operator's refunds list. */
export interface RefundFilter {
  /** A refund id, a transaction code (both lowercase) or an exact external reference of the order. */
  search?: string;
  status?: string;
}

/** Where a newest-first page of refunds resumes. */
export interface RefundCursor {
  createdAt: string;
  refundId: string;
}

/** A list row: the refund and its order's external reference. */
export type RefundListRow = RefundRow & { external_reference: string };

/** Stored refunds, their history and, in live mode, the transfers seen to their addresses. */
export class RefundRepository {
  constructor(private readonly db: Kysely<DatabaseSchema>) {}

  /** Runs `work` in one database transaction. */
  write<T>(work: (scope: WriteScope) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  find(refundId: string, scope: Kysely<DatabaseSchema> = this.db): Promise<RefundRow | undefined> {
    return scope.selectFrom('refunds').selectAll().where('refund_id', '=', refundId).executeTakeFirst();
  }

  findByClaim(claimCode: string): Promise<RefundRow | undefined> {
    return this.db.selectFrom('refunds').selectAll().where('claim_code', '=', claimCode).executeTakeFirst();
  }

  /** The refunds of one transaction in the order they were created. */
  ofTransaction(transactionCode: string, scope: Kysely<DatabaseSchema> = this.db): Promise<RefundRow[]> {
    return scope
      .selectFrom('refunds')
      .selectAll()
      .where('transaction_code', '=', transactionCode)
      .orderBy('sequence')
      .execute();
  }

  /**
   * Inserts a refund with its first event. False when its sequence number or reference was taken
   * meanwhile (a concurrent creation won): the caller reads again and checks again.
   */
  async insert(scope: WriteScope, row: Insertable<RefundsTable>, note: string | null): Promise<boolean> {
    const inserted = await scope
      .insertInto('refunds')
      .values(row)
      .onConflict((conflict) => conflict.doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) !== 1) return false;
    await this.insertEvent(scope, row.refund_id, row.status, row.created_at, note);
    return true;
  }

  /**
   * Moves a refund to `changes.status` if it still has `readVersion`, recording the event. False when
   * another writer changed it first.
   */
  async changeStatus(
    scope: WriteScope,
    refund: RefundRow,
    changes: Updateable<RefundsTable> & { status: string },
    at: string,
    note: string | null,
  ): Promise<boolean> {
    const update = await scope
      .updateTable('refunds')
      .set({ ...changes, version: refund.version + 1 })
      .where('refund_id', '=', refund.refund_id)
      .where('version', '=', refund.version)
      .executeTakeFirst();
    if (Number(update.numUpdatedRows) !== 1) return false;
    if (changes.status !== refund.status) {
      await this.insertEvent(scope, refund.refund_id, changes.status, at, note);
    }
    return true;
  }

  private async insertEvent(
    scope: WriteScope,
    refundId: string,
    status: string,
    at: string,
    note: string | null,
  ): Promise<void> {
    await scope.insertInto('refund_events').values({ refund_id: refundId, status, at, note }).execute();
  }

  /** The status history of refunds, oldest first per refund. */
  async events(refundIds: readonly string[]): Promise<Map<string, RefundEventRow[]>> {
    const byRefund = new Map<string, RefundEventRow[]>();
    if (refundIds.length === 0) return byRefund;
    const rows = await this.db
      .selectFrom('refund_events')
      .selectAll()
      .where('refund_id', 'in', refundIds)
      .orderBy('at')
      .execute();
    for (const row of rows) byRefund.set(row.refund_id, [...(byRefund.get(row.refund_id) ?? []), row]);
    return byRefund;
  }

  /** Up to `limit` refunds matching `filter`, newest first, after `after`. */
  list(filter: RefundFilter, after: RefundCursor | null, limit: number): Promise<RefundListRow[]> {
    let query = this.db
      .selectFrom('refunds')
      .innerJoin('transactions', 'transactions.transaction_code', 'refunds.transaction_code')
      .selectAll('refunds')
      .select('transactions.external_reference');
    const { search, status } = filter;
    if (search !== undefined) {
      query = query.where((where) =>
        where.or([
          where('refunds.refund_id', '=', search.toLowerCase()),
          where('refunds.transaction_code', '=', search.toLowerCase()),
          where('transactions.external_reference', '=', search),
        ]),
      );
    }
    if (status !== undefined) query = query.where('refunds.status', '=', status);
    if (after) {
      query = query.where((where) =>
        where(
          where.refTuple('refunds.created_at', 'refunds.refund_id'),
          '<',
          where.tuple(after.createdAt, after.refundId),
        ),
      );
    }
    return query
      .orderBy('refunds.created_at', 'desc')
      .orderBy('refunds.refund_id', 'desc')
      .limit(limit)
      .execute();
  }

  /** Refunds whose buyer has not confirmed an address by `nowIso`. */
  claimsEnded(nowIso: string, limit: number): Promise<RefundRow[]> {
    return this.db
      .selectFrom('refunds')
      .selectAll()
      .where('status', '=', 'awaiting_address')
      .where('claim_expires_at', '<=', nowIso)
      .limit(limit)
      .execute();
  }

  /**
   * Refunds on `network` a transfer may pay: awaiting payment, or cancelled at or after `cancelledSince`
   * once an address was confirmed (money sent before the cancellation reached the buyer).
   */
  payable(network: string, cancelledSince: string): Promise<RefundRow[]> {
    return this.db
      .selectFrom('refunds')
      .selectAll()
      .where('network', '=', network)
      .where('address', 'is not', null)
      .where((where) =>
        where.or([
          where('status', '=', 'awaiting_payment'),
          where.and([where('status', '=', 'cancelled'), where('cancelled_at', '>=', cancelledSince)]),
        ]),
      )
      .execute();
  }

  /** Records a transfer to a refund address once; false when it was already recorded. */
  async insertTransfer(row: Insertable<RefundTransfersTable>): Promise<boolean> {
    const inserted = await this.db
      .insertInto('refund_transfers')
      .values(row)
      .onConflict((conflict) => conflict.doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  unconfirmedTransfers(network: string): Promise<RefundTransferRow[]> {
    return this.db
      .selectFrom('refund_transfers')
      .selectAll()
      .where('network', '=', network)
      .where('confirmed', '=', 0)
      .orderBy('block_number')
      .execute();
  }

  transfersOf(refundId: string): Promise<RefundTransferRow[]> {
    return this.db
      .selectFrom('refund_transfers')
      .selectAll()
      .where('refund_id', '=', refundId)
      .orderBy('block_number')
      .execute();
  }

  async markTransferConfirmed(
    transfer: RefundTransferRow,
    scope: Kysely<DatabaseSchema> = this.db,
  ): Promise<void> {
    await scope
      .updateTable('refund_transfers')
      .set({ confirmed: 1 })
      .where('network', '=', transfer.network)
      .where('tx_hash', '=', transfer.tx_hash)
      .where('log_index', '=', transfer.log_index)
      .execute();
  }

  async deleteTransfer(transfer: RefundTransferRow): Promise<void> {
    await this.db
      .deleteFrom('refund_transfers')
      .where('network', '=', transfer.network)
      .where('tx_hash', '=', transfer.tx_hash)
      .where('log_index', '=', transfer.log_index)
      .where('confirmed', '=', 0)
      .execute();
  }
}
