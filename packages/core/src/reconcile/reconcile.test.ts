import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Transaction, transactionSchema } from '../schemas/transaction.js';
import { decideReconciliation, ORDER_STATES, type StoredOrder } from './reconcile.js';

interface ReconcileVector {
  name: string;
  stored: StoredOrder;
  lookup: Transaction;
  expected: { action: string; reason?: string };
}
const { cases } = JSON.parse(
  readFileSync(new URL('../../vectors/reconcile.json', import.meta.url), 'utf8'),
) as {
  cases: ReconcileVector[];
};

describe('reconcile vectors', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, vector) => {
    expect(transactionSchema.safeParse(vector.lookup).success).toBe(true);
    const decision = decideReconciliation(vector.stored, vector.lookup);
    expect({ action: decision.action, reason: decision.reason }).toEqual({
      action: vector.expected.action,
      reason: vector.expected.reason ?? decision.reason,
    });
    expect(decision.note.length).toBeGreaterThan(0);
  });
});

describe('reconcile safety properties', () => {
  const base = cases[0]!;
  const statuses = fc.constantFrom('pending', 'processing', 'underpaid', 'settled', 'expired' as const);
  const cents = fc.integer({ min: 0, max: 10_000_000 });
  const lookupWith = (
    status: Transaction['status'],
    dueCents: number,
    receivedCents: number,
    late: boolean,
  ) => ({
    ...base.lookup,
    status,
    late,
    amount_in_usd: dueCents / 100,
    received_usd: receivedCents / 100,
  });
  /** The ledger's record of this checkout and its order, as the kernel keeps it. */
  const context = fc.record({
    order_state: fc.constantFrom(...ORDER_STATES),
    applied_action: fc.constantFrom(
      null,
      'mark_paid',
      'hold_underpaid',
      'cancel_expired',
      'hold_late_payment' as const,
    ),
    resolution: fc.constantFrom(null, 'booked', 'flagged' as const),
    payment_booked: fc.boolean(),
    newest: fc.boolean(),
    replaced: fc.boolean(),
  });
  const storedWith = (ctx: {
    order_state: StoredOrder['order_state'];
    applied_action: StoredOrder['applied_action'];
    resolution: StoredOrder['resolution'];
    payment_booked: boolean;
    newest: boolean;
    replaced: boolean;
  }): StoredOrder => ({
    ...base.stored,
    order_state: ctx.order_state,
    applied_action: ctx.applied_action,
    resolution: ctx.resolution,
    payment_booked: ctx.payment_booked,
    newest: ctx.newest,
    replaced_by: ctx.replaced
      ? { transaction_code: 'newer', fiat_amount: '30.00', fiat_currency: 'EUR' }
      : null,
  });

  it('marks paid only for a full settlement of the order as it is now, or to repair a booked payment', () => {
    fc.assert(
      fc.property(statuses, cents, cents, fc.boolean(), context, (status, due, received, late, ctx) => {
        const decision = decideReconciliation(storedWith(ctx), lookupWith(status, due, received, late));
        if (decision.action !== 'mark_paid') return;
        if (decision.reason === 'booked_undone') {
          expect(ctx.resolution).toBe('booked');
          expect(['awaiting_payment', 'underpaid']).toContain(ctx.order_state);
          return;
        }
        expect(status).toBe('settled');
        expect(received).toBeGreaterThanOrEqual(due);
        expect(ctx.replaced).toBe(false);
        expect(ctx.resolution).toBeNull();
        if (decision.reason === 'settled_while_held') {
          expect(ctx.order_state).toBe('late_payment_review');
          expect({ newest: ctx.newest, late, applied: ctx.applied_action }).toEqual({
            newest: true,
            late: false,
            applied: null,
          });
        } else {
          expect(['awaiting_payment', 'underpaid']).toContain(ctx.order_state);
        }
      }),
    );
  });

  it('does not book a held order from a checkout the order replaced, even one marked newest (a property counterexample)', () => {
    // Seed 963714098 found it: the ledger never stores this pair, but the decision must not rest on that.
    const decision = decideReconciliation(
      storedWith({
        order_state: 'late_payment_review',
        applied_action: null,
        resolution: null,
        payment_booked: false,
        newest: true,
        replaced: true,
      }),
      lookupWith('settled', 0, 0, false),
    );
    expect(decision.action).toBe('none');
  });

  it("books a settlement short of what is due only within the service's payment tolerance, computed exactly", () => {
    // Percent with up to two decimals (0.01 % to 10 %), amounts in cents: the rule in integers.
    const percents = fc.integer({ min: 0, max: 1_000 });
    fc.assert(
      fc.property(cents, cents, percents, cents, (due, received, percentHundredths, acceptedCents) => {
        const percent = (percentHundredths / 100).toString();
        const accepted = (acceptedCents / 100).toFixed(2);
        const decision = decideReconciliation(base.stored, {
          ...lookupWith('settled', due, received, false),
          payment_tolerance: { percent, accepted_shortfall_usd: accepted },
        });
        // accepted ≤ due × percent / 100  ⇔  accepted(cents) × 10 000 ≤ due(cents) × percent(hundredths)
        const tolerated =
          received + acceptedCents >= due &&
          BigInt(acceptedCents) * 10_000n <= BigInt(due) * BigInt(percentHundredths);
        const paid = received >= due || tolerated;
        expect(decision.action).toBe(paid ? 'mark_paid' : 'hold_underpaid');
        if (paid && received < due) {
          expect(decision.note).toContain(
            `, ${((due - received) / 100).toFixed(2)} USD short, within the service's payment tolerance of ${percent}%.`,
          );
        } else {
          expect(decision.note).not.toContain('payment tolerance');
        }
      }),
    );
  });

  it('says how much is short when it books within the payment tolerance', () => {
    const decision = decideReconciliation(base.stored, {
      ...lookupWith('settled', 10_000, 9_960, false),
      payment_tolerance: { percent: '1', accepted_shortfall_usd: '0.4' },
    });
    expect(decision).toEqual({
      action: 'mark_paid',
      reason: 'settled',
      note: `Crypto Checkout: payment of 99.60 USD settled (transaction ${base.lookup.transaction_code}), 0.40 USD short, within the service's payment tolerance of 1%.`,
    });
    // An unreadable tolerance is no tolerance: held as underpaid.
    const unreadable = decideReconciliation(base.stored, {
      ...lookupWith('settled', 10_000, 9_960, false),
      payment_tolerance: { percent: 'one', accepted_shortfall_usd: '0.4' },
    });
    expect(unreadable.action).toBe('hold_underpaid');
  });

  it('is idempotent: once the kernel applied a decision, the same lookup yields no action', () => {
    const nextState = {
      mark_paid: 'paid',
      hold_underpaid: 'underpaid',
      cancel_expired: 'cancelled',
      hold_late_payment: 'late_payment_review',
    } as const;
    const resolutionAfter: Record<string, StoredOrder['resolution']> = {
      mark_paid: 'booked',
      record_booked: 'booked',
      hold_late_payment: 'flagged',
      reject_mismatch: 'flagged',
      flag_extra_payment: 'flagged',
    };
    fc.assert(
      fc.property(statuses, cents, cents, fc.boolean(), context, (status, due, received, late, ctx) => {
        const lookup = lookupWith(status, due, received, late);
        const stored = storedWith(ctx);
        const first = decideReconciliation(stored, lookup);
        if (first.action === 'none') return;
        const applied = first.action === 'record_booked' ? 'mark_paid' : first.action;
        const second = decideReconciliation(
          {
            ...stored,
            order_state:
              applied in nextState ? nextState[applied as keyof typeof nextState] : stored.order_state,
            applied_action: applied,
            resolution: resolutionAfter[first.action] ?? stored.resolution,
            payment_booked: stored.payment_booked || applied === 'mark_paid',
          },
          lookup,
        );
        expect(second.action).toBe('none');
      }),
    );
  });
});
