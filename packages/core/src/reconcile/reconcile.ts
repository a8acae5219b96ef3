import {
  addDecimals,
  compareDecimals,
  decimalPlaces,
  multiplyDecimals,
  parseDecimal,
  subtractDecimalsAtLeastZero,
} from '../money/decimal.js';
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

/** Order states in which the buyer can still pay. */
const OPEN_STATES: readonly OrderState[] = ['awaiting_payment', 'underpaid'];

/** The terms of a newer checkout of the same order that asks another amount or currency. */
export interface ReplacingCheckout {
  transaction_code: string;
  fiat_amount: string;
  fiat_currency: string;
}

/** What the merchant platform's ledger holds for one checkout and its order. */
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
  /** The last action applied for this checkout; absent or null: none. */
  applied_action?: ReconcileActionName | null;
  /** "booked": its payment is booked on the order; "flagged": handed to the owner; absent or null: neither. */
  resolution?: 'booked' | 'flagged' | null;
  /** The platform already holds a payment with this transaction code. Default false. */
  payment_booked?: boolean;
  /** This is the order's newest checkout. Default true. */
  newest?: boolean;
  /** A newer checkout of the order that asks other terms; absent or null: none. */
  replaced_by?: ReplacingCheckout | null;
}

/**
 * The optional `payment_tolerance` of a lookup: the service settles payments short of
 * `amount_in_usd` by up to `percent`; `accepted_shortfall_usd` is what a settled transaction lacks.
 */
