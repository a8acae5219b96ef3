import { refundSchema } from '@cryptocheckout/core';
import { describeEachPhp, phpJson, phpString } from '@cryptocheckout/php-testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_MOUNTS, LOAD_CLIENT } from './harness.js';
import { FAKE_MERCHANT_KEY, type RefundServiceFake, startRefundServiceFake } from './refund-service-fake.js';

// The PHP client's refund calls over both transports against the refund service on loopback
// (test/refund-service-fake.ts, until the reference server has refund routes), and the refund
// shapes and the refund.paid webhook body checked without a network.

const CODE = '7d3f2a10-5b6c-4e8d-9f01-23456789abcd';
let fake: RefundServiceFake;

beforeAll(async () => {
  fake = await startRefundServiceFake();
});

afterAll(async () => {
  await fake?.close();
});

async function control(path: string, body: unknown): Promise<void> {
  const response = await fetch(`${fake.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
}

interface Outcome {
  result?: Record<string, unknown>;
  error?: { class: string; message: string; code?: string; field?: string | null; status?: number };
}

const REFUND = refundSchema.parse({
  refund_id: '0b7c6f1e-2d3a-4e5f-8a9b-0c1d2e3f4a5b',
  transaction_code: CODE,
  external_reference: 'order-1001',
  reference: 'wc-77',
  status: 'awaiting_payment',
  amount: '12.340001',
  asset: 'USDC',
  network: 'POLYGON',
  fiat_amount: null,
  fiat_currency: 'EUR',
  reason: null,
  address: '0x1111111111111111111111111111111111111111',
  payment_request: { text: 'Send 12.340001 USDC', uri: 'ethereum:0x3c49@137/transfer' },
  tx_id: null,
  tx_url: null,
  created_at: '2026-11-01T10:00:00.000Z',
  claim_expires_at: '2026-12-01T10:00:00.000Z',
  address_confirmed_at: '2026-11-01T10:05:00.000Z',
  paid_at: null,
  cancelled_at: null,
  history: [
    { status: 'awaiting_address', at: '2026-11-01T10:00:00.000Z', note: null },
    { status: 'awaiting_payment', at: '2026-11-01T10:05:00.000Z', note: null },
  ],
});

describeEachPhp(
  'PHP client refunds',
  ({ php }) => {
    /** Runs `expression` (PHP using `$client`) and reports its result or its exception. */
    const call = async (transport: string, expression: string): Promise<Outcome> =>
      (await php().runJson(`${LOAD_CLIENT}
        use CryptoCheckout\\Client\\Client;
        use CryptoCheckout\\Client\\Exception\\ApiException;
        use CryptoCheckout\\Client\\Exception\\CryptoCheckoutException;
        $client = Client::forServiceOrigin(${phpString(fake.url)}, new CryptoCheckout\\Client\\Http\\${transport}(), 5);
        try {
            $outcome = ['result' => ${expression}];
        } catch (CryptoCheckoutException | InvalidArgumentException $exception) {
            $outcome = ['error' => ['class' => get_class($exception), 'message' => $exception->getMessage()]];
            if ($exception instanceof ApiException) {
                $outcome['error'] += ['code' => $exception->getErrorCode(), 'field' => $exception->getField(), 'status' => $exception->getHttpStatus()];
            }
        }
        echo json_encode($outcome, JSON_UNESCAPED_SLASHES);
      `)) as Outcome;

    for (const transport of ['CurlTransport', 'StreamTransport'] as const) {
      describe(transport, () => {
        const code =
          transport === 'CurlTransport'
            ? '11111111-0000-4000-8000-000000000001'
            : '22222222-0000-4000-8000-000000000002';
        const create = (request: Record<string, unknown>, credential = FAKE_MERCHANT_KEY) =>
          call(
            transport,
            `$client->createRefund(${phpJson({ transaction_code: code, ...request })}, ${phpString(credential)})`,
          );

        beforeAll(async () => {
          await control('/__fake/transactions', {
            transaction_code: code,
            received: '100',
            external_reference: 'order-1001',
            rate: '1.08',
          });
        });

        it('creates a refund with the credential as a Bearer token, and answers the same one for the same reference', async () => {
          const before = fake.requests.length;
          const first = await create({
            amount: '12.340001',
            currency: 'USDC',
            reference: `${transport}-77`,
            reason: 'Damaged',
          });
          const again = await create({ amount: '12.340001', currency: 'USDC', reference: `${transport}-77` });
          expect(first.error).toBeUndefined();
          expect(first.result).toMatchObject({
            transaction_code: code,
            reference: `${transport}-77`,
            status: 'awaiting_address',
            amount: '12.340001',
            asset: 'USDC',
            network: 'POLYGON',
            fiat_amount: null,
            reason: 'Damaged',
            created: true,
          });
          expect(first.result?.claim_url).toMatch(new RegExp(`^${fake.url}/refund/`));
          expect(again.result).toMatchObject({ refund_id: first.result?.refund_id, created: false });
          expect(fake.requests.slice(before)).toEqual([
            { method: 'POST', path: '/api/refunds', authorization: `Bearer ${FAKE_MERCHANT_KEY}` },
            { method: 'POST', path: '/api/refunds', authorization: `Bearer ${FAKE_MERCHANT_KEY}` },
          ]);

          const id = String(first.result?.refund_id);
          const lookup = await call(transport, `$client->getRefund(${phpString(id)})`);
          const { claim_url: _claim, created: _created, ...refund } = first.result ?? {};
          expect(lookup.result).toEqual(refund);
          const list = await call(transport, `$client->refundsOf(${phpString(code)})`);
          expect(list.result).toMatchObject({ transaction_code: code, asset: 'USDC', received: '100' });
          expect((list.result?.refunds as unknown[]).length).toBeGreaterThanOrEqual(1);
          expect(list.result?.refundable).toMatch(/^\d+(\.\d+)?$/);
          // Keyless lookups carry no credential.
          expect(fake.requests.slice(-2).map((request) => request.authorization)).toEqual([null, null]);
        });

        it('turns each refusal into an ApiException with its code, field and message', async () => {
          const cases: Array<
            [() => Promise<Outcome>, { code: string; status: number; field?: string | null }]
          > = [
            [
              () => create({ amount: '1000', currency: 'USDC' }),
              { code: 'unprocessable', status: 422, field: 'amount' },
            ],
            [
              () => create({ amount: '1', currency: 'GBP' }),
              { code: 'unprocessable', status: 422, field: 'currency' },
            ],
            [
              () => create({ amount: '12,50', currency: 'USDC' }),
              { code: 'invalid_request', status: 400, field: 'amount' },
            ],
            [
              () => create({ amount: '1', currency: 'USDC' }, 'ccm_wrong'),
              { code: 'unauthorized', status: 401, field: null },
            ],
            [
              () => call(transport, `$client->getRefund('0b7c6f1e-2d3a-4e5f-8a9b-0c1d2e3f4a5b')`),
              { code: 'not_found', status: 404, field: null },
            ],
          ];
          const messages: string[] = [];
          for (const [outcome, expected] of cases) {
            const { error } = await outcome();
            expect(error).toMatchObject({
              class: 'CryptoCheckout\\Client\\Exception\\ApiException',
              ...expected,
            });
            messages.push(error?.message ?? '');
          }
          expect(messages[0]).toMatch(/^amount is more than can be refunded: at most [\d.]+ USDC\.$/);
        });

        it('cancels a refund once; a second cancel is a conflict', async () => {
          const created = await create({ amount: '1', currency: 'USDC', reference: `${transport}-cancel` });
          const id = String(created.result?.refund_id);
          const cancelled = await call(
            transport,
            `$client->cancelRefund(${phpString(id)}, ${phpString(FAKE_MERCHANT_KEY)}, 'asked twice')`,
          );
          expect(cancelled.result).toMatchObject({ refund_id: id, status: 'cancelled' });
          const again = await call(
            transport,
            `$client->cancelRefund(${phpString(id)}, ${phpString(FAKE_MERCHANT_KEY)})`,
          );
          expect(again.error).toMatchObject({ code: 'conflict', status: 409 });
        });

        it('refuses a blank or multi-word credential before sending anything, and reports a service that is down', async () => {
          const before = fake.requests.length;
          const blank = await create({ amount: '1', currency: 'USDC' }, '  ');
          const spaced = await create({ amount: '1', currency: 'USDC' }, 'ccm_a\r\nX-Other: 1');
          expect(blank.error).toMatchObject({ class: 'InvalidArgumentException' });
          expect(blank.error?.message).toContain('merchant key');
          expect(spaced.error).toMatchObject({ class: 'InvalidArgumentException' });
          expect(fake.requests.length).toBe(before);

          await control('/__fake/down', { down: true });
          try {
            const down = await create({ amount: '1', currency: 'USDC' });
            expect(down.error).toMatchObject({
              class: 'CryptoCheckout\\Client\\Exception\\NetworkException',
            });
          } finally {
            await control('/__fake/down', { down: false });
          }
        });
      });
    }

    describe('shapes', () => {
      const check = async (expression: string) =>
        (await php().runJson(`${LOAD_CLIENT}
          use CryptoCheckout\\Client\\Exception\\CryptoCheckoutException;
          use CryptoCheckout\\Client\\ResponseValidator;
          use CryptoCheckout\\Client\\WebhookParser;
          try {
              echo json_encode(['result' => ${expression}], JSON_UNESCAPED_SLASHES);
          } catch (CryptoCheckoutException $e) {
              echo json_encode(['error' => ['class' => get_class($e), 'field' => method_exists($e, 'getField') ? $e->getField() : null, 'message' => $e->getMessage()]]);
          }
        `)) as { result?: unknown; error?: { class: string; field: string | null; message: string } };

      it('returns the documented refund shapes, amounts as strings, unknown members dropped', async () => {
        const data = phpJson({ ...REFUND, added_later: true });
        expect((await check(`ResponseValidator::refund(${data})`)).result).toEqual(REFUND);
        const created = { ...REFUND, claim_url: 'https://pay.example.com/refund/abc', created: true };
        expect((await check(`ResponseValidator::refundCreated(${phpJson(created)})`)).result).toEqual(
          created,
        );
        const list = {
          transaction_code: CODE,
          asset: 'USDC',
          network: 'POLYGON',
          received: '25',
          refundable: '12.659999',
          refunds: [REFUND],
        };
        expect((await check(`ResponseValidator::refundsOfTransaction(${phpJson(list)})`)).result).toEqual(
          list,
        );
      });

      it.each([
        ['amount', { ...REFUND, amount: 12.340001 }],
        ['status', { ...REFUND, status: 'refunded' }],
        ['refund_id', { ...REFUND, refund_id: 'r-1' }],
        ['payment_request.uri', { ...REFUND, payment_request: { text: 'Send' } }],
        [
          'history.1.at',
          { ...REFUND, history: [REFUND.history[0], { status: 'paid', at: 'yesterday', note: null }] },
        ],
        ['tx_url', { ...REFUND, tx_url: 'ftp://example.com/tx' }],
      ])('names the offending member %s', async (field, data) => {
        expect((await check(`ResponseValidator::refund(${phpJson(data)})`)).error).toMatchObject({
          class: 'CryptoCheckout\\Client\\Exception\\UnexpectedResponseException',
          field,
        });
      });

      it('reads the refund.paid webhook as a hint, and tells its event from transaction.settled', async () => {
        const body = {
          event: 'refund.paid',
          refund_id: REFUND.refund_id,
          transaction_code: CODE,
          external_reference: 'order-1001',
          reference: null,
          amount: '12.340001',
          asset: 'USDC',
          network: 'POLYGON',
          address: '0x1111111111111111111111111111111111111111',
          tx_id: `0x${'ab'.repeat(32)}`,
          timestamp: 1793527200,
        };
        const raw = (value: unknown) => phpString(JSON.stringify(value));
        expect((await check(`WebhookParser::parseRefundPaid(${raw({ ...body, extra: 1 })})`)).result).toEqual(
          body,
        );
        expect(
          (await check(`WebhookParser::parseRefundPaid(${raw({ ...body, tx_id: undefined })})`)).error,
        ).toMatchObject({
          class: 'CryptoCheckout\\Client\\Exception\\InvalidWebhookException',
          field: 'tx_id',
        });
        expect(
          (await check(`WebhookParser::parseRefundPaid(${raw({ ...body, amount: 12.34 })})`)).error?.field,
        ).toBe('amount');
        expect(
          (
            await check(
              `[WebhookParser::eventOf(${raw(body)}), WebhookParser::eventOf(${raw({ event: 'transaction.settled' })}), WebhookParser::eventOf('[1]'), WebhookParser::eventOf('{')]`,
            )
          ).result,
        ).toEqual(['refund.paid', 'transaction.settled', null, null]);
      });
    });
  },
  { mounts: CLIENT_MOUNTS },
);
