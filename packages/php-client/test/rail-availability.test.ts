import {
  describeEachPhp,
  phpJson,
  phpString,
  type SandboxService,
  startSandboxService,
} from '@cryptocheckout/php-testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_MOUNTS, LOAD_CLIENT } from './harness.js';

// Kernel\RailAvailability: whether GET /payment_options leaves the buyer anything to pay with, and
// whether it offers the merchant's own settlement (assertPayable: by that option alone, its bounds
// told apart from the service's other reasons), read from fixed answers and from the real reference
// server (whose smallest rail takes 0.50 USD).

let service: SandboxService;

beforeAll(async () => {
  service = await startSandboxService();
});

afterAll(async () => {
  await service?.close();
});

const option = (
  slug: string,
  available: boolean,
  minUsd: number | string,
  more: Record<string, unknown> = {},
) => ({
  slug,
  name: slug,
  kind: slug === 'card' ? 'fiat' : 'crypto',
  asset: 'USDC',
  network: 'POLYGON',
  amount: '1',
  amount_usd: 1,
  min_usd: minUsd,
  max_usd: 100000,
  available,
  ...more,
});

/** How assertPayable judged an answer for a settlement: passed, or the exception and its words. */
interface Verdict {
  payable: boolean;
  class?: string;
  message?: string;
  below?: boolean;
  minimum?: string | null;
  reason?: string | null;
}

interface Reading {
  any: boolean;
  slugs: string[];
  smallest: string | null;
}

