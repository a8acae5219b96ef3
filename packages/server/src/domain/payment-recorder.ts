import { randomUUID } from 'node:crypto';
import { multiplyDecimals, parseDecimal } from '@cryptocheckout/core';
import type { Logger } from 'pino';
import type { PaymentRow, TransactionRepository, TransactionRow } from '../db/transaction-repository.js';
import { findRail } from '../rails/catalog.js';
import type { AlongsideWrite, ObservedPayment } from '../rails/payment-rail-provider.js';
import { contentionPause, contentionProblem, MAX_WRITE_ATTEMPTS } from './contention.js';
import { assertWithinUsdLimit } from './limits.js';
import type { Pricing } from './pricing.js';
import { ServiceProblem } from './service-problem.js';
import type { TransactionStates } from './transaction-states.js';
import { assertPayable } from './transitions.js';

/** Builds the payment to store from the transaction as it stands, or throws a ServiceProblem to refuse. */
export type PaymentBuilder = (row: TransactionRow, payments: readonly PaymentRow[]) => Promise<PaymentRow>;

/**
 * The `confirm_at` of a payment whose provider confirms it later (chain confirmations): a time no
 * clock reaches, so the payment counts as seen but not received until it is confirmed.
 */
export const AWAITING_CONFIRMATION = '9999-12-31T23:59:59.999Z';

/** Stores payments together with the checks they passed and the state they lead to. */
export class PaymentRecorder {
  constructor(
    private readonly repository: TransactionRepository,
    private readonly states: TransactionStates,
    private readonly pricing: Pricing,
    private readonly clock: () => Date,
    private readonly logger: Logger,
  ) {}

  /**
   * Records a payment a rail provider observed.
   * @throws ServiceProblem `conflict` when the transaction is settled or no longer monitored.
   */
  async record(payment: ObservedPayment): Promise<void> {
    await this.insertAtomically(
      payment.transactionCode,
      async (row) => {
        assertPayable(row, this.clock().toISOString(), true);
        return this.paymentRow(row, payment);
      },
      payment.alongside,
    );
  }

  /**
   * Makes a payment recorded as awaiting confirmation final now; settles the transaction when the
   * payment completes it. Confirming a confirmed payment changes nothing.
   * @throws ServiceProblem `not_found` for an unknown transaction or payment.
   */
  async confirm(transactionCode: string, paymentId: string, alongside?: AlongsideWrite): Promise<void> {
    await this.amendAtomically(transactionCode, paymentId, alongside, (payments, now) =>
      payments.map((payment) =>
        payment.payment_id === paymentId && payment.confirm_at > now
          ? { ...payment, confirm_at: now }
          : payment,
      ),
    );
  }

  /**
   * Removes a payment that is not yet confirmed (its block left the chain); the transaction goes
   * back to the state its other payments give it.
   * @throws ServiceProblem `conflict` for a confirmed payment, `not_found` for an unknown one.
   */
  async retract(transactionCode: string, paymentId: string, alongside?: AlongsideWrite): Promise<void> {
    await this.amendAtomically(transactionCode, paymentId, alongside, (payments, now) => {
      const payment = payments.find((each) => each.payment_id === paymentId)!;
      if (payment.confirm_at <= now) {
        throw new ServiceProblem('conflict', `Payment ${paymentId} is confirmed and cannot be retracted.`);
      }
      return payments.filter((each) => each !== payment);
    });
  }

