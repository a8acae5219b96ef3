import type { TransactionStatus } from '@cryptocheckout/core';
import type { PaymentRow, TransactionRow } from '../db/transaction-repository.js';
import { ServiceProblem } from './service-problem.js';
import { deriveState } from './status.js';

/** A state change derived from a row and its payments. */
export interface Transition {
  /** The row as it becomes, with its version one higher. */
  next: TransactionRow;
  /** Payments whose confirmation time has come and that are not yet marked confirmed. */
  newlyConfirmed: PaymentRow[];
  /** The transaction settles with this change (its webhook is due). */
  settling: boolean;
  /** Whether there is anything to store. */
  changed: boolean;
}

/** What a row becomes given its payments and the time (ISO 8601 UTC). */
export function transitionOf(row: TransactionRow, payments: readonly PaymentRow[], now: string): Transition {
  const derived = deriveState({
    amountInUsd: row.amount_in_usd,
    tolerancePercent: row.payment_tolerance_percent,
    expiresAt: row.expires_at,
    now,
    payments: payments.map((payment) => ({
      amountUsd: payment.amount_usd,
      paymentMethod: payment.payment_method,
      seenAt: payment.seen_at,
      confirmAt: payment.confirm_at,
    })),
    current: {
      status: row.status as TransactionStatus,
      settledAt: row.settled_at,
      late: row.late === 1,
      paymentMethod: row.payment_method,
    },
  });
  const newlyConfirmed = payments.filter((payment) => payment.confirmed === 0 && payment.confirm_at <= now);
  const next: TransactionRow = {
    ...row,
    status: derived.status,
    received_usd: derived.receivedUsd,
    late: derived.late ? 1 : 0,
    settled_at: derived.settledAt,
    payment_method: derived.paymentMethod,
    // Deposit mode: the forwarder sets it once the deposits are on their way to the merchant.
    payout_dispatched:
      row.payout_by_forward === 1 ? row.payout_dispatched : derived.status === 'settled' ? 1 : 0,
    version: row.version + 1,
  };
  return {
    next,
    newlyConfirmed,
    settling: derived.status === 'settled' && row.status !== 'settled',
    changed:
      next.status !== row.status ||
      next.received_usd !== row.received_usd ||
      next.payment_method !== row.payment_method ||
      newlyConfirmed.length > 0,
  };
}

/**
 * Refuses payment on a settled transaction, and on an expired one: always for instructions, and
 * for an arriving payment once the late-payment window (`monitor_until`) has passed.
 * @throws ServiceProblem `conflict`.
 */
export function assertPayable(row: TransactionRow, now: string, acceptingPayment = false): void {
  if (row.status === 'settled') {
    throw new ServiceProblem('conflict', `Transaction ${row.transaction_code} is already settled.`);
  }
  if (row.status === 'expired' && (!acceptingPayment || now > row.monitor_until)) {
    throw new ServiceProblem(
      'conflict',
      acceptingPayment
        ? `Transaction ${row.transaction_code} expired and is no longer monitored for payments.`
        : `Transaction ${row.transaction_code} has expired; start a new checkout.`,
    );
  }
}