describeEachPhp(
  'kernel RailAvailability',
  ({ php }) => {
    const read = (data: string) =>
      php().runJson(`${LOAD_CLIENT}
        use CryptoCheckout\\Client\\Kernel\\RailAvailability;
        $data = ${data};
        echo json_encode(['any' => RailAvailability::anyAvailable($data), 'slugs' => RailAvailability::availableSlugs($data), 'smallest' => RailAvailability::smallestMinimumUsd($data)]);
      `) as Promise<Reading>;

    describe('reading an answer', () => {
      it('is available when one rail is, crypto or fiat, and names those rails in order', async () => {
        const data = {
          payment_options: [
            option('usdc_ethereum', false, 10),
            option('usdc_polygon', true, 0.5),
            option('card', true, 1),
          ],
        };
        expect(await read(phpJson(data))).toEqual({
          any: true,
          slugs: ['usdc_polygon', 'card'],
          smallest: '0.50',
        });
      });

      it('is not available when no rail is, or the list is empty or missing; the smallest minimum compares exactly', async () => {
        const none = {
          payment_options: [
            option('usdt_tron', false, 1),
            option('usdc_polygon', false, 0.5),
            option('btc', false, '5'),
          ],
        };
        expect(await read(phpJson(none))).toEqual({ any: false, slugs: [], smallest: '0.50' });
        expect(await read(phpJson({ payment_options: [] }))).toEqual({
          any: false,
          slugs: [],
          smallest: null,
        });
        expect(await read('[]')).toEqual({ any: false, slugs: [], smallest: null });
        // "available" must be true itself, not a truthy string; a malformed minimum is skipped.
        const odd = {
          payment_options: [{ ...option('x', false, 'n/a'), available: 'yes' }, option('y', false, 0.1)],
        };
        expect(await read(phpJson(odd))).toEqual({ any: false, slugs: [], smallest: '0.10' });
      });
    });

    describe("judging the merchant's settlement", () => {
      const judge = (data: string, amount: string, asset: string, network: string) =>
        php().runJson(`${LOAD_CLIENT}
          use CryptoCheckout\\Client\\Kernel\\RailAvailability;
          use CryptoCheckout\\Client\\Exception\\NoRailAvailableException;
          use CryptoCheckout\\Client\\Exception\\SettlementUnavailableException;
          try {
              RailAvailability::assertPayable(${data}, ${phpString(amount)}, 'EUR', ${phpString(asset)}, ${phpString(network)});
              echo json_encode(['payable' => true]);
          } catch (NoRailAvailableException $e) {
              echo json_encode(['payable' => false, 'class' => 'NoRailAvailableException', 'message' => $e->getMessage(), 'below' => $e->isBelowMinimum(), 'minimum' => $e->getSmallestMinimumUsd()]);
          } catch (SettlementUnavailableException $e) {
              echo json_encode(['payable' => false, 'class' => 'SettlementUnavailableException', 'message' => $e->getMessage(), 'reason' => $e->getServiceReason()]);
          }
        `) as Promise<Verdict>;

      // A live server that watches only Solana, answering for 42.00 EUR (45.36 USD).
      const solanaOnly = phpJson({
        amount_in_usd: 45.36,
        payment_options: [
          option('usdc_polygon', false, 0.5, {
            unavailable_reason: 'Not offered: this server does not watch USDC on Polygon PoS.',
          }),
          option('usdc_ethereum', false, 10, { network: 'ETHEREUM', unavailable_reason: 'Not offered: x.' }),
          option('usdc_solana', true, 0.5, { network: 'SOLANA' }),
          option('card', true, 1, { asset: 'EUR', network: null }),
        ],
      });

      it('finds the option of the settlement by asset and network, whatever their case, and never a fiat rail', async () => {
        const found = await php().runJson(`${LOAD_CLIENT}
          use CryptoCheckout\\Client\\Kernel\\RailAvailability;
          $data = ${solanaOnly};
          echo json_encode([
              RailAvailability::settlementOption($data, 'usdc', 'Polygon')['slug'] ?? null,
              RailAvailability::settlementOption($data, 'USDC', 'SOLANA')['slug'] ?? null,
              RailAvailability::settlementOption($data, 'EUR', ''),
              RailAvailability::settlementOption($data, 'USDT', 'POLYGON'),
              RailAvailability::settlementOption([], 'USDC', 'POLYGON'),
          ]);
        `);
        expect(found).toEqual(['usdc_polygon', 'usdc_solana', null, null, null]);
      });

      it("refuses with the service's reason when the settlement is not offered, although other rails are", async () => {
        expect(await judge(solanaOnly, '42.00', 'USDC', 'POLYGON')).toEqual({
          payable: false,
          class: 'SettlementUnavailableException',
          message:
            'The service does not offer payment in USDC on Polygon PoS for 42.00 EUR: Not offered: this server does not watch USDC on Polygon PoS.',
          reason: 'Not offered: this server does not watch USDC on Polygon PoS.',
        });
        expect(await judge(solanaOnly, '42.00', 'USDC', 'SOLANA')).toEqual({ payable: true });
        expect(await judge(solanaOnly, '42.00', 'USDT', 'TRON')).toEqual({
          payable: false,
          class: 'SettlementUnavailableException',
          message:
            'The service does not offer payment in USDT on TRON for 42.00 EUR: The service lists no payment option for USDT on TRON.',
          reason: null,
        });
      });

      it("tells the amount outside the settlement's bounds apart, by that option's own minimum", async () => {
        const small = phpJson({
          amount_in_usd: 5.4,
          payment_options: [
            option('usdc_polygon', true, 0.5),
            option('usdc_ethereum', false, '10.00', {
              network: 'ETHEREUM',
              unavailable_reason: 'Not offered for 5.40 USD: this rail takes 10.00–1000000.00 USD.',
            }),
          ],
        });
        expect(await judge(small, '5.00', 'USDC', 'ETHEREUM')).toEqual({
          payable: false,
          class: 'NoRailAvailableException',
          message:
            'No payment option of the service takes 5.00 EUR (5.40 USD; the smallest rail minimum is 10.00 USD).',
          below: true,
          minimum: '10.00',
        });
        const large = phpJson({
          amount_in_usd: 2000,
          payment_options: [
            option('usdc_polygon', false, 0.5, {
              max_usd: 1000,
              unavailable_reason: 'Not offered for 2000.00 USD: …',
            }),
          ],
        });
        expect(await judge(large, '1850.00', 'USDC', 'POLYGON')).toMatchObject({
          class: 'NoRailAvailableException',
          below: false,
        });
        // Within its bounds but not available, with no reason given: still not the amount.
        const silent = phpJson({
          amount_in_usd: 45.36,
          payment_options: [option('usdc_polygon', false, 0.5)],
        });
        expect(await judge(silent, '42.00', 'USDC', 'POLYGON')).toMatchObject({
          class: 'SettlementUnavailableException',
          reason: 'The service lists usdc_polygon as not available, without a reason.',
        });
      });
    });

    describe('against the reference server', () => {
      const ask = (amount: string) =>
        read(
          `CryptoCheckout\\Client\\Client::forServiceOrigin(${phpString(service.url)}, new CryptoCheckout\\Client\\Http\\StreamTransport(), 5)->getPaymentOptions(${phpString(amount)}, 'EUR')`,
        );

      it('offers nothing for 0.10 EUR, and rails for 25.00 EUR', async () => {
        expect(await ask('0.10')).toEqual({ any: false, slugs: [], smallest: '0.50' });
        const priced = await ask('25.00');
        expect(priced.any).toBe(true);
        expect(priced.slugs).toEqual(expect.arrayContaining(['usdc_polygon', 'card']));
      });

      it("keeps the service's unavailable_reason through the client, and judges the merchant's settlement by it", async () => {
        const result = (await php().runJson(`${LOAD_CLIENT}
          use CryptoCheckout\\Client\\Kernel\\RailAvailability;
          $client = CryptoCheckout\\Client\\Client::forServiceOrigin(${phpString(service.url)}, new CryptoCheckout\\Client\\Http\\StreamTransport(), 5);
          $out = ['reason' => RailAvailability::settlementOption($client->getPaymentOptions('0.10', 'EUR'), 'USDC', 'POLYGON')['unavailable_reason'] ?? null];
          foreach (['0.10', '25.00'] as $amount) {
              try {
                  RailAvailability::assertPayable($client->getPaymentOptions($amount, 'EUR'), $amount, 'EUR', 'USDC', 'POLYGON');
                  $out[$amount] = 'payable';
              } catch (CryptoCheckout\\Client\\Exception\\CryptoCheckoutException $e) {
                  $out[$amount] = (new \\ReflectionClass($e))->getShortName();
              }
          }
          echo json_encode($out);
        `)) as Record<string, string | null>;
        expect(result).toEqual({
          reason: expect.stringMatching(
            /^Not offered for 0\.\d\d USD: this rail takes 0\.50–100000\.00 USD\.$/,
          ),
          '0.10': 'NoRailAvailableException',
          '25.00': 'payable',
        });
      });
    });
  },
  { mounts: CLIENT_MOUNTS },
);