export interface PaymentTolerance {
  percent: string;
  accepted_shortfall_usd: string;
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
> & { payment_tolerance?: PaymentTolerance };

export type MismatchReason = 'transaction_code' | 'fiat_amount' | 'fiat_currency' | 'wallet';

/** The action a platform takes for an order, with a note for the merchant's order history. */
export type ReconcileAction =
  | { action: 'none'; reason: string; note: string }
  | {
      action: 'mark_paid';
      reason: 'settled' | 'settled_late' | 'settled_while_held' | 'booked_undone';
      note: string;
    }
  | { action: 'hold_underpaid'; reason: string; note: string; amount_due_usd: string }
  | { action: 'cancel_expired'; reason: 'expired'; note: string }
  | { action: 'hold_late_payment'; reason: 'settled_after_cancel' | 'settled_replaced'; note: string }
  | { action: 'reject_mismatch'; reason: MismatchReason; note: string }
  | { action: 'flag_extra_payment'; reason: 'extra_payment'; note: string }
  | { action: 'record_booked'; reason: 'booked_earlier'; note: string };

export type ReconcileActionName = ReconcileAction['action'];

/**
 * Decides what to do with one checkout of an order given the authoritative transaction lookup
 * (docs/plugin-kernel.md, "The decision"). Pure: no I/O, same inputs give the same action. Ports in
 * other languages follow `vectors/reconcile.json`.
 */
export function decideReconciliation(stored: StoredOrder, lookup: TransactionLookup): ReconcileAction {
  const applied = stored.applied_action ?? null;
  const mismatch = findMismatch(stored, lookup);
  if (mismatch) return applied === 'reject_mismatch' ? alreadyApplied() : mismatch;

  const received = usd(lookup.received_usd);
  const due = usd(lookup.amount_in_usd);
  const state = stored.order_state;

  if (stored.resolution === 'booked') return decideBooked(state, lookup.transaction_code);
  if (state === 'paid') return decidePaidOrder(stored, lookup, received);
  if (stored.resolution === 'flagged') {
    // Handed to the owner (a late or replaced payment, an extra one): never changes the order again by itself.
    return {
      action: 'none',
      reason: 'handed_to_owner',
      note: 'This payment was handed to the shop owner for review.',
    };
  }

  let decision = decideByStatus(state, lookup, received, due);
  const replacement = stored.replaced_by ?? null;
  if (decision.action === 'mark_paid' && replacement) {
    // Paid in full for what the order asked before it changed: the owner decides.
    decision = {
      action: 'hold_late_payment',
      reason: 'settled_replaced',
      note: `Crypto Checkout: transaction ${lookup.transaction_code} settled ${received} USD for ${stored.fiat_amount} ${stored.fiat_currency}, but the order was changed since and now asks ${replacement.fiat_amount} ${replacement.fiat_currency} (transaction ${replacement.transaction_code}). Review the payment before fulfilling or refunding.`,
    };
  }
  if (
    decision.reason === 'already_held' &&
    state === 'late_payment_review' &&
    paysTheOrderAsItIsNow(stored, lookup, received, due)
  ) {
    // The hold was for another payment (a replaced checkout, a late one); this one pays what the
    // order asks now, on time: book it. The held payment stays before the owner.
    const tolerated = toleratedShortfall(lookup, received, due);
    decision = {
      action: 'mark_paid',
      reason: 'settled_while_held',
      note: tolerated
        ? `Crypto Checkout: payment of ${usdCents(received)} USD settled (transaction ${lookup.transaction_code}), the order's current amount, ${tolerated.short} USD short, within the service's payment tolerance of ${tolerated.percent}%. The payment held for review earlier is an extra payment: refund or credit the buyer.`
        : `Crypto Checkout: payment of ${received} USD settled (transaction ${lookup.transaction_code}), the order's current amount in full. The payment held for review earlier is an extra payment: refund or credit the buyer.`,
    };
  }
  if (decision.action !== 'none' && applied === decision.action) return alreadyApplied();
  return decision;
}

/**
 * A checkout whose payment the kernel booked: the ledger is the truth. An order that shows unpaid
 * again was changed by a save that did not see the payment; it is set back to paid.
 */
function decideBooked(state: OrderState, code: string): ReconcileAction {
  if (state === 'paid') return { action: 'none', reason: 'already_paid', note: 'The order is already paid.' };
  if (OPEN_STATES.includes(state)) {
    return {
      action: 'mark_paid',
      reason: 'booked_undone',
      note: `Crypto Checkout: the payment of transaction ${code} was booked, but the order was later saved as unpaid by a change that had not seen the payment. The order is set back to paid.`,
    };
  }
  // Cancelled or held by the merchant after the payment was booked: their decision stands.
  return {
    action: 'none',
    reason: 'already_booked',
    note: 'The payment is booked; the order was changed since by hand.',
  };
}

/**
 * An order that is paid: through this checkout by a run that was interrupted before it recorded
 * so, or through another checkout or by hand, which makes money on this one extra.
 */
function decidePaidOrder(stored: StoredOrder, lookup: TransactionLookup, received: string): ReconcileAction {
  const unresolved = (stored.resolution ?? null) === null;
  if (unresolved && stored.payment_booked === true) {
    return {
      action: 'record_booked',
      reason: 'booked_earlier',
      note: `Crypto Checkout: the payment of transaction ${lookup.transaction_code} is booked on the order.`,
    };
  }
  const holdsMoney =
    ['settled', 'underpaid', 'expired'].includes(lookup.status) && compareDecimals(received, '0') > 0;
  if (unresolved && holdsMoney) {
    return {
      action: 'flag_extra_payment',
      reason: 'extra_payment',
      note: `Crypto Checkout: transaction ${lookup.transaction_code} received ${received} USD, but the order was already paid (through another transaction or by hand). The payment was not booked: refund or credit the buyer.`,
    };
  }
  return { action: 'none', reason: 'already_paid', note: 'The order is already paid.' };
}

/** The transaction's status on an order that is not paid. */
function decideByStatus(
  state: OrderState,
  lookup: TransactionLookup,
  received: string,
  due: string,
): ReconcileAction {
  const tolerated = toleratedShortfall(lookup, received, due);
  const fullyPaid = compareDecimals(received, due) >= 0 || tolerated !== null;
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
      const late = lookup.late ? ', after the checkout had expired' : '';
      return {
        action: 'mark_paid',
        reason: lookup.late ? 'settled_late' : 'settled',
        note: tolerated
          ? `Crypto Checkout: payment of ${usdCents(received)} USD settled (transaction ${lookup.transaction_code})${late}, ${tolerated.short} USD short, within the service's payment tolerance of ${tolerated.percent}%.`
          : `Crypto Checkout: payment of ${received} USD settled (transaction ${lookup.transaction_code})${late}.`,
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
    default:
      // A status this version does not know is never a reason to change an order.
      return {
        action: 'none',
        reason: 'unknown_status',
        note: 'The transaction status is not known to this version; nothing was changed.',
      };
  }
}

/**
 * True when the lookup settles, in full and on time, the order's newest checkout, on which nothing
 * was applied before and which no other checkout replaced: what the order asks now has been paid.
 */
function paysTheOrderAsItIsNow(
  stored: StoredOrder,
  lookup: TransactionLookup,
  received: string,
  due: string,
): boolean {
  return (
    (stored.newest ?? true) &&
    (stored.replaced_by ?? null) === null &&
    (stored.applied_action ?? null) === null &&
    lookup.status === 'settled' &&
    lookup.late !== true &&
    (compareDecimals(received, due) >= 0 || toleratedShortfall(lookup, received, due) !== null)
  );
}

/**
 * How far a settled lookup is short of what was due when the service settled it within its payment
 * tolerance: `received_usd + accepted_shortfall_usd` reaches `amount_in_usd`, and
 * `accepted_shortfall_usd` is at most `amount_in_usd × percent / 100` (exactly, no rounding). Null
 * when it is not short, not settled, carries no tolerance (or one that does not read), or is short by
 * more than the tolerance allows: then it is underpaid as before. `short` has two decimals ("0.40").
 */
function toleratedShortfall(
  lookup: TransactionLookup,
  received: string,
  due: string,
): { short: string; percent: string } | null {
  const tolerance = lookup.payment_tolerance;
  if (lookup.status !== 'settled' || !tolerance || compareDecimals(received, due) >= 0) return null;
  try {
    const percent = parseDecimal(tolerance.percent, 'payment tolerance');
    const accepted = parseDecimal(tolerance.accepted_shortfall_usd, 'accepted shortfall');
    if (compareDecimals(addDecimals(received, accepted), due) < 0) return null;
    // accepted × 100 ≤ due × percent, both products exact.
    const hundredfold = multiplyDecimals(accepted, '100', decimalPlaces(accepted), 'down');
    const ceiling = multiplyDecimals(due, percent, decimalPlaces(due) + decimalPlaces(percent), 'down');
    if (compareDecimals(hundredfold, ceiling) > 0) return null;
    return { short: usdCents(subtractDecimalsAtLeastZero(due, received)), percent };
  } catch {
    return null;
  }
}

/** A USD amount with exactly two decimals ("99.6" → "99.60"). */
function usdCents(amount: string): string {
  return multiplyDecimals(amount, '1', 2, 'half_up');
}

function alreadyApplied(): ReconcileAction {
  return { action: 'none', reason: 'already_applied', note: 'This decision was applied before.' };
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
