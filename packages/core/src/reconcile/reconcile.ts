import { compareDecimals, parseDecimal, subtractDecimalsAtLeastZero } from '../money/decimal.js';
import type { Transaction } from '../schemas/transaction.js';
import { getNetwork } from '../wallets/index.js';

/** Where a merchant platform's order stands, in platform-neutral terms. */
export const ORDER_STATES = [
  'awaiting_payment',
  'underpaid',
  'late_payment_review',
  'paid',
  'cancelled',
] as const;
export type OrderState = (typeof ORDER_STATES)[number];

/** What the merchant platform stored when the order was placed. */
export interface StoredOrder {
  transaction_code: string;
  /** Decimal string, as the order total was sent to the service. */
  fiat_amount: string;
  fiat_currency: string;
  /** The wallet configured when the order was placed (not the current setting). */
  wallet_address: string;
  wallet_currency: string;
  wallet_network: string;
  order_state: OrderState;
}

/** The lookup fields the decision reads; a full `GET /transaction` `data` object satisfies it. */
export type TransactionLookup = Pick<
  Transaction,
  | 'transaction_code'
  | 'status'
  | 'fiat_amount'
  | 'fiat_currency'
  | 'amount_in_usd'
  | 'received_usd'
  | 'wallet_address'
  | 'wallet_currency'
  | 'wallet_network'
  | 'late'
>;

export type MismatchReason = 'transaction_code' | 'fiat_amount' | 'fiat_currency' | 'wallet';

/** The action a platform takes for an order, with a note for the merchant's order history. */
export type ReconcileAction =
  | { action: 'none'; reason: string; note: string }
  | { action: 'mark_paid'; reason: 'settled' | 'settled_late'; note: string }
  | { action: 'hold_underpaid'; reason: string; note: string; amount_due_usd: string }
  | { action: 'cancel_expired'; reason: 'expired'; note: string }
  | { action: 'hold_late_payment'; reason: 'settled_after_cancel'; note: string }
  | { action: 'reject_mismatch'; reason: MismatchReason; note: string };

/**
 * Decides what to do with an order given the authoritative transaction lookup (rules 1–4 of
 * docs/plugin-kernel.md, "The decision"). Pure: no I/O, same inputs give the same action. Ports in
 * other languages follow `vectors/reconcile.json`.
 */
export function decideReconciliation(stored: StoredOrder, lookup: TransactionLookup): ReconcileAction {
  const mismatch = findMismatch(stored, lookup);
  if (mismatch) return mismatch;

  const received = usd(lookup.received_usd);
  const due = usd(lookup.amount_in_usd);
  const fullyPaid = compareDecimals(received, due) >= 0;
  const state = stored.order_state;

  if (state === 'paid') {
    return { action: 'none', reason: 'already_paid', note: 'The order is already paid.' };
  }

  switch (lookup.status) {
    case 'pending':
    case 'processing':
      return {
        action: 'none',
        reason: 'not_final',
        note: `The payment is ${lookup.status}; nothing to do yet.`,
      };

    case 'settled': {
      if (!fullyPaid) return holdUnderpaid(state, received, due);
      if (state === 'cancelled') {
        return {
          action: 'hold_late_payment',
          reason: 'settled_after_cancel',
          note: `Crypto Checkout: a payment of ${received} USD settled transaction ${lookup.transaction_code} after the order was cancelled. Review it before fulfilling or refunding.`,
        };
      }
      if (state === 'late_payment_review') {
        return {
          action: 'none',
          reason: 'already_held',
          note: 'The late payment is already held for review.',
        };
      }
      return {
        action: 'mark_paid',
        reason: lookup.late ? 'settled_late' : 'settled',
        note: `Crypto Checkout: payment of ${received} USD settled (transaction ${lookup.transaction_code})${lookup.late ? ', after the checkout had expired' : ''}.`,
      };
    }

    case 'underpaid':
      return holdUnderpaid(state, received, due);

    case 'expired': {
      if (state === 'cancelled') {
        return { action: 'none', reason: 'already_cancelled', note: 'The order is already cancelled.' };
      }
      // Money already received must not vanish with a cancellation: keep the order on hold.
      if (compareDecimals(received, '0') > 0) return holdUnderpaid(state, received, due);
      if (state === 'late_payment_review') {
        return { action: 'none', reason: 'already_held', note: 'The order is held for review.' };
      }
      return {
        action: 'cancel_expired',
        reason: 'expired',
        note: `Crypto Checkout: the checkout ${lookup.transaction_code} expired without payment.`,
      };
    }
  }
}

function holdUnderpaid(state: OrderState, received: string, due: string): ReconcileAction {
  if (state === 'underpaid' || state === 'late_payment_review') {
    return { action: 'none', reason: 'already_held', note: 'The order is already on hold.' };
  }
  const amountDue = subtractDecimalsAtLeastZero(due, received);
  return {
    action: 'hold_underpaid',
    reason: state === 'cancelled' ? 'underpaid_after_cancel' : 'underpaid',
    note: `Crypto Checkout: received ${received} USD of ${due} USD; ${amountDue} USD is still due. The order is on hold until the buyer tops up or you refund.`,
    amount_due_usd: amountDue,
  };
}

function findMismatch(stored: StoredOrder, lookup: TransactionLookup): ReconcileAction | null {
  const reject = (reason: MismatchReason, what: string): ReconcileAction => ({
    action: 'reject_mismatch',
    reason,
    note: `Crypto Checkout: ignored a transaction whose ${what} does not match this order.`,
  });
  if (lookup.transaction_code.toLowerCase() !== stored.transaction_code.toLowerCase()) {
    return reject('transaction_code', 'transaction code');
  }
  if (lookup.fiat_currency !== stored.fiat_currency) return reject('fiat_currency', 'currency');
  if (!sameAmount(lookup.fiat_amount, stored.fiat_amount)) return reject('fiat_amount', 'amount');
  if (
    !sameAddress(lookup.wallet_address, stored.wallet_address, stored.wallet_network) ||
    lookup.wallet_currency !== stored.wallet_currency ||
    lookup.wallet_network !== stored.wallet_network
  ) {
    return reject('wallet', 'destination wallet');
  }
  return null;
}

function sameAmount(wire: number, stored: string): boolean {
  try {
    return compareDecimals(parseDecimal(wire), parseDecimal(stored)) === 0;
  } catch {
    return false;
  }
}

/** EVM hex and bech32 addresses are case-insensitive (case carries only a checksum); base58 is exact. */
function sameAddress(a: string, b: string, network: string): boolean {
  const family = getNetwork(network)?.family;
  const caseInsensitive = family === 'evm' || (family === 'bitcoin' && /^bc1/i.test(a));
  return caseInsensitive ? a.toLowerCase() === b.toLowerCase() : a === b;
}

function usd(value: number): string {
  return parseDecimal(value, 'USD amount');
}
