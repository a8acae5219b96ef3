import {
  compareDecimals,
  SETTLED_EVENT,
  type SettledWebhook,
  subtractDecimalsAtLeastZero,
  type Transaction,
  type TransactionStatus,
} from '@cryptocheckout/core';
import type { PaymentRow, TransactionRow } from '../db/transaction-repository.js';
import { centsDown } from './status.js';

/** The hosted page of a transaction under the server's public origin. */
export function checkoutUrlOf(publicUrl: string, transactionCode: string): string {
  return `${publicUrl}/pay/${transactionCode}`;
}

/** The `GET /transaction` data object for a stored row and its payments (docs/api.md). */
export function transactionLookup(
  row: TransactionRow,
  payments: readonly PaymentRow[],
  publicUrl: string,
): Transaction {
  return {
    transaction_code: row.transaction_code,
    status: row.status as TransactionStatus,
    external_reference: row.external_reference,
    fiat_amount: Number(row.fiat_amount),
    fiat_currency: row.fiat_currency,
    amount_in_usd: Number(row.amount_in_usd),
    received_usd: Number(row.received_usd),
    checkout_url: checkoutUrlOf(publicUrl, row.transaction_code),
    wallet_address: row.wallet_address,
    wallet_currency: row.wallet_currency,
    wallet_network: row.wallet_network,
    payout_dispatched: row.payout_dispatched === 1,
    payment_method: row.payment_method,
    late: row.late === 1,
    created_at: row.created_at,
    expires_at: row.expires_at,
    settled_at: row.settled_at,
    payments: payments.map((payment) => ({
      payment_method: payment.payment_method,
      asset: payment.asset,
      network: payment.network,
      amount: payment.amount,
      amount_usd: Number(centsDown(payment.amount_usd)),
      tx_id: payment.tx_id,
      seen_at: payment.seen_at,
    })),
    rate: {
      usd_per_unit: row.usd_rate,
      source: row.rate_source,
      // Checkouts made before live prices kept only the readable source.
      sources: row.rate_sources === null ? [row.rate_source] : row.rate_sources.split(',').filter(Boolean),
      as_of: row.rate_as_of ?? row.created_at,
      spread_percent: row.rate_spread_percent ?? '0',
      held_until: row.expires_at,
    },
    ...(compareDecimals(row.payment_tolerance_percent, '0') > 0
      ? {
          payment_tolerance: {
            percent: row.payment_tolerance_percent,
            accepted_shortfall_usd:
              row.status === 'settled'
                ? subtractDecimalsAtLeastZero(row.amount_in_usd, row.received_usd)
                : '0',
          },
        }
      : {}),
  };
}

/** The `transaction.settled` webhook body, exactly the fields docs/api.md lists; `timestamp` in Unix seconds. */
export function settledWebhook(row: TransactionRow, now: Date): SettledWebhook {
  return {
    event: SETTLED_EVENT,
    transaction_code: row.transaction_code,
    external_reference: row.external_reference,
    fiat_amount: Number(row.fiat_amount),
    fiat_currency: row.fiat_currency,
    received_usd: Number(row.received_usd),
    wallet_address: row.wallet_address,
    wallet_currency: row.wallet_currency,
    wallet_network: row.wallet_network,
    payout_dispatched: row.payout_dispatched === 1,
    timestamp: Math.floor(now.getTime() / 1000),
  };
}
