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
  const lookupWith = (status: Transaction['status'], dueCents: number, receivedCents: number) => ({
    ...base.lookup,
    status,
    amount_in_usd: dueCents / 100,
    received_usd: receivedCents / 100,
  });

  it('never marks paid unless settled with received ≥ due', () => {
    fc.assert(
      fc.property(
        statuses,
        cents,
        cents,
        fc.constantFrom(...ORDER_STATES),
        (status, due, received, state) => {
          const lookup = lookupWith(status, due, received);
          const decision = decideReconciliation({ ...base.stored, order_state: state }, lookup);
          if (decision.action === 'mark_paid') {
            expect(status).toBe('settled');
            expect(received).toBeGreaterThanOrEqual(due);
            expect(['awaiting_payment', 'underpaid']).toContain(state);
          }
        },
      ),
    );
  });

  it('is idempotent: applying the decided state again yields no action', () => {
    const nextState = {
      mark_paid: 'paid',
      hold_underpaid: 'underpaid',
      cancel_expired: 'cancelled',
      hold_late_payment: 'late_payment_review',
    } as const;
    fc.assert(
      fc.property(
        statuses,
        cents,
        cents,
        fc.constantFrom(...ORDER_STATES),
        (status, due, received, state) => {
          const lookup = lookupWith(status, due, received);
          const first = decideReconciliation({ ...base.stored, order_state: state }, lookup);
          if (first.action === 'none' || first.action === 'reject_mismatch') return;
          const second = decideReconciliation(
            { ...base.stored, order_state: nextState[first.action] },
            lookup,
          );
          expect(second.action).toBe('none');
        },
      ),
    );
  });
});
