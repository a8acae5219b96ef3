import type { Logger } from 'pino';
import type { WriteScope } from '../db/database.js';
import type {
  PaymentRow,
  StoredTransaction,
  TransactionRepository,
  TransactionRow,
} from '../db/transaction-repository.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';
import { contentionPause, contentionProblem, MAX_WRITE_ATTEMPTS } from './contention.js';
import { ServiceProblem } from './service-problem.js';
import { type Transition, transitionOf } from './transitions.js';
import { settledWebhook } from './wire-shapes.js';

/**
 * Runs the state machine over stored transactions: applies the transitions that time and payments
 * make due (expiry, confirmation, settlement) and queues the settlement webhook with the settlement.
 */
export class TransactionStates {
  /** Transactions the sweep failed to update, with how many passes in a row failed. */
  private readonly failingInSweep = new Map<string, number>();

  constructor(
    private readonly repository: TransactionRepository,
    private readonly outbox: WebhookOutbox,
    private readonly clock: () => Date,
    private readonly logger: Logger,
  ) {}

  /** The stored transaction as it is. @throws ServiceProblem `not_found`. */
  async read(transactionCode: string): Promise<StoredTransaction> {
    const found = await this.repository.find(transactionCode);
    if (!found) {
      throw new ServiceProblem(
        'not_found',
        `No transaction has the code ${transactionCode}.`,
        'transaction_code',
      );
    }
    return found;
  }

  /**
   * Reads a transaction and stores the transition that has come due, if any: payments confirming,
   * expiry, settlement (with its webhook queued in the same database transaction). Updates name the
   * version they read, so concurrent callers (or several nodes) apply each transition exactly once.
   * @returns the transaction as it now stands.
   * @throws ServiceProblem `not_found`, `unavailable` under endless contention.
   */
  async applyDueTransition(transactionCode: string): Promise<StoredTransaction> {
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      if (attempt > 0) await contentionPause(attempt);
      const { row, payments } = await this.read(transactionCode);
      const transition = this.transitionNow(row, payments);
      if (!transition.changed) return { row, payments };
      const applied = await this.repository.write((scope) => this.store(scope, row, transition));
      if (!applied) continue;
      this.announce(row, transition);
      return { row: transition.next, payments };
    }
    throw contentionProblem(transactionCode);
  }

  /** The transition a row and its payments lead to at the current time. */
  transitionNow(row: TransactionRow, payments: readonly PaymentRow[]): Transition {
    return transitionOf(row, payments, this.clock().toISOString());
  }

  /**
   * Writes a transition if the row still has the version it was derived from (false if not), with
   * the payments it confirms and, on settlement, the webhook in the outbox. The version claim is the
   * first statement, so nothing is written when it loses.
   */
  async store(
    scope: WriteScope,
    row: TransactionRow,
    { next, newlyConfirmed, settling }: Transition,
  ): Promise<boolean> {
    if (!(await this.repository.claimAndUpdate(scope, row.transaction_code, row.version, next))) return false;
    if (next.status !== row.status) {
      await this.repository.recordStatusChange(scope, {
        transactionCode: row.transaction_code,
        version: next.version,
        at: this.clock().toISOString(),
        from: row.status,
        to: next.status,
        late: next.late,
      });
    }
    await this.repository.markConfirmed(
      scope,
      newlyConfirmed.map((payment) => payment.payment_id),
    );
    if (settling && row.webhook_url) {
      await this.outbox.enqueue(scope, {
        transactionCode: row.transaction_code,
        url: row.webhook_url,
        body: JSON.stringify(settledWebhook(next, this.clock())),
      });
    }
    return true;
  }

  /** After a stored transition: logs a status change and starts delivering a settlement webhook. */
  announce(row: TransactionRow, { next, settling }: Transition): void {
    if (next.status !== row.status) {
      this.logger.info(
        { transactionCode: row.transaction_code, from: row.status, to: next.status, late: next.late === 1 },
        'transaction status changed',
      );
    }
    if (settling && row.webhook_url) void this.outbox.kick();
  }

  /**
   * Applies due expiries and confirmations of open transactions (the background sweep), each on its
   * own: one that cannot be updated is logged and skipped, not allowed to hold back the rest.
   * @returns how many transactions were due.
   */
  async sweep(): Promise<number> {
    const codes = await this.repository.dueForSweep(this.clock().toISOString(), 500);
    for (const code of codes) {
      try {
        await this.applyDueTransition(code);
        this.failingInSweep.delete(code);
      } catch (error) {
        const failures = (this.failingInSweep.get(code) ?? 0) + 1;
        this.failingInSweep.set(code, failures);
        // Logged on the first failure and then once a minute or so, not on every pass.
        if (failures % 60 === 1) {
          this.logger.error(
            { err: error, transactionCode: code, failures },
            'sweep could not update a transaction; skipping it',
          );
        }
      }
    }
    return codes.size;
  }
}
