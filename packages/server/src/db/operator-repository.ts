import type { Kysely, Selectable } from 'kysely';
import type { ChainTransferRow } from './live-rail-repository.js';
import type {
  DatabaseSchema,
  TransactionEventsTable,
  WebhookAttemptsTable,
  WebhookOutboxTable,
} from './schema.js';
import type { TransactionRow } from './transaction-repository.js';

/** Where a newest-first keyset page resumes: after this creation time and code. */
export interface TransactionCursor {
  createdAt: string;
  transactionCode: string;
}

/** Filters of the operator's transactions list; every field is optional. */
export interface TransactionFilter {
  /** A full transaction code (lowercase) or an exact external reference. */
  search?: string;
  status?: string;
  /** Creation time bounds, ISO 8601 UTC: `createdFrom` inclusive, `createdBefore` exclusive. */
  createdFrom?: string;
  createdBefore?: string;
}

/** A list row: the transaction and the state of its newest webhook delivery (null without one). */
export type TransactionListRow = TransactionRow & { webhook_state: string | null };

export type DeliveryRow = Selectable<WebhookOutboxTable>;
export type AttemptRow = Selectable<WebhookAttemptsTable>;
export type StatusChangeRow = Selectable<TransactionEventsTable>;

/** Where a newest-first page of chain transfers resumes. */
export interface TransferCursor {
  recordedAt: string;
  network: string;
  txHash: string;
  logIndex: number;
}

/** Per UTC day (`YYYY-MM-DD`): checkouts created, and the USD amounts of checkouts settled. */
export interface DailyActivity {
  created: Map<string, number>;
  settledAmounts: Array<{ day: string; amountInUsd: string }>;
}

/**
 * The reads behind the operator dashboard. Lists page newest first by keyset (the last row's
 * creation time and code), over indexes made for them, so a page costs the same at row 100,000 as
 * at row 1.
 */
export class OperatorRepository {
  constructor(private readonly db: Kysely<DatabaseSchema>) {}

  /** Up to `limit` transactions matching `filter`, newest first, after `after`. */
  async transactions(
    filter: TransactionFilter,
    after: TransactionCursor | null,
    limit: number,
  ): Promise<TransactionListRow[]> {
    let query = this.db
      .selectFrom('transactions')
      .selectAll('transactions')
      .select((select) =>
        select
          .selectFrom('webhook_outbox')
          .select('webhook_outbox.state')
          .whereRef('webhook_outbox.transaction_code', '=', 'transactions.transaction_code')
          .orderBy('webhook_outbox.created_at', 'desc')
          .orderBy('webhook_outbox.delivery_id', 'desc')
          .limit(1)
          .as('webhook_state'),
      );
    const { search, status, createdFrom, createdBefore } = filter;
    if (search !== undefined) {
      query = query.where((where) =>
        where.or([
          where('transactions.transaction_code', '=', search.toLowerCase()),
          where('transactions.external_reference', '=', search),
        ]),
      );
    }
    if (status !== undefined) query = query.where('transactions.status', '=', status);
    if (createdFrom !== undefined) query = query.where('transactions.created_at', '>=', createdFrom);
    if (createdBefore !== undefined) query = query.where('transactions.created_at', '<', createdBefore);
    if (after) {
      query = query.where((where) =>
        where(
          where.refTuple('transactions.created_at', 'transactions.transaction_code'),
          '<',
          where.tuple(after.createdAt, after.transactionCode),
        ),
      );
    }
    return (await query
      .orderBy('transactions.created_at', 'desc')
      .orderBy('transactions.transaction_code', 'desc')
      .limit(limit)
      .execute()) as TransactionListRow[];
  }

  /** The status changes of a transaction, oldest first. */
  statusChanges(transactionCode: string): Promise<StatusChangeRow[]> {
    return this.db
      .selectFrom('transaction_events')
      .selectAll()
      .where('transaction_code', '=', transactionCode)
      .orderBy('version')
      .execute();
  }

  /** The webhook deliveries of a transaction, oldest first, each with its attempts in order. */
  async deliveries(
    transactionCode: string,
  ): Promise<Array<{ delivery: DeliveryRow; attempts: AttemptRow[] }>> {
    const deliveries = await this.db
      .selectFrom('webhook_outbox')
      .selectAll()
      .where('transaction_code', '=', transactionCode)
      .orderBy('created_at')
      .orderBy('delivery_id')
      .execute();
    if (deliveries.length === 0) return [];
    const attempts = await this.db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where(
        'delivery_id',
        'in',
        deliveries.map((delivery) => delivery.delivery_id),
      )
      .orderBy('attempt_number')
      .execute();
    return deliveries.map((delivery) => ({
      delivery,
      attempts: attempts.filter((attempt) => attempt.delivery_id === delivery.delivery_id),
    }));
  }

  /** Chain transfers recorded against a transaction (live mode), oldest first. */
  transfersOf(transactionCode: string): Promise<ChainTransferRow[]> {
    return this.db
      .selectFrom('chain_transfers')
      .selectAll()
      .where('transaction_code', '=', transactionCode)
      .orderBy('recorded_at')
      .execute();
  }

  /** Up to `limit` transfers no checkout took, newest first, after `after`. */
  unmatchedTransfers(after: TransferCursor | null, limit: number): Promise<ChainTransferRow[]> {
    let query = this.db.selectFrom('chain_transfers').selectAll().where('unmatched_reason', 'is not', null);
    if (after) {
      query = query.where((where) =>
        where(
          where.refTuple('recorded_at', 'network', 'tx_hash', 'log_index'),
          '<',
          where.tuple(after.recordedAt, after.network, after.txHash, after.logIndex),
        ),
      );
    }
    return query
      .orderBy('recorded_at', 'desc')
      .orderBy('network', 'desc')
      .orderBy('tx_hash', 'desc')
      .orderBy('log_index', 'desc')
      .limit(limit)
      .execute();
  }

  /** Checkouts created and settled from `sinceIso` on, by UTC day. */
  async dailyActivity(sinceIso: string): Promise<DailyActivity> {
    const created = await this.db
      .selectFrom('transactions')
      .select((select) => [
        select.fn<string>('substr', ['created_at', select.val(1), select.val(10)]).as('day'),
        select.fn.countAll().as('count'),
      ])
      .where('created_at', '>=', sinceIso)
      .groupBy('day')
      .execute();
    // Summed here as exact decimals, not by the database (amounts are decimal strings).
    const settled = await this.db
      .selectFrom('transactions')
      .select(['settled_at', 'amount_in_usd'])
      .where('settled_at', '>=', sinceIso)
      .execute();
    return {
      created: new Map(created.map((row) => [row.day, Number(row.count)])),
      settledAmounts: settled.map((row) => ({
        day: (row.settled_at as string).slice(0, 10),
        amountInUsd: row.amount_in_usd,
      })),
    };
  }
}
