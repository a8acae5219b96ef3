import { randomUUID } from 'node:crypto';
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { WriteScope } from './database.js';
import type { DatabaseSchema, WebhookOutboxTable } from './schema.js';

export interface DeliveryAttempt {
  attempted_at: string;
  http_status: number | null;
  latency_ms: number;
  error: string | null;
}

export interface WebhookDelivery {
  delivery_id: string;
  transaction_code: string;
  url: string;
  body: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: DeliveryAttempt[];
}

/** A pending row whose due time has come and whose lease (if any) ran out. */
export type DueDelivery = Pick<
  Selectable<WebhookOutboxTable>,
  'delivery_id' | 'url' | 'body' | 'attempts' | 'locked_until' | 'next_attempt_at'
>;

/** Where a keyset page of due rows resumes: after this due time and delivery id. */
export interface DueCursor {
  at: string;
  id: string;
}

/** The state an attempt leaves its row in. */
export type DeliveryOutcome = Updateable<WebhookOutboxTable>;

/** One attempt as the history keeps it; times are ISO 8601 UTC, latency in milliseconds. */
export interface AttemptRecord {
  deliveryId: string;
  attemptNumber: number;
  attemptedAt: string;
  httpStatus: number | null;
  latencyMs: number;
  error: string | null;
}

/** The error an attempt gets in the history when its claim's lease ran out without an outcome. */
export const INTERRUPTED_ATTEMPT_ERROR =
  'interrupted: no outcome was recorded before the lease ran out (the sending node stopped or stalled)';

/**
 * The SQL behind the webhook outbox (`webhook_outbox`, one row per delivery) and its attempt
 * history (`webhook_attempts`). Every write that takes a row over names the attempt count it read,
 * so two nodes never both own one attempt.
 */
export class WebhookOutboxRepository {
  constructor(private readonly db: Kysely<DatabaseSchema>) {}

  /** Adds a pending delivery, due at once, inside the caller's database transaction. */
  async insert(
    scope: WriteScope,
    delivery: { transactionCode: string; url: string; body: string },
    nowIso: string,
  ): Promise<void> {
    await scope
      .insertInto('webhook_outbox')
      .values(pendingRow(randomUUID(), delivery, nowIso, null, null))
      .execute();
  }

  /**
   * Queues the body and URL of delivery `deliveryId` again, due at once, unless a resend of it is
   * still pending: then that one is returned. The row's unique `resend_key` (the delivery and how
   * many of its resends had finished) makes concurrent requests, on one node or several, agree.
   * @returns the resend's delivery id and whether this call created it; undefined for an unknown delivery.
   */
  async insertResend(
    deliveryId: string,
    nowIso: string,
  ): Promise<{ deliveryId: string; created: boolean } | undefined> {
    const original = await this.db
      .selectFrom('webhook_outbox')
      .select(['transaction_code', 'url', 'body'])
      .where('delivery_id', '=', deliveryId)
      .executeTakeFirst();
    if (!original) return undefined;
    const finished = await this.db
      .selectFrom('webhook_outbox')
      .select((select) => select.fn.countAll().as('count'))
      .where('resend_of', '=', deliveryId)
      .where('state', '!=', 'pending')
      .executeTakeFirstOrThrow();
    const resendKey = `${deliveryId}#${Number(finished.count)}`;
    const newId = randomUUID();
    await this.db
      .insertInto('webhook_outbox')
      .values(
        pendingRow(
          newId,
          { transactionCode: original.transaction_code, url: original.url, body: original.body },
          nowIso,
          deliveryId,
          resendKey,
        ),
      )
      .onConflict((conflict) => conflict.column('resend_key').doNothing())
      .execute();
    const stored = await this.db
      .selectFrom('webhook_outbox')
      .select('delivery_id')
      .where('resend_key', '=', resendKey)
      .executeTakeFirstOrThrow();
    return { deliveryId: stored.delivery_id, created: stored.delivery_id === newId };
  }

  /**
   * Up to `limit` pending rows due at `nowIso` and not under a live lease, ordered by due time then
   * id, starting after `after` (keyset paging, so skipped rows do not shift the next page).
   */
  async duePage(nowIso: string, after: DueCursor | null, limit: number): Promise<DueDelivery[]> {
    let query = this.db
      .selectFrom('webhook_outbox')
      .select(['delivery_id', 'url', 'body', 'attempts', 'locked_until', 'next_attempt_at'])
      .where('state', '=', 'pending')
      .where('next_attempt_at', '<=', nowIso)
      .where((where) => where.or([where('locked_until', 'is', null), where('locked_until', '<', nowIso)]));
    if (after) {
      query = query.where((where) =>
        where.or([
          where('next_attempt_at', '>', after.at),
          where.and([where('next_attempt_at', '=', after.at), where('delivery_id', '>', after.id)]),
        ]),
      );
    }
    return query.orderBy('next_attempt_at').orderBy('delivery_id').limit(limit).execute();
  }

