import {
  addDecimals,
  compareDecimals,
  decimalPlaces,
  divideDecimals,
  fiatMinorUnits,
  getAsset,
  MoneyError,
  multiplyDecimals,
  parseDecimal,
  subtractDecimalsAtLeastZero,
} from '@cryptocheckout/core';
import type { PaymentRow, TransactionRow } from '../db/transaction-repository.js';
import { ServiceProblem } from './service-problem.js';

/** Statuses whose amount is spoken for: a refund that may still be, or was, paid. */
export const ACTIVE_REFUND_STATUSES: readonly string[] = ['awaiting_address', 'awaiting_payment', 'paid'];

/** Decimals a refund amount of `asset` on `network` may have: the token's own, at most 8. */
export function refundDecimals(network: string, asset: string): number {
  return Math.min(getAsset(network, asset)?.decimals ?? 8, 8);
}

/**
 * What an order received, in its settlement asset: its confirmed payments in that asset and
 * network exactly, and any other (a sandbox rail, a card) by its USD value at `usdPerUnit`, rounded down.
 */
export function receivedInAsset(
  row: TransactionRow,
  payments: readonly PaymentRow[],
  usdPerUnit: string,
): string {
  const decimals = refundDecimals(row.wallet_network, row.wallet_currency);
  let received = '0';
  for (const payment of payments) {
    if (payment.confirmed !== 1) continue;
    const sameAsset = payment.asset === row.wallet_currency && payment.network === row.wallet_network;
    const amount = sameAsset
      ? payment.amount
      : divideDecimals(payment.amount_usd, usdPerUnit, decimals, 'down');
    received = addDecimals(received, amount);
  }
  return received;
}

/** Received minus the refunds still spoken for. */
export function refundableOf(
  received: string,
  refunds: ReadonlyArray<{ status: string; amount: string }>,
): string {
  const promised = refunds
    .filter((refund) => ACTIVE_REFUND_STATUSES.includes(refund.status))
    .reduce((sum, refund) => addDecimals(sum, refund.amount), '0');
  return subtractDecimalsAtLeastZero(received, promised);
}

/**
 * `fiatAmount` of the order's currency in the asset, rounded down. An amount so large that its
 * value overflows the exact arithmetic is no refund any order could have: a 400 naming `amount`.
 */
function convertedFromFiat(
  fiatAmount: string,
  row: TransactionRow,
  usdPerUnit: string,
  decimals: number,
): string {
  try {
    const usd = multiplyDecimals(fiatAmount, row.usd_rate, 12, 'down');
    return parseDecimal(divideDecimals(usd, usdPerUnit, decimals, 'down'));
  } catch (error) {
    if (!(error instanceof MoneyError)) throw error;
    throw new ServiceProblem(
      'invalid_request',
      `amount ${fiatAmount} ${row.fiat_currency} is far more than any order received; ask at most what the order was paid.`,
      'amount',
    );
  }
}

/** A refund request's amount as the exact asset amount to send, with the fiat amount when it was asked in fiat. */
export interface RefundAmount {
  amount: string;
  fiatAmount: string | null;
}

/**
 * Converts the asked amount: in the asset it is taken as is; in the order's currency it goes to USD
 * at the rate the checkout locked, then to the asset at `usdPerUnit`, rounded down (never more than asked).
 * @throws ServiceProblem `invalid_request` naming `currency` (neither) or `amount` (too precise, zero).
 */
export function refundAmountOf(
  row: TransactionRow,
  asked: { amount: string; currency: string },
  usdPerUnit: string,
): RefundAmount {
  const decimals = refundDecimals(row.wallet_network, row.wallet_currency);
  let result: RefundAmount;
  if (asked.currency === row.wallet_currency) {
    if (decimalPlaces(asked.amount) > decimals) {
      throw new ServiceProblem(
        'invalid_request',
        `amount has more than the ${decimals} decimals ${row.wallet_currency} has.`,
        'amount',
      );
    }
    result = { amount: asked.amount, fiatAmount: null };
  } else if (asked.currency === row.fiat_currency) {
    const minor = fiatMinorUnits(row.fiat_currency);
    if (decimalPlaces(asked.amount) > minor) {
      throw new ServiceProblem(
        'invalid_request',
        `amount has more than the ${minor} decimals ${row.fiat_currency} has.`,
        'amount',
      );
    }
    result = { amount: convertedFromFiat(asked.amount, row, usdPerUnit, decimals), fiatAmount: asked.amount };
  } else {
    throw new ServiceProblem(
      'invalid_request',
      `currency must be the order's currency (${row.fiat_currency}) or the asset it was paid in (${row.wallet_currency}).`,
      'currency',
    );
  }
  if (compareDecimals(result.amount, '0') <= 0) {
    throw new ServiceProblem('invalid_request', 'amount must be greater than 0.', 'amount');
  }
  return result;
}
