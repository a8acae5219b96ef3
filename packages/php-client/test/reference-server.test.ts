import {
  describeEachPhp,
  phpJson,
  phpString,
  type SandboxService,
  startSandboxService,
} from '@cryptocheckout/php-testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_MOUNTS, LOAD_CLIENT } from './harness.js';

// The PHP client against the real reference server on loopback, through both transports: the four
// calls, a sandbox payment reconciled to "paid", and each error envelope as the right exception.

const WALLET = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
let service: SandboxService;

beforeAll(async () => {
  service = await startSandboxService();
});

afterAll(async () => {
  await service?.close();
});

function checkoutRequest(reference: string, fiatAmount = '25.00') {
  return {
    fiat_amount: fiatAmount,
    fiat_currency: 'EUR',
    external_reference: reference,
    success_url: 'https://shop.example.com/thanks',
    cancel_url: 'https://shop.example.com/cart',
    customer: { wallet_address: WALLET, crypto_currency: 'USDC', crypto_currency_network: 'POLYGON' },
  };
}

interface Outcome {
  result?: Record<string, unknown>;
  error?: { class: string; code?: string; field?: string | null; status?: number; message: string };
}

describeEachPhp(
  'PHP client against the reference server',
  ({ php }) => {
    for (const transport of ['CurlTransport', 'StreamTransport'] as const) {
      describe(transport, () => {
        /** Runs `call` (PHP using `$client`) and reports its result or its exception. */
        const call = async (expression: string): Promise<Outcome> =>
          (await php().runJson(`${LOAD_CLIENT}
            use CryptoCheckout\\Client\\Client;
            use CryptoCheckout\\Client\\Exception\\ApiException;
            use CryptoCheckout\\Client\\Exception\\CryptoCheckoutException;
            use CryptoCheckout\\Client\\Reconciler;
            $client = Client::forServiceOrigin(${phpString(service.url)}, new CryptoCheckout\\Client\\Http\\${transport}(), 5);
            try {
                $outcome = ['result' => ${expression}];
            } catch (CryptoCheckoutException $exception) {
                $outcome = ['error' => ['class' => get_class($exception), 'message' => $exception->getMessage()]];
                if ($exception instanceof ApiException) {
                    $outcome['error'] += [
                        'code' => $exception->getErrorCode(),
                        'field' => $exception->getField(),
                        'status' => $exception->getHttpStatus(),
                    ];
                }
            }
            echo json_encode($outcome, JSON_UNESCAPED_SLASHES);
          `)) as Outcome;

        const create = async (reference: string, fiatAmount = '25.00') => {
          const outcome = await call(
            `$client->createCheckout(${phpJson(checkoutRequest(reference, fiatAmount))})`,
          );
          expect(outcome.error).toBeUndefined();
          return outcome.result as { transaction_code: string; checkout_url: string; status: string };
        };

        it('creates a checkout and looks it up', async () => {
          const created = await create(`${transport}-lookup`);
          expect(created.status).toBe('pending');
          expect(created.checkout_url).toBe(`${service.url}/pay/${created.transaction_code}`);

          const lookup = await call(`$client->getTransaction(${phpString(created.transaction_code)})`);
          expect(lookup.result).toMatchObject({
            transaction_code: created.transaction_code,
            status: 'pending',
            external_reference: `${transport}-lookup`,
            fiat_amount: 25,
            fiat_currency: 'EUR',
            received_usd: 0,
            wallet_address: WALLET,
            wallet_currency: 'USDC',
            wallet_network: 'POLYGON',
            payments: [],
          });
          // The rate the checkout locked comes through as the service sent it, and reads as a price line.
          const { rate } = await service.transaction(created.transaction_code);
          expect(rate).toBeDefined();
          expect(lookup.result?.rate).toEqual(rate);
          const line = await call(
            `CryptoCheckout\\Client\\LockedRate::fromLookup($client->getTransaction(${phpString(created.transaction_code)}))->priceLine('EUR')`,
          );
          expect(line.result).toBe(
            `Priced at 1 EUR = ${rate?.usd_per_unit} USD (${rate?.source}), held until ${rate?.held_until.slice(0, 16).replace('T', ' ')} UTC.`,
          );
        });

        it('prices the payment options and fetches crypto and fiat payment links', async () => {
          const options = await call(`$client->getPaymentOptions('25.00', 'EUR')`);
          const slugs = (options.result?.payment_options as Array<{ slug: string; kind: string }>).map(
            (o) => o.slug,
          );
          expect(options.result).toMatchObject({ fiat_amount: 25, fiat_currency: 'EUR' });
          expect(slugs).toEqual(expect.arrayContaining(['usdc_polygon', 'card']));

          const created = await create(`${transport}-links`);
          const crypto = await call(
            `$client->getPaymentLink(${phpString(created.transaction_code)}, 'usdc_polygon')`,
          );
          expect(crypto.result).toMatchObject({
            kind: 'crypto',
            payment_method: 'usdc_polygon',
            asset: 'USDC',
            network: 'POLYGON',
          });
          expect(crypto.result?.amount).toMatch(/^\d+(\.\d+)?$/);
          const fiat = await call(`$client->getPaymentLink(${phpString(created.transaction_code)}, 'card')`);
          expect(fiat.result).toMatchObject({ kind: 'fiat', payment_method: 'card' });
          expect(fiat.result?.redirect_url).toMatch(/^https?:\/\//);
        });

        it('reconciles a full sandbox payment to paid, and a partial one to a hold', async () => {
          for (const [size, action] of [
            ['full', 'mark_paid'],
            ['partial', 'hold_underpaid'],
          ] as const) {
            const created = await create(`${transport}-${size}`);
            await service.pay(created.transaction_code, size);
            const stored = {
              transaction_code: created.transaction_code,
              fiat_amount: '25.00',
              fiat_currency: 'EUR',
              wallet_address: WALLET,
              wallet_currency: 'USDC',
              wallet_network: 'POLYGON',
              order_state: 'awaiting_payment',
            };
            const decision = await call(
              `Reconciler::decide(${phpJson(stored)}, $client->getTransaction(${phpString(created.transaction_code)}))`,
            );
            expect(decision.result).toMatchObject({ action });
          }
        });

        it('turns each error envelope into an ApiException', async () => {
          const created = await create(`${transport}-errors`, '1.00');
          const settled = await create(`${transport}-settled`);
          await service.pay(settled.transaction_code, 'full');
          const cases: Array<[string, { code: string; status: number; field?: string | null }]> = [
            [
              `$client->createCheckout(${phpJson({ ...checkoutRequest('x'), customer: { ...checkoutRequest('x').customer, wallet_address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' } })})`,
              { code: 'invalid_request', status: 400, field: 'customer.wallet_address' },
            ],
            [
              `$client->getTransaction('not-a-code')`,
              { code: 'invalid_request', status: 400, field: 'transaction_code' },
            ],
            [
              `$client->getTransaction('00000000-0000-4000-8000-000000000000')`,
              { code: 'not_found', status: 404 },
            ],
            [
              `$client->getPaymentOptions('12,50', 'EUR')`,
              { code: 'invalid_request', status: 400, field: 'fiat_amount' },
            ],
            [
              `$client->getPaymentLink(${phpString(created.transaction_code)}, 'usdc_ethereum')`,
              { code: 'unprocessable', status: 422, field: 'payment_method' },
            ],
            [
              `$client->getPaymentLink(${phpString(settled.transaction_code)}, 'usdc_polygon')`,
              { code: 'conflict', status: 409 },
            ],
          ];
          for (const [expression, expected] of cases) {
            const outcome = await call(expression);
            expect(outcome.error, expression).toMatchObject({
              class: 'CryptoCheckout\\Client\\Exception\\ApiException',
              ...expected,
            });
            expect(outcome.error?.message.length, expression).toBeGreaterThan(5);
          }
        });
      });
    }
  },
  { mounts: CLIENT_MOUNTS },
);
