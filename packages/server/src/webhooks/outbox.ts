import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config.js';
import type { WriteScope } from '../db/database.js';
import type { DatabaseSchema } from '../db/schema.js';
import {
  type DueCursor,
  type DueDelivery,
  type WebhookDelivery,
  WebhookOutboxRepository,
} from '../db/webhook-outbox-repository.js';
import { type ClaimedDelivery, type OutboxNetworkOptions, WebhookSender } from './sender.js';

export type { DeliveryAttempt, WebhookDelivery } from '../db/webhook-outbox-repository.js';
export type { OutboxNetworkOptions } from './sender.js';

/** Time a claim outlives the per-attempt timeout, for recording the outcome. */
const LEASE_MARGIN_MS = 2000;
const PAGE_SIZE = 100;

/**
 * Durable webhook delivery. A settlement writes its webhook into the outbox in the same database
 * transaction as the status change, so a crash between settling and sending still sends after a
 * restart. Before sending, a row is claimed: its attempt count and a lease of the per-attempt
 * timeout plus a small margin are written durably, so another node (or this one after a crash)
 * sends it again only once that lease has really run out: delivery is at-least-once.
 * Deliveries run in a bounded pool with a per-origin cap, and a freed slot takes the next due row
 * at once, so slow or dead endpoints cannot delay the others. Each attempt is a WebhookSender's.
 */
export class WebhookOutbox {
  private filling: Promise<void> | null = null;
  private refill = false;
  private stopped = false;
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly perOrigin = new Map<string, number>();
  private readonly repository: WebhookOutboxRepository;
  private readonly sender: WebhookSender;

  constructor(
    db: Kysely<DatabaseSchema>,
    private readonly config: ResolvedConfig,
    private readonly clock: () => Date,
    private readonly logger: Logger,
    network: OutboxNetworkOptions = {},
  ) {
    this.repository = new WebhookOutboxRepository(db);
    this.sender = new WebhookSender(this.repository, config, clock, logger, network);
  }

  /** Adds a webhook inside the caller's database transaction. */
  async enqueue(
    trx: WriteScope,
    delivery: { transactionCode: string; url: string; body: string },
  ): Promise<void> {
    await this.repository.insert(trx, delivery, this.clock().toISOString());
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

  /**
   * Queues a delivery's body to its URL again, due at once, and starts sending it; while a resend of
   * that delivery is still pending, returns that one (`created: false`). Undefined for an unknown id.
   */
  async resend(deliveryId: string): Promise<{ deliveryId: string; created: boolean } | undefined> {
    const resend = await this.repository.insertResend(deliveryId, this.clock().toISOString());
    if (resend?.created) void this.kick();
    return resend;
  }

  /** Deliveries of a transaction with every attempt, oldest first. */
  deliveriesOf(transactionCode: string): Promise<WebhookDelivery[]> {
    return this.repository.deliveriesOf(transactionCode);
  }

  private async fill(): Promise<void> {
    const nowIso = this.clock().toISOString();
    let after: DueCursor | null = null;
    // Keyset pages over the due rows: rows of a saturated origin are skipped, not waited for.
    while (!this.stopped && this.inFlight.size < this.config.webhookConcurrency) {
      const page = await this.repository.duePage(nowIso, after, PAGE_SIZE);
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
        if (claimed) {
          const { delivery_id: deliveryId, url, body } = row;
          this.start({ deliveryId, url, body, attemptNumber: row.attempts + 1 }, origin);
        }
      }
      const last = page.at(-1);
      if (!last || page.length < PAGE_SIZE) return;
      after = { at: last.next_attempt_at, id: last.delivery_id };
    }
  }

  /** Writes the attempt number and lease durably; false when another node got the row first. */
  private async claim(row: DueDelivery): Promise<boolean> {
    const now = this.clock();
    const leaseMs = this.config.webhookTimeoutMs + LEASE_MARGIN_MS;
    const lockedUntil = new Date(now.getTime() + leaseMs).toISOString();
    if (!(await this.repository.claim(row, now.toISOString(), lockedUntil))) return false;
    if (row.locked_until !== null && row.attempts > 0) {
      // The previous claim's lease ran out without an outcome: say so in the attempt history.
      try {
        const attemptedAt = new Date(Date.parse(row.locked_until) - leaseMs).toISOString();
        await this.repository.recordInterrupted(row.delivery_id, row.attempts, attemptedAt);
      } catch (error) {
        this.logger.warn(
          { err: error, deliveryId: row.delivery_id },
          'interrupted webhook attempt not recorded',
        );
      }
    }
    return true;
  }

  private start(delivery: ClaimedDelivery, origin: string): void {
    const { deliveryId } = delivery;
    this.perOrigin.set(origin, (this.perOrigin.get(origin) ?? 0) + 1);
    const work = this.sender
      .attempt(delivery)
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
}

/** Key of the per-origin cap; unparsable URLs share one key (they fail without connecting). */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'invalid-url';
  }
}
