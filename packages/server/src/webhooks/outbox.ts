import { randomUUID } from 'node:crypto';
import type { Transaction as DatabaseTransaction, Kysely, Updateable } from 'kysely';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config.js';
import type { DatabaseSchema, WebhookOutboxTable } from '../db/schema.js';
import { SIGNATURE_HEADER, signWebhook } from './signature.js';
import { isForbiddenAddress, type ResolveHost, vetWebhookTarget } from './target-policy.js';
import { postToVettedTarget, WebhookTimeoutError } from './transport.js';

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

/** Network seams of the outbox, injectable so tests can play DNS answers and address policies. */
export interface OutboxNetworkOptions {
  resolve?: ResolveHost;
  isForbiddenAddress?: (address: string) => boolean;
}

/** Time a claim outlives the per-attempt timeout, for recording the outcome. */
const LEASE_MARGIN_MS = 2000;
const PAGE_SIZE = 100;
const INTERRUPTED =
  'interrupted: no outcome was recorded before the lease ran out (the sending node stopped or stalled)';

/**
 * Durable webhook delivery. A settlement writes its webhook into the outbox in the same database
 * transaction as the status change, so a crash between settling and sending still sends after a
 * restart. Before sending, a row is claimed: its attempt count and a lease of the per-attempt
 * timeout plus a small margin are written durably, so another node (or this one after a crash)
 * sends it again only once that lease has really run out: delivery is at-least-once.
 * Deliveries run in a bounded pool with a per-origin cap, and a freed slot takes the next due row
 * at once, so slow or dead endpoints cannot delay the others.
 */
