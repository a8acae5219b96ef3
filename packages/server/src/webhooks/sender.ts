import { SIGNATURE_HEADER, signWebhook } from '@cryptocheckout/core/node';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config.js';
import type { DeliveryOutcome, WebhookOutboxRepository } from '../db/webhook-outbox-repository.js';
import { isForbiddenAddress, type ResolveHost, vetWebhookTarget } from './target-policy.js';
import { postToVettedTarget, WebhookTimeoutError } from './transport.js';

/** Network seams of the outbox, injectable so tests can play DNS answers and address policies. */
export interface OutboxNetworkOptions {
  resolve?: ResolveHost;
  isForbiddenAddress?: (address: string) => boolean;
}

/** A delivery whose attempt `attemptNumber` (1-based) this node has claimed. */
export interface ClaimedDelivery {
  deliveryId: string;
  url: string;
  body: string;
  attemptNumber: number;
}

/**
 * Makes one claimed delivery attempt: vets the target, signs the body when a secret is configured,
 * POSTs it to the vetted addresses, and records the outcome with the next try on an exponential
 * schedule (or the final state once the retries are used up).
 */
export class WebhookSender {
  constructor(
    private readonly repository: WebhookOutboxRepository,
    private readonly config: ResolvedConfig,
    private readonly clock: () => Date,
    private readonly logger: Logger,
    private readonly network: OutboxNetworkOptions = {},
  ) {}

  /**
   * Sends and records one attempt. A failure to send is an outcome, not an error.
   * @throws when neither the attempt nor, after that, the bare outcome could be stored.
   */
  async attempt({ deliveryId, url, body, attemptNumber }: ClaimedDelivery): Promise<void> {
    const started = this.clock();
    const startedMs = performance.now();
    // One deadline covers resolving, connecting and the response headers.
    const deadline = startedMs + this.config.webhookTimeoutMs;
    let httpStatus: number | null = null;
    let error: string | null = null;
    try {
      httpStatus = await this.post(url, body, started, deadline);
      if (httpStatus < 200 || httpStatus > 299) error = `HTTP ${httpStatus}`;
    } catch (caught) {
      error =
        caught instanceof Error && caught.name === 'TimeoutError'
          ? `no answer within ${this.config.webhookTimeoutMs} ms`
          : describeError(caught);
    }
    const latencyMs = Math.round(performance.now() - startedMs);
    const delivered = error === null;
    const outcome = this.outcomeOf(delivered, attemptNumber, started);
    const target = logTarget(url);
    try {
      await this.repository.recordAttempt(
        { deliveryId, attemptNumber, attemptedAt: started.toISOString(), httpStatus, latencyMs, error },
        outcome,
      );
    } catch (recordError) {
      this.logger.error(
        { err: recordError, deliveryId, target, attempt: attemptNumber },
        'webhook attempt could not be recorded; settling the delivery without it',
      );
      // Left pending, the row would be sent again after every lease, forever.
      await this.repository.settle(deliveryId, attemptNumber, outcome);
    }
    this.logger.info(
      { deliveryId, target, attempt: attemptNumber, httpStatus, latencyMs, error },
      delivered ? 'webhook delivered' : 'webhook delivery failed',
    );
  }

  /** Vets, signs and POSTs; resolves with the HTTP status, rejects when nothing was answered. */
  private async post(url: string, body: string, started: Date, deadline: number): Promise<number> {
    const vetted = await beforeDeadline(
      vetWebhookTarget(url, {
        enforce: this.config.enforceWebhookTargets,
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
    return postToVettedTarget(vetted.target, headers, body, deadline);
  }

  /**
   * The row's state after attempt `attemptNumber`: delivered, pending again after
   * `webhookRetryBaseDelayMs * 2^(attemptNumber - 1)` while retries are left, else failed.
   */
  private outcomeOf(delivered: boolean, attemptNumber: number, started: Date): DeliveryOutcome {
    const retry = !delivered && attemptNumber <= this.config.webhookRetries;
    const nextAttempt = new Date(
      this.clock().getTime() + this.config.webhookRetryBaseDelayMs * 2 ** (attemptNumber - 1),
    ).toISOString();
    return {
      state: delivered ? 'delivered' : retry ? 'pending' : 'failed',
      next_attempt_at: retry ? nextAttempt : started.toISOString(),
      locked_until: null,
      finished_at: delivered || !retry ? this.clock().toISOString() : null,
    };
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

/** `work`, or a WebhookTimeoutError once `deadline` (a `performance.now()` value) passes. */
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

/** A failure as the attempt history shows it, with the system error code when there is one. */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ? `${error.message}: ${cause.code}` : (cause?.message ?? error.message);
}
