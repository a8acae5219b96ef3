import { describe, expect, it } from 'vitest';
import { deriveState, type PaymentFacts, settlingAmount } from './status.js';

const base = {
  amountInUsd: '27.11',
  expiresAt: '2026-11-01T11:00:00.000Z',
  current: { status: 'pending' as const, settledAt: null, late: false, paymentMethod: null },
};
const payment = (amountUsd: string, seenAt: string, confirmAt = seenAt): PaymentFacts => ({
  amountUsd,
  paymentMethod: 'usdc_polygon',
  seenAt,
  confirmAt,
});

describe('deriveState', () => {
  it('is pending without payments and expired after the window', () => {
    expect(deriveState({ ...base, now: '2026-11-01T10:59:59.999Z', payments: [] }).status).toBe('pending');
    expect(deriveState({ ...base, now: '2026-11-01T11:00:00.000Z', payments: [] }).status).toBe('expired');
  });
  it('adds confirmed payments exactly (no float drift at the cent)', () => {
    const payments = ['0.10', '0.20', '26.81'].map((usd) => payment(usd, '2026-11-01T10:10:00.000Z'));
    const state = deriveState({ ...base, now: '2026-11-01T10:20:00.000Z', payments });
    expect(state).toMatchObject({ status: 'settled', receivedUsd: '27.11', late: false });
  });
  it('is underpaid one cent short', () => {
    const state = deriveState({
      ...base,
      now: '2026-11-01T10:20:00.000Z',
      payments: [payment('27.10', '2026-11-01T10:10:00.000Z')],
    });
    expect(state).toMatchObject({ status: 'underpaid', receivedUsd: '27.1' });
  });
  it('waits in processing for an unconfirmed payment, even past expiry when it was seen in time', () => {
    const seen = payment('27.11', '2026-11-01T10:59:00.000Z', '2026-11-01T11:05:00.000Z');
    expect(deriveState({ ...base, now: '2026-11-01T11:01:00.000Z', payments: [seen] }).status).toBe(
      'processing',
    );
    expect(deriveState({ ...base, now: '2026-11-01T11:05:00.000Z', payments: [seen] })).toMatchObject({
      status: 'settled',
      late: false,
      settledAt: '2026-11-01T11:05:00.000Z',
    });
  });
  it('flags a payment seen after expiry as late', () => {
    const state = deriveState({
      ...base,
      now: '2026-11-01T12:00:00.000Z',
      payments: [payment('30', '2026-11-01T11:30:00.000Z')],
    });
    expect(state).toMatchObject({ status: 'settled', late: true });
  });
  it('keeps settled terminal', () => {
    const state = deriveState({
      ...base,
      now: '2026-11-02T12:00:00.000Z',
      current: {
        status: 'settled',
        settledAt: '2026-11-01T10:30:00.000Z',
        late: false,
        paymentMethod: 'card',
      },
      payments: [],
    });
    expect(state).toMatchObject({
      status: 'settled',
      settledAt: '2026-11-01T10:30:00.000Z',
      paymentMethod: 'card',
    });
  });
  it('settles a payment short by no more than the payment tolerance, and not one cent more', () => {
    const at = '2026-11-01T10:10:00.000Z';
    const within = deriveState({
      ...base,
      amountInUsd: '100.00',
      tolerancePercent: '1',
      now: '2026-11-01T10:20:00.000Z',
      payments: [payment('99.00', at)],
    });
    expect(within).toMatchObject({ status: 'settled', receivedUsd: '99' });
    const beyond = deriveState({
      ...base,
      amountInUsd: '100.00',
      tolerancePercent: '1',
      now: '2026-11-01T10:20:00.000Z',
      payments: [payment('98.99', at)],
    });
    expect(beyond.status).toBe('underpaid');
  });
});

describe('settlingAmount', () => {
  it('takes the tolerated shortfall off, rounded down to the cent', () => {
    expect(settlingAmount('100.00', '0')).toBe('100.00');
    expect(settlingAmount('100.00', '1')).toBe('99');
    // 0.5% of 27.11 is 0.13555: only 0.13 is tolerated.
    expect(settlingAmount('27.11', '0.5')).toBe('26.98');
  });
});