  /**
   * Counts the next attempt and takes a lease until `lockedUntilIso`, only if the row is still
   * pending, still at the attempt count `row` read and not under a lease live at `nowIso`.
   * False when another node claimed it first.
   */
  async claim(
    row: Pick<DueDelivery, 'delivery_id' | 'attempts'>,
    nowIso: string,
    lockedUntilIso: string,
  ): Promise<boolean> {
    const claim = await this.db
      .updateTable('webhook_outbox')
      .set({ attempts: row.attempts + 1, locked_until: lockedUntilIso })
      .where('delivery_id', '=', row.delivery_id)
      .where('attempts', '=', row.attempts)
      .where('state', '=', 'pending')
      .where((where) => where.or([where('locked_until', 'is', null), where('locked_until', '<', nowIso)]))
      .executeTakeFirst();
    return Number(claim.numUpdatedRows) === 1;
  }

  /** Records attempt `attemptNumber` as interrupted unless the history already has an outcome for it. */
  async recordInterrupted(deliveryId: string, attemptNumber: number, attemptedAt: string): Promise<void> {
    const recorded = await this.db
      .selectFrom('webhook_attempts')
      .select('attempt_id')
      .where('delivery_id', '=', deliveryId)
      .where('attempt_number', '=', attemptNumber)
      .executeTakeFirst();
    if (recorded) return;
    await this.db
      .insertInto('webhook_attempts')
      .values({
        attempt_id: randomUUID(),
        delivery_id: deliveryId,
        attempt_number: attemptNumber,
        attempted_at: attemptedAt,
        http_status: null,
        latency_ms: 0,
        error: INTERRUPTED_ATTEMPT_ERROR,
      })
      .execute();
  }

  /**
   * In one database transaction: replaces an "interrupted" entry for the attempt (another node gave
   * it up too early) with the real one, and settles the row as `outcome` (see `settle`).
   */
  async recordAttempt(attempt: AttemptRecord, outcome: DeliveryOutcome): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .deleteFrom('webhook_attempts')
        .where('delivery_id', '=', attempt.deliveryId)
        .where('attempt_number', '=', attempt.attemptNumber)
        .where('error', '=', INTERRUPTED_ATTEMPT_ERROR)
        .execute();
      await trx
        .insertInto('webhook_attempts')
        .values({
          attempt_id: randomUUID(),
          delivery_id: attempt.deliveryId,
          attempt_number: attempt.attemptNumber,
          attempted_at: attempt.attemptedAt,
          http_status: attempt.httpStatus,
          latency_ms: attempt.latencyMs,
          error: attempt.error,
        })
        .execute();
      await settleRow(trx, attempt.deliveryId, attempt.attemptNumber, outcome);
    });
  }

  /**
   * Stores an attempt's outcome, only while the row is still that attempt's: a node that stalled past
   * its lease must not overwrite the claim of the node that took over.
   */
  async settle(deliveryId: string, attemptNumber: number, outcome: DeliveryOutcome): Promise<void> {
    await settleRow(this.db, deliveryId, attemptNumber, outcome);
  }

  /** Deliveries of a transaction with every attempt, oldest first. */
  async deliveriesOf(transactionCode: string): Promise<WebhookDelivery[]> {
    const rows = await this.db
      .selectFrom('webhook_outbox')
      .selectAll()
      .where('transaction_code', '=', transactionCode)
      .orderBy('created_at')
      .execute();
    const deliveries: WebhookDelivery[] = [];
    for (const row of rows) {
      const attempts = await this.db
        .selectFrom('webhook_attempts')
        .select(['attempted_at', 'http_status', 'latency_ms', 'error'])
        .where('delivery_id', '=', row.delivery_id)
        .orderBy('attempt_number')
        .execute();
      deliveries.push({
        delivery_id: row.delivery_id,
        transaction_code: row.transaction_code,
        url: row.url,
        body: row.body,
        state: row.state as WebhookDelivery['state'],
        attempts,
      });
    }
    return deliveries;
  }
}

/** A new outbox row: pending, no attempt yet, due at `nowIso`. */
function pendingRow(
  deliveryId: string,
  delivery: { transactionCode: string; url: string; body: string },
  nowIso: string,
  resendOf: string | null,
  resendKey: string | null,
): Insertable<WebhookOutboxTable> {
  return {
    delivery_id: deliveryId,
    transaction_code: delivery.transactionCode,
    url: delivery.url,
    body: delivery.body,
    state: 'pending',
    attempts: 0,
    next_attempt_at: nowIso,
    locked_until: null,
    created_at: nowIso,
    finished_at: null,
    resend_of: resendOf,
    resend_key: resendKey,
  };
}

async function settleRow(
  db: Kysely<DatabaseSchema>,
  deliveryId: string,
  attemptNumber: number,
  outcome: DeliveryOutcome,
): Promise<void> {
  await db
    .updateTable('webhook_outbox')
    .set(outcome)
    .where('delivery_id', '=', deliveryId)
    .where('attempts', '=', attemptNumber)
    .where('state', '=', 'pending')
    .execute();
}