  /**
   * Changes stored payments of one transaction (`amend` returns them as they become) together with
   * the state they lead to, under the same version claim as {@link insertAtomically}.
   */
  private async amendAtomically(
    transactionCode: string,
    paymentId: string,
    alongside: AlongsideWrite | undefined,
    amend: (payments: readonly PaymentRow[], now: string) => PaymentRow[],
  ): Promise<void> {
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      if (attempt > 0) await contentionPause(attempt);
      const { row, payments } = await this.states.applyDueTransition(transactionCode);
      if (!payments.some((payment) => payment.payment_id === paymentId)) {
        throw new ServiceProblem('not_found', `Transaction ${transactionCode} has no payment ${paymentId}.`);
      }
      const amended = amend(payments, this.clock().toISOString());
      const transition = this.states.transitionNow(row, amended);
      const stored = await this.repository.write(async (scope) => {
        if (!(await this.states.store(scope, row, transition))) return false;
        const kept = amended.find((payment) => payment.payment_id === paymentId);
        if (!kept) await this.repository.deletePayment(scope, paymentId);
        else await this.repository.setConfirmAt(scope, paymentId, kept.confirm_at);
        await alongside?.(scope);
        return true;
      });
      if (!stored) continue;
      this.states.announce(row, transition);
      return;
    }
    throw contentionProblem(transactionCode);
  }

  /**
   * Stores a payment only if the checks `build` makes still hold when it is stored. The insert claims
   * the row's version first in the same database transaction, which orders concurrent payments; a
   * payment whose claim loses re-reads and is checked again, so a covered or settled transaction
   * takes no more. A payment that completes the transaction settles it in the same commit.
   * @throws ServiceProblem from `build`, `not_found`, or `unavailable` under endless contention.
   */
  async insertAtomically(
    transactionCode: string,
    build: PaymentBuilder,
    alongside?: AlongsideWrite,
  ): Promise<void> {
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      if (attempt > 0) await contentionPause(attempt);
      const { row, payments } = await this.states.applyDueTransition(transactionCode);
      const payment = await build(row, payments);
      const transition = this.states.transitionNow(row, [...payments, payment]);
      const confirmedNow = transition.newlyConfirmed.includes(payment);
      const alreadyStored = transition.newlyConfirmed.filter((each) => each !== payment);
      const stored = await this.repository.write(async (scope) => {
        if (!(await this.states.store(scope, row, { ...transition, newlyConfirmed: alreadyStored }))) {
          return false;
        }
        await this.repository.insertPayment(scope, { ...payment, confirmed: confirmedNow ? 1 : 0 });
        await alongside?.(scope);
        return true;
      });
      if (!stored) continue;
      this.logger.info(
        {
          transactionCode: row.transaction_code,
          paymentMethod: payment.payment_method,
          amountUsd: payment.amount_usd,
        },
        'payment recorded',
      );
      this.states.announce(row, transition);
      return;
    }
    throw contentionProblem(transactionCode);
  }

  /**
   * The payments row for an observed payment, valued in USD at the asset's price or the locked rate.
   * @throws ServiceProblem for an unknown rail or a payment over the USD limit.
   */
  async paymentRow(row: TransactionRow, payment: ObservedPayment): Promise<PaymentRow> {
    const rail = findRail(payment.paymentMethod);
    if (!rail) throw new ServiceProblem('invalid_request', 'Unknown payment method.', 'payment_method');
    const amount = parseDecimal(payment.amount);
    const amountUsd =
      rail.kind === 'crypto'
        ? // Kept to 8 decimals: rounding each part of a payment to the cent would leave a checkout
          // paid the exact amount asked, in parts, a cent short (the total is rounded, status.ts).
          multiplyDecimals(amount, await this.pricing.paymentPrice(row.transaction_code, rail), 8, 'down')
        : multiplyDecimals(amount, row.usd_rate, 2, 'down');
    assertWithinUsdLimit(amountUsd, 'amount', `A payment of ${amount} ${rail.asset ?? row.fiat_currency}`);
    return {
      payment_id: payment.paymentId ?? randomUUID(),
      transaction_code: row.transaction_code,
      payment_method: rail.slug,
      asset: rail.kind === 'crypto' ? rail.asset! : row.fiat_currency,
      network: rail.network,
      amount,
      amount_usd: amountUsd,
      tx_id: payment.txId,
      seen_at: payment.seenAt.toISOString(),
      confirm_at: payment.confirmAt?.toISOString() ?? AWAITING_CONFIRMATION,
      confirmed: 0,
    };
  }
}
