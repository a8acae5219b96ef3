import {
  describeEachPhp,
  phpJson,
  phpString,
  type SandboxService,
  startSandboxService,
} from '@cryptocheckout/php-testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_MOUNTS, LOAD_CLIENT } from './harness.js';

// Kernel\RailAvailability: whether GET /payment_options leaves the buyer anything to pay with, read
// from fixed answers and from the real reference server (whose smallest rail takes 0.50 USD).

let service: SandboxService;

beforeAll(async () => {
  service = await startSandboxService();
});

afterAll(async () => {
  await service?.close();
});

const option = (slug: string, available: boolean, minUsd: number | string) => ({
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
});

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
    });
  },
  { mounts: CLIENT_MOUNTS },
);
