/**
 * Every money field of every endpoint, fuzzed with amounts: bad input answers 400 naming the field
 * (or is taken, or refused for what it asks, 422), never 5xx (docs/api.md "Amounts"). Each request
 * reaches the field's own checks: a settled order and the operator token for the refunds, an open
 * checkout for the sandbox payment.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutBody, startTestServer, type TestServer } from './helpers.js';
import { OPERATOR_TOKEN } from './operator-helpers.js';
import { AS_OPERATOR } from './refund-helpers.js';

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const RUNS_PER_FIELD = 60;

/** Amounts as JSON values: huge, tiny, long, in exponent form, negative, not numbers, other digits. */
const amountValue: fc.Arbitrary<unknown> = fc.oneof(
  // Amounts every field takes, so the answers after the checks are reached too.
  fc.constantFrom('10', '2.5', '0.5', 3),
  fc.constantFrom(
    '1000000000000000',
    '9999999999999999999999999999',
    '999999999999999',
    '999999999999999.99',
    '0.000000000000000000000000001',
    `1.${'0'.repeat(200)}1`,
    '1e5',
    '1E-7',
    '-5',
    '-0',
    '+5',
    '0',
    '00012.5',
    '12.',
    '.5',
    '1,5',
    '1 000',
    '١٢٣',
    '１２',
    '12\u00a0',
    'NaN',
    'Infinity',
    '0x10',
    '',
    ' 5',
  ),
  fc.bigInt({ min: 0n, max: 10n ** 40n }).map(String),
  fc
    .tuple(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.nat({ max: 10 ** 9 }), fc.nat(40))
    .map(([whole, fraction, zeros]) => `${whole}.${'0'.repeat(zeros)}${fraction}`),
  fc.double({ noNaN: true }),
  fc.constantFrom(1e300, -1e300, 5e-324, 1e16, 12.345, Number.MAX_SAFE_INTEGER),
  fc.constantFrom(null, true, [], {}, ['12']),
);

interface MoneyField {
  /** How the field is named in a 400. */
  field: string;
  send(value: unknown): Promise<{ status: number; json: any }>;
}

describe('money fields under fuzzing', () => {
  let server: TestServer;
  let settled: string;
  let open: string;
  let fields: MoneyField[];

  beforeAll(async () => {
    server = await startTestServer({ operatorToken: OPERATOR_TOKEN });
    settled = (
      await server.client.createCheckout(checkoutBody({ fiat_currency: 'EUR', fiat_amount: '25.00' }))
    ).transaction_code;
    await server.post('/api/sandbox/pay', {
      transaction_code: settled,
      payment_method: 'usdc_polygon',
      confirmed: true,
    });
    open = (await server.client.createCheckout(checkoutBody())).transaction_code;
    const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
    fields = [
      {
        field: 'fiat_amount',
        send: (value) => server.post('/api/checkout', checkoutBody({ fiat_amount: value })),
      },
      {
        field: 'fiat_amount',
        send: (value) =>
          server.get(`/api/payment_options?fiat_amount=${encodeURIComponent(text(value))}&fiat_currency=EUR`),
      },
      {
        field: 'amount_usd',
        send: (value) =>
          server.post('/api/sandbox/pay', {
            transaction_code: open,
            payment_method: 'usdc_polygon',
            amount_usd: value,
            confirmed: false,
          }),
      },
      ...['EUR', 'USDC'].map((currency) => ({
        field: 'amount',
        send: (value: unknown) =>
          server.post('/api/refunds', { transaction_code: settled, amount: value, currency }, AS_OPERATOR),
      })),
    ];
  });
  afterAll(async () => {
    await server?.dispose();
  });

  it('answers every amount with a 2xx, a 422, or a 400 naming the field; never a 5xx', async () => {
    console.log(`money fields: seed ${SEED} (replay with FUZZ_SEED=${SEED})`);
    const values = fc.sample(amountValue, { seed: SEED, numRuns: RUNS_PER_FIELD });
    const problems: string[] = [];
    const statuses: Record<number, number> = {};
    for (const [index, { field, send }] of fields.entries()) {
      for (const value of values) {
        const { status, json } = await send(value);
        statuses[status] = (statuses[status] ?? 0) + 1;
        const named = status !== 400 || json?.error?.field === field;
        if (status >= 500 || !named || ![200, 201, 400, 422].includes(status)) {
          problems.push(
            `#${index} ${field}=${JSON.stringify(value)?.slice(0, 80)} → ${status} ${JSON.stringify(json).slice(0, 200)}`,
          );
        }
      }
    }
    console.log(
      `money fields: ${values.length} values × ${fields.length} fields by status ${JSON.stringify(statuses)}`,
    );
    expect(problems, `seed ${SEED}`).toEqual([]);
    // Each field refused something: the values do reach the checks under test.
    expect(statuses[400]).toBeGreaterThan(fields.length);
  });

  it('refuses a refund beyond 15 integer digits with a 400 naming amount, in the asset and in fiat', async () => {
    for (const [amount, currency] of [
      ['1000000000000000', 'USDC'],
      ['1000000000000000', 'EUR'],
      ['999999999999999', 'EUR'],
    ] as const) {
      const answer = await server.post(
        '/api/refunds',
        { transaction_code: settled, amount, currency },
        AS_OPERATOR,
      );
      expect(answer.status, `${amount} ${currency}`).toBeLessThan(500);
      if (answer.status === 400) expect(answer.json.error.field).toBe('amount');
    }
    const tooLong = await server.post(
      '/api/refunds',
      { transaction_code: settled, amount: '1000000000000000', currency: 'USDC' },
      AS_OPERATOR,
    );
    expect(tooLong.status).toBe(400);
    expect(tooLong.json.error).toMatchObject({ code: 'invalid_request', field: 'amount' });
    expect(tooLong.json.error.message).toContain('at most 15 digits before the decimal point');
  });
});
