import { randomUUID } from 'node:crypto';
import type { Transaction as DatabaseTransaction, Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config.js';
import type { DatabaseSchema } from '../db/schema.js';
import { SIGNATURE_HEADER, signWebhook } from './signature.js';
import { liveWebhookTargetProblem } from './target-policy.js';

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

/**
 * Durable webhook delivery. A settlement writes its webhook into the outbox in the same database
 * transaction as the status change, so a crash between settling and sending still sends after a
 * restart. Rows are claimed with a lease, so several server nodes never send one row at once.
 */
export class WebhookOutbox {
  private running: Promise<void> | null = null;
  private rerun = false;
  private stopped = false;

  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly config: ResolvedConfig,
    private readonly clock: () => Date,
    private readonly logger: Logger,
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

  /** Starts sending whatever is due, without waiting; calls never overlap. */
  kick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.rerun = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.rerun = false;
          await this.sendDue();
        } while (this.rerun && !this.stopped);
      } catch (error) {
        this.logger.error({ err: error }, 'webhook outbox pass failed');
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  /** Stops taking new work and waits for deliveries under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
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

  private async sendDue(): Promise<void> {
    const now = this.clock();
    const due = await this.db
      .selectFrom('webhook_outbox')
      .selectAll()
      .where('state', '=', 'pending')
      .where('next_attempt_at', '<=', now.toISOString())
      .where((where) =>
        where.or([where('locked_until', 'is', null), where('locked_until', '<', now.toISOString())]),
      )
      .orderBy('next_attempt_at')
      .limit(50)
      .execute();
    await Promise.all(
      due.map(async (row) => {
        const leaseEnd = new Date(now.getTime() + this.config.webhookTimeoutMs + 10_000).toISOString();
        const claim = await this.db
          .updateTable('webhook_outbox')
          .set({ locked_until: leaseEnd })
          .where('delivery_id', '=', row.delivery_id)
          .where('attempts', '=', row.attempts)
          .where('state', '=', 'pending')
          .where((where) =>
            where.or([where('locked_until', 'is', null), where('locked_until', '<', now.toISOString())]),
          )
          .executeTakeFirst();
        if (Number(claim.numUpdatedRows) !== 1) return;
        await this.attempt(row.delivery_id, row.url, row.body, row.attempts + 1);
      }),
    );
  }

  private async attempt(deliveryId: string, url: string, body: string, attemptNumber: number): Promise<void> {
    const started = this.clock();
    const startedMs = performance.now();
    let httpStatus: number | null = null;
    let error: string | null = null;
    try {
      if (this.config.mode === 'live') {
        const problem = await liveWebhookTargetProblem(url);
        if (problem) throw new Error(problem);
      }
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
      const response = await fetch(url, {
        method: 'POST',
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.config.webhookTimeoutMs),
      });
      httpStatus = response.status;
      await response.body?.cancel();
      if (response.status < 200 || response.status > 299) error = `HTTP ${response.status}`;
    } catch (caught) {
      error =
        caught instanceof Error && caught.name === 'TimeoutError'
          ? `no answer within ${this.config.webhookTimeoutMs} ms`
          : describeFetchError(caught);
    }
    const latencyMs = Math.round(performance.now() - startedMs);
    const delivered = error === null;
    const retry = !delivered && attemptNumber <= this.config.webhookRetries;
    const nextAttempt = new Date(
      this.clock().getTime() + this.config.webhookRetryBaseDelayMs * 2 ** (attemptNumber - 1),
    ).toISOString();
    await this.db.transaction().execute(async (trx) => {
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
      await trx
        .updateTable('webhook_outbox')
        .set({
          attempts: attemptNumber,
          state: delivered ? 'delivered' : retry ? 'pending' : 'failed',
          next_attempt_at: retry ? nextAttempt : started.toISOString(),
          locked_until: null,
          finished_at: delivered || !retry ? this.clock().toISOString() : null,
        })
        .where('delivery_id', '=', deliveryId)
        .execute();
    });
    this.logger.info(
      { deliveryId, url, attempt: attemptNumber, httpStatus, latencyMs, error },
      delivered ? 'webhook delivered' : 'webhook delivery failed',
    );
  }
}

function describeFetchError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ? `${error.message}: ${cause.code}` : (cause?.message ?? error.message);
}
