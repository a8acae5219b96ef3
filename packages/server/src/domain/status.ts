import {
  addDecimals,
  compareDecimals,
  divideDecimals,
  multiplyDecimals,
  parseDecimal,
  subtractDecimalsAtLeastZero,
  type TransactionStatus,
} from '@cryptocheckout/core';

export interface PaymentFacts {
  amountUsd: string;
  paymentMethod: string;
  seenAt: string;
  confirmAt: string;
}

export interface DerivedState {
  status: TransactionStatus;
  receivedUsd: string;
  late: boolean;
  settledAt: string | null;
  /** Rail of the payment that completed (or last touched) the transaction. */
  paymentMethod: string | null;
}

/**
 * Derives a transaction's state from its payments and the time (all times ISO 8601 UTC, compared
 * as text). Settled is terminal; only confirmed payments count towards `received_usd`; a payment
 * seen before expiry that confirms after it still settles on time; a full payment seen after
 * expiry (within the monitoring window, checked when it is recorded) settles late. With a payment
 * tolerance, confirmed payments short of the amount by at most that percentage settle too (the
 * shortfall stays visible as `amount_in_usd − received_usd`).
 */
export function deriveState(input: {
  amountInUsd: string;
  /** Percent of `amountInUsd` the confirmed payments may fall short by and still settle; default 0. */
  tolerancePercent?: string;
  expiresAt: string;
  now: string;
  payments: readonly PaymentFacts[];
  current: {
    status: TransactionStatus;
    settledAt: string | null;
    late: boolean;
    paymentMethod: string | null;
  };
}): DerivedState {
  const confirmed = input.payments
    .filter((payment) => payment.confirmAt <= input.now)
    .sort((a, b) => (a.confirmAt < b.confirmAt ? -1 : a.confirmAt > b.confirmAt ? 1 : 0));
  const enough = settlingAmount(input.amountInUsd, input.tolerancePercent ?? '0');
  let receivedUsd = '0';
  let completing: PaymentFacts | undefined;
  let receivedExactly = '0';
  for (const payment of confirmed) {
    receivedExactly = addDecimals(receivedExactly, payment.amountUsd);
    // Payments are valued to 8 decimals; what has been received is whole cents, rounded down.
    receivedUsd = centsDown(receivedExactly);
    if (!completing && compareDecimals(receivedUsd, enough) >= 0) completing = payment;
  }
  const lastPayment = input.payments.at(-1)?.paymentMethod ?? null;

  if (input.current.status === 'settled') {
    return { ...input.current, status: 'settled', receivedUsd };
  }
  if (completing) {
    return {
      status: 'settled',
      receivedUsd,
      late: completing.seenAt > input.expiresAt,
      settledAt: completing.confirmAt,
      paymentMethod: completing.paymentMethod,
    };
  }
  const unconfirmed = input.payments.filter((payment) => payment.confirmAt > input.now);
  const expired = input.now >= input.expiresAt;
  const awaitingOnTimePayment = unconfirmed.some((payment) => payment.seenAt <= input.expiresAt);
  let status: TransactionStatus;
  if (expired && !awaitingOnTimePayment) status = 'expired';
  else if (unconfirmed.length > 0 && !expired) status = 'processing';
  else if (awaitingOnTimePayment) status = 'processing';
  else if (compareDecimals(receivedUsd, '0') > 0) status = 'underpaid';
  else status = 'pending';
  return { status, receivedUsd, late: false, settledAt: null, paymentMethod: lastPayment };
}

/**
 * The USD that settles an amount under a payment tolerance: the amount less its tolerated shortfall,
 * rounded down to the cent (a tolerance never grows into accepting more than it says).
 */
export function settlingAmount(amountInUsd: string, tolerancePercent: string): string {
  if (compareDecimals(tolerancePercent, '0') <= 0) return amountInUsd;
  const shortfall = divideDecimals(
    multiplyDecimals(amountInUsd, tolerancePercent, 6, 'down'),
    '100',
    2,
    'down',
  );
  return subtractDecimalsAtLeastZero(amountInUsd, shortfall);
}

/** A USD amount rounded down to whole cents. */
export function centsDown(amountUsd: string): string {
  return parseDecimal(multiplyDecimals(amountUsd, '1', 2, 'down'));
}

/** The exact USD (to 8 decimals) of the payments confirmed at `now` (ISO time). */
export function confirmedUsd(
  payments: readonly { amount_usd: string; confirm_at: string }[],
  now: string,
): string {
  return payments
    .filter((payment) => payment.confirm_at <= now)
    .reduce((sum, payment) => addDecimals(sum, payment.amount_usd), '0');
}