export class WebhookOutbox {
  private filling: Promise<void> | null = null;
  private refill = false;
  private stopped = false;
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly perOrigin = new Map<string, number>();

  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly config: ResolvedConfig,
    private readonly clock: () => Date,
    private readonly logger: Logger,
    private readonly network: OutboxNetworkOptions = {},
  ) {}

  /** Adds a webhook inside the caller's database transaction. */
  async enqueue(
    trx: DatabaseTransaction<DatabaseSchema>,
    delivery: { transactionCode: string; url: string; body: string },
  ): Promise<void> {
    const now = this.clock().toISOString();
    await trx
      .insertInto('webhook_outbox')
      .values({
        delivery_id: randomUUID(),
        transaction_code: delivery.transactionCode,
        url: delivery.url,
        body: delivery.body,
        state: 'pending',
        attempts: 0,
        next_attempt_at: now,
        locked_until: null,
        created_at: now,
        finished_at: null,
      })
      .execute();
  }

  /**
   * Claims due rows into free delivery slots and starts them, without waiting for them to finish.
   * Resolves once the claiming pass is done; calls never overlap (a call during a pass reruns it).
   */
  kick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.filling) {
      this.refill = true;
      return this.filling;
    }
    this.filling = (async () => {
      try {
        do {
          this.refill = false;
          await this.fill();
        } while (this.refill && !this.stopped);
      } catch (error) {
        this.logger.error({ err: error }, 'webhook outbox pass failed');
      } finally {
        this.filling = null;
      }
    })();
    return this.filling;
  }

  /** Resolves once no claiming pass and no delivery is under way. */
  async idle(): Promise<void> {
    while (this.filling || this.inFlight.size > 0) {
      await Promise.allSettled([this.filling, ...this.inFlight.values()]);
    }
  }

  /** Stops taking new work and waits for deliveries under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.idle();
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

  private async fill(): Promise<void> {
    const nowIso = this.clock().toISOString();
    let after: { at: string; id: string } | null = null;
    // Keyset pages over the due rows: rows of a saturated origin are skipped, not waited for.
    while (!this.stopped && this.inFlight.size < this.config.webhookConcurrency) {
      const cursor = after;
      let query = this.db
        .selectFrom('webhook_outbox')
        .select(['delivery_id', 'url', 'body', 'attempts', 'locked_until', 'next_attempt_at'])
        .where('state', '=', 'pending')
        .where('next_attempt_at', '<=', nowIso)
        .where((where) => where.or([where('locked_until', 'is', null), where('locked_until', '<', nowIso)]));
      if (cursor) {
        query = query.where((where) =>
          where.or([
            where('next_attempt_at', '>', cursor.at),
            where.and([where('next_attempt_at', '=', cursor.at), where('delivery_id', '>', cursor.id)]),
          ]),
        );
      }
      const page = await query.orderBy('next_attempt_at').orderBy('delivery_id').limit(PAGE_SIZE).execute();
      for (const row of page) {
        if (this.stopped || this.inFlight.size >= this.config.webhookConcurrency) return;
        if (this.inFlight.has(row.delivery_id)) continue;
        const origin = originOf(row.url);
        if ((this.perOrigin.get(origin) ?? 0) >= this.config.webhookPerOriginConcurrency) continue;
        let claimed = false;
        try {
          claimed = await this.claim(row);
        } catch (error) {
          // One row the database refuses to claim must not hold up the rows behind it.
          this.logger.error(
            { err: error, deliveryId: row.delivery_id },
            'webhook delivery could not be claimed',
          );
        }
        if (claimed) this.start(row.delivery_id, row.url, row.body, row.attempts + 1, origin);
      }
      const last = page.at(-1);
      if (!last || page.length < PAGE_SIZE) return;
      after = { at: last.next_attempt_at, id: last.delivery_id };
    }
  }

  /** Writes the attempt number and lease durably; false when another node got the row first. */
  private async claim(row: {
    delivery_id: string;
    attempts: number;
    locked_until: string | null;
  }): Promise<boolean> {
    const now = this.clock();
    const leaseMs = this.config.webhookTimeoutMs + LEASE_MARGIN_MS;
    const claim = await this.db
      .updateTable('webhook_outbox')
      .set({ attempts: row.attempts + 1, locked_until: new Date(now.getTime() + leaseMs).toISOString() })
      .where('delivery_id', '=', row.delivery_id)
      .where('attempts', '=', row.attempts)
      .where('state', '=', 'pending')
      .where((where) =>
        where.or([where('locked_until', 'is', null), where('locked_until', '<', now.toISOString())]),
      )
      .executeTakeFirst();
    if (Number(claim.numUpdatedRows) !== 1) return false;
    if (row.locked_until !== null && row.attempts > 0) {
      // The previous claim's lease ran out without an outcome: say so in the attempt history.
      try {
        const recorded = await this.db
          .selectFrom('webhook_attempts')
          .select('attempt_id')
          .where('delivery_id', '=', row.delivery_id)
          .where('attempt_number', '=', row.attempts)
          .executeTakeFirst();
        if (!recorded) {
          await this.db
            .insertInto('webhook_attempts')
            .values({
              attempt_id: randomUUID(),
              delivery_id: row.delivery_id,
              attempt_number: row.attempts,
              attempted_at: new Date(Date.parse(row.locked_until) - leaseMs).toISOString(),
              http_status: null,
              latency_ms: 0,
              error: INTERRUPTED,
            })
            .execute();
        }
      } catch (error) {
        this.logger.warn(
          { err: error, deliveryId: row.delivery_id },
          'interrupted webhook attempt not recorded',
        );
      }
    }
    return true;
  }

  private start(deliveryId: string, url: string, body: string, attemptNumber: number, origin: string): void {
    this.perOrigin.set(origin, (this.perOrigin.get(origin) ?? 0) + 1);
    const work = this.attempt(deliveryId, url, body, attemptNumber)
      .catch((error) => this.logger.error({ err: error, deliveryId }, 'webhook delivery failed unexpectedly'))
      .finally(() => {
        this.inFlight.delete(deliveryId);
        const left = (this.perOrigin.get(origin) ?? 1) - 1;
        if (left > 0) this.perOrigin.set(origin, left);
        else this.perOrigin.delete(origin);
        // The freed slot takes the next due row now, not after the rest of a batch.
        void this.kick();
      });
    this.inFlight.set(deliveryId, work);
  }

  private async attempt(deliveryId: string, url: string, body: string, attemptNumber: number): Promise<void> {
    const started = this.clock();
    const startedMs = performance.now();
    // One deadline covers resolving, connecting and the response headers.
    const deadline = startedMs + this.config.webhookTimeoutMs;
    let httpStatus: number | null = null;
    let error: string | null = null;
    try {
      const vetted = await beforeDeadline(
        vetWebhookTarget(url, {
          enforce: this.config.mode === 'live',
          resolve: this.network.resolve,
          isForbidden: this.network.isForbiddenAddress ?? isForbiddenAddress,
        }),
        deadline,
      );
      if ('problem' in vetted) throw new Error(vetted.problem);
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'user-agent': 'CryptoCheckout-Webhooks/1',
      };
      if (this.config.webhookSigningSecret) {
        headers[SIGNATURE_HEADER] = signWebhook(
          this.config.webhookSigningSecret,
          body,
          Math.floor(started.getTime() / 1000),
        );
      }
      // Redirects are not followed: a 3xx counts as a failed delivery, and cannot bounce us elsewhere.
      httpStatus = await postToVettedTarget(vetted.target, headers, body, deadline);
      if (httpStatus < 200 || httpStatus > 299) error = `HTTP ${httpStatus}`;
    } catch (caught) {
      error =
        caught instanceof Error && caught.name === 'TimeoutError'
          ? `no answer within ${this.config.webhookTimeoutMs} ms`
          : describeError(caught);
    }
    const latencyMs = Math.round(performance.now() - startedMs);
    const delivered = error === null;
    const retry = !delivered && attemptNumber <= this.config.webhookRetries;
    const nextAttempt = new Date(
      this.clock().getTime() + this.config.webhookRetryBaseDelayMs * 2 ** (attemptNumber - 1),
    ).toISOString();
    const outcome: Updateable<WebhookOutboxTable> = {
      state: delivered ? 'delivered' : retry ? 'pending' : 'failed',
      next_attempt_at: retry ? nextAttempt : started.toISOString(),
      locked_until: null,
      finished_at: delivered || !retry ? this.clock().toISOString() : null,
    };
    const target = logTarget(url);
    try {
      await this.db.transaction().execute(async (trx) => {
        await trx
          .deleteFrom('webhook_attempts')
          .where('delivery_id', '=', deliveryId)
          .where('attempt_number', '=', attemptNumber)
          .where('error', '=', INTERRUPTED)
          .execute();
        await trx
          .insertInto('webhook_attempts')
          .values({
            attempt_id: randomUUID(),
            delivery_id: deliveryId,
            attempt_number: attemptNumber,
            attempted_at: started.toISOString(),
            http_status: httpStatus,
            latency_ms: latencyMs,
            error,
          })
          .execute();
        await settle(trx, deliveryId, attemptNumber, outcome);
      });
    } catch (recordError) {
      this.logger.error(
        { err: recordError, deliveryId, target, attempt: attemptNumber },
        'webhook attempt could not be recorded; settling the delivery without it',
      );
      // Left pending, the row would be sent again after every lease, forever.
      await settle(this.db, deliveryId, attemptNumber, outcome);
    }
    this.logger.info(
      { deliveryId, target, attempt: attemptNumber, httpStatus, latencyMs, error },
      delivered ? 'webhook delivered' : 'webhook delivery failed',
    );
  }
}

/**
 * Stores an attempt's outcome, only while the row is still that attempt's: a node that stalled past
 * its lease must not overwrite the claim of the node that took over.
 */
async function settle(
  db: Kysely<DatabaseSchema>,
  deliveryId: string,
  attemptNumber: number,
  outcome: Updateable<WebhookOutboxTable>,
): Promise<void> {
  await db
    .updateTable('webhook_outbox')
    .set(outcome)
    .where('delivery_id', '=', deliveryId)
    .where('attempts', '=', attemptNumber)
    .where('state', '=', 'pending')
    .execute();
}

/** Key of the per-origin cap; unparsable URLs share one key (they fail without connecting). */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'invalid-url';
  }
}

/** Origin and path only: query strings often carry receiver tokens, which logs must not keep. */
function logTarget(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

function beforeDeadline<T>(work: Promise<T>, deadline: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new WebhookTimeoutError('deadline passed')),
      Math.max(0, deadline - performance.now()),
    );
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ? `${error.message}: ${cause.code}` : (cause?.message ?? error.message);
}
