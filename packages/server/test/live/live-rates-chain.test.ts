import { type CryptoPaymentLink, decimalToScaled } from '@cryptocheckout/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestServer, type TestServer } from '../helpers.js';
import {
  liveRateOptions,
  type RateSourceFixtures,
  startRateSourceFixtures,
} from '../rate-source-fixtures.js';
import { liveCheckoutBody, liveOptions, MERCHANT_WALLET, waitForStatus } from './live-helpers.js';
import { type LocalChain, startLocalChain } from './local-chain.js';

let chain: LocalChain;
let usdc: `0x${string}`;
let fixtures: RateSourceFixtures;
let server: TestServer;

beforeAll(async () => {
  chain = await startLocalChain();
  usdc = await chain.deployToken('USDC', 6);
  fixtures = await startRateSourceFixtures();
  // 1 EUR = 1.25 USD (ECB) and 1.28 USD (ExchangeRate-API): median 1.265.
  fixtures.ecb.eurRates = { USD: '1.25' };
  fixtures.exchangeRateApi.perUsd = { EUR: '0.78125' };
  // Live mode's default: market prices (no fixed table), every source on loopback.
  const { rates: _fixed, ...chainOptions } = liveOptions(chain, usdc, 1);
  server = await startTestServer({ ...chainOptions, rates: liveRateOptions(fixtures) });
});
afterAll(async () => {
  await server?.dispose();
  await fixtures?.close();
  await chain?.close();
});

async function pricedCheckout(expectedUsd: number) {
  return eventually(async () => {
    const created = await server.client.createCheckout(liveCheckoutBody({ fiat_amount: '100.00' }));
    expect(created.amount_in_usd).toBe(expectedUsd);
    return created;
  });
}

describe('live mode on a local chain, priced from loopback market sources', () => {
  it('charges a EUR order at the median rate, keeps it while the market moves, and settles the payment', async () => {
    const created = await pricedCheckout(126.5);
    const link = (await server.client.getPaymentLink({
      transaction_code: created.transaction_code,
      payment_method: 'usdc_polygon',
    })) as CryptoPaymentLink;
    // 126.50 USDC plus direct mode's tag of a few base units.
    expect(decimalToScaled(link.amount, 6) - 126_500_000n).toBeGreaterThanOrEqual(1n);
    expect(decimalToScaled(link.amount, 6) - 126_500_000n).toBeLessThan(10_000n);

    fixtures.ecb.eurRates.USD = '1.35';
    await pricedCheckout(131.5);
    // The open checkout keeps its price: the same instructions, the same locked rate.
    const again = (await server.client.getPaymentLink({
      transaction_code: created.transaction_code,
      payment_method: 'usdc_polygon',
    })) as CryptoPaymentLink;
    expect(again.amount).toBe(link.amount);
    expect((await server.client.getTransaction(created.transaction_code)).rate).toMatchObject({
      usd_per_unit: '1.265',
    });

    await chain.transfer(usdc, MERCHANT_WALLET, decimalToScaled(link.amount, 6), { mine: true });
    await chain.mine(1);
    const settled = await waitForStatus(server, created.transaction_code, 'settled');
    expect(settled).toMatchObject({
      amount_in_usd: 126.5,
      received_usd: 126.5,
      rate: { usd_per_unit: '1.265' },
    });
  });

  it('takes the USDC rail away while USDC trades under the floor, and gives it back', async () => {
    fixtures.exchanges.kraken.USDC = '0.95';
    fixtures.exchanges.bitstamp.USDC = '0.95';
    const created = await eventually(async () => {
      const each = await server.client.createCheckout(liveCheckoutBody());
      expect(each.payment_options.find((option) => option.slug === 'usdc_polygon')).toMatchObject({
        available: false,
        unavailable_reason:
          'USDC trades at 0.95 USD, under the 0.98 USD floor: paying in USDC is paused until it recovers.',
      });
      return each;
    });
    const page = await (await fetch(created.checkout_url)).text();
    expect(page).toContain('USDC trades at 0.95 USD, under the 0.98 USD floor');
    fixtures.exchanges.kraken.USDC = '1';
    fixtures.exchanges.bitstamp.USDC = '1';
    await eventually(async () => {
      const link = await server.client.getPaymentLink({
        transaction_code: created.transaction_code,
        payment_method: 'usdc_polygon',
      });
      expect(link.kind).toBe('crypto');
    });
  });

  it('keeps the instructions it handed out while USDC is under the floor, and settles what the buyer sends', async () => {
    const created = await server.client.createCheckout(
      liveCheckoutBody({ external_reference: 'kept-at-par' }),
    );
    const link = (await server.client.getPaymentLink({
      transaction_code: created.transaction_code,
      payment_method: 'usdc_polygon',
    })) as CryptoPaymentLink;
    fixtures.exchanges.kraken.USDC = '0.9';
    fixtures.exchanges.bitstamp.USDC = '0.9';
    try {
      // New checkouts lose the rail…
      await eventually(async () => {
        const other = await server.client.createCheckout(liveCheckoutBody());
        expect(other.payment_options.find((option) => option.slug === 'usdc_polygon')!.available).toBe(false);
      });
      // …the buyer who is paying keeps the same instructions, on the API and on the page.
      const again = (await server.client.getPaymentLink({
        transaction_code: created.transaction_code,
        payment_method: 'usdc_polygon',
      })) as CryptoPaymentLink;
      expect(again).toMatchObject({ address: link.address, amount: link.amount });
      const page = await (await fetch(`${created.checkout_url}?method=usdc_polygon`)).text();
      expect(page).toContain(link.amount);
      await chain.transfer(usdc, MERCHANT_WALLET, decimalToScaled(link.amount, 6), { mine: true });
      await chain.mine(1);
      await waitForStatus(server, created.transaction_code, 'settled');
    } finally {
      fixtures.exchanges.kraken.USDC = '1';
      fixtures.exchanges.bitstamp.USDC = '1';
    }
  });
});
