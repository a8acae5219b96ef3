import { randomBytes, randomUUID } from 'node:crypto';
import {
  addDecimals,
  compareDecimals,
  divideDecimals,
  fiatMinorUnits,
  multiplyDecimals,
  type SandboxPaymentRequest,
  subtractDecimalsAtLeastZero,
} from '@cryptocheckout/core';
import { findRail, quoteDecimals, type Rail } from '../rails/catalog.js';
import { checkedSandboxAmountUsd } from './limits.js';
import type { PaymentRecorder } from './payment-recorder.js';
import { maxDecimal, type Pricing } from './pricing.js';
import { ServiceProblem } from './service-problem.js';
import { assertPayable } from './transitions.js';

/** A sandbox payment request with its defaults applied. */
export type SandboxPayment = Required<Pick<SandboxPaymentRequest, 'size' | 'confirmed'>> &
  SandboxPaymentRequest;

/** Simulated payments for sandbox mode, recorded exactly as a rail's payments are. */
export class SandboxPayments {
  constructor(
    private readonly recorder: PaymentRecorder,
    private readonly pricing: Pricing,
    private readonly clock: () => Date,
    /** How long a simulated payment takes to confirm unless `confirmed` is asked for (ms). */
    private readonly confirmationMs: number,
  ) {}

  /**
   * Pays what is due (`full`), half of it (`partial`), 10 % more (`over`), or exactly `amount_usd`.
   * @throws ServiceProblem for an unknown rail, a bad amount, a covered, settled or expired transaction.
   */
  async pay(request: SandboxPayment): Promise<void> {
    const rail = findRail(request.payment_method);
    if (!rail) {
      throw new ServiceProblem(
        'invalid_request',
        `payment_method "${request.payment_method}" is not a rail.`,
        'payment_method',
      );
    }
    const exactUsd =
      request.amount_usd === undefined ? undefined : checkedSandboxAmountUsd(request.amount_usd);
    await this.recorder.insertAtomically(request.transaction_code, async (row, payments) => {
      const now = this.clock();
      assertPayable(row, now.toISOString(), true);
      const seenUsd = payments.reduce((sum, payment) => addDecimals(sum, payment.amount_usd), '0');
      const due = subtractDecimalsAtLeastZero(row.amount_in_usd, seenUsd);
      if (compareDecimals(due, '0') <= 0 && exactUsd === undefined) {
        throw new ServiceProblem(
          'conflict',
          'Payments already cover this transaction; wait for them to confirm.',
        );
      }
      const amountUsd =
        exactUsd ??
        (request.size === 'full'
          ? due
          : request.size === 'partial'
            ? maxDecimal(divideDecimals(due, '2', 2, 'down'), '0.01')
            : multiplyDecimals(due, '1.1', 2, 'up'));
      const amount =
        rail.kind === 'crypto'
          ? divideDecimals(
              amountUsd,
              await this.pricing.paymentPrice(row.transaction_code, rail),
              quoteDecimals(rail),
              'up',
            )
          : divideDecimals(amountUsd, row.usd_rate, fiatMinorUnits(row.fiat_currency), 'up');
      return this.recorder.paymentRow(row, {
        transactionCode: row.transaction_code,
        paymentMethod: rail.slug,
        amount,
        txId: sandboxTransactionId(rail),
        seenAt: now,
        confirmAt: request.confirmed ? now : new Date(now.getTime() + this.confirmationMs),
      });
    });
  }
}

/** A transaction id shaped like the rail's: a card reference, or a 32-byte hash as the chain writes it. */
function sandboxTransactionId(rail: Rail): string {
  if (rail.kind === 'fiat') return `sandbox_${rail.slug}_${randomUUID()}`;
  const hex = randomBytes(32).toString('hex');
  return rail.network === 'BITCOIN' || rail.network === 'TRON' || rail.network === 'SOLANA'
    ? hex
    : `0x${hex}`;
}
