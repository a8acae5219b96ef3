import { afterEach, describe, expect, it } from 'vitest';
import type { ServerOptions } from '../src/index.js';
import { eventually, startTestServer, type TestServer } from './helpers.js';
import { OPERATOR_TOKEN } from './operator-helpers.js';
import { liveRateOptions, type RateSourceFixtures, startRateSourceFixtures } from './rate-source-fixtures.js';

const DAY_MS = 86_400_000;
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const each of open.splice(0).reverse()) await each.close();
});

/** A clock tests move: real time plus an offset, so the sources' refresh timers still run. */
function movableClock(start?: string) {
  let offset = start ? Date.parse(start) - Date.now() : 0;
  return {
    now: () => new Date(Date.now() + offset),
    advanceDays(days: number) {
      offset += days * DAY_MS;
    },
  };
}

async function setup(
  options: { start?: string; server?: ServerOptions; prepare?: (fixtures: RateSourceFixtures) => void } = {},
) {
  const clock = movableClock(options.start);
  const fixtures = await startRateSourceFixtures(clock.now);
  open.push(fixtures);
  // ECB: 1 EUR = 1.25 USD; ExchangeRate-API: 0.78125 EUR per USD, 1 EUR = 1.28 USD; median 1.265.
  fixtures.ecb.eurRates = { USD: '1.25', GBP: '0.8' };
  fixtures.exchangeRateApi.perUsd = { EUR: '0.78125', GBP: '0.625', ARS: '1000' };
  options.prepare?.(fixtures);
  const server = await startTestServer({
    clock: clock.now,
    operatorToken: OPERATOR_TOKEN,
    rates: liveRateOptions(fixtures),
    ...options.server,
  });
  open.push(server);
  return { clock, fixtures, server };
}

const checkout = (fiat_currency: string, fiat_amount = '100.00') => ({
  fiat_amount,
  fiat_currency,
  external_reference: `rates-${fiat_currency}`,
  customer: {
    wallet_address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
    crypto_currency: 'USDC',
    crypto_currency_network: 'POLYGON',
  },
});

async function operatorRates(server: TestServer) {
  const response = await fetch(`${server.url}/api/operator/rates`, {
    headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: import('@cryptocheckout/core').OperatorRates }).data;
}

/** Waits until a checkout in `currency` is priced at `usdAmount`, then returns it. */
function pricedAt(server: TestServer, currency: string, usdAmount: number) {
  return eventually(async () => {
    const created = await server.post('/api/checkout', checkout(currency));
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json.data.amount_in_usd).toBe(usdAmount);
    return created.json.data as { transaction_code: string };
  });
}

describe('live prices from loopback sources', () => {
  it('prices a EUR checkout from the median of the fresh fiat sources and locks it; the next follows a change', async () => {
    const { fixtures, server } = await setup();
    const first = await pricedAt(server, 'EUR', 126.5);
    const locked = (await server.get(`/api/transaction?transaction_code=${first.transaction_code}`)).json
      .data;
    expect(locked.rate).toMatchObject({
      usd_per_unit: '1.265',
      sources: ['ECB', 'ExchangeRate-API'],
      spread_percent: '0',
    });
    expect(locked.rate.source).toMatch(/^ECB \d{4}-\d{2}-\d{2} 15:00 UTC · ExchangeRate-API /);
    expect(locked.rate.held_until).toBe(locked.expires_at);

    fixtures.ecb.eurRates.USD = '1.35';
    // median(1.35, 1.28) = 1.315 → 131.50 USD, once the ECB source has been read again.
    await pricedAt(server, 'EUR', 131.5);
    const after = (await server.get(`/api/transaction?transaction_code=${first.transaction_code}`)).json.data;
    expect(after).toMatchObject({ amount_in_usd: 126.5, rate: { usd_per_unit: '1.265' } });
    // What is due by a rail still follows the locked USD amount.
    const page = await fetch(`${server.url}/pay/${first.transaction_code}`);
    expect(await page.text()).toContain('126.5');
  });

  it('refuses a currency no fresh source prices with a 503 naming it, while USD still works', async () => {
    const { clock, fixtures, server } = await setup();
    await pricedAt(server, 'EUR', 126.5);
    fixtures.setAll('down');
    // The ECB's Friday file may be used over a weekend, never six days on.
    clock.advanceDays(6);
    const refused = await eventually(async () => {
      const answer = await server.post('/api/checkout', checkout('EUR'));
      expect(answer.status).toBe(503);
      return answer.json;
    });
    expect(refused).toMatchObject({ status: 'error', error: { code: 'unavailable' } });
    expect(JSON.stringify(refused)).toMatch(
      /No fresh rate for EUR: last priced \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC \(sources: ECB, ExchangeRate-API\)/,
    );
    const options = await server.get('/api/payment_options?fiat_amount=10&fiat_currency=EUR');
    expect(options.status).toBe(503);
    const usd = await server.post('/api/checkout', checkout('USD'));
    expect(usd.status).toBe(201);
    expect(usd.json.data.amount_in_usd).toBe(100);
    // The stablecoins are stale too: their rails say why instead of guessing a price.
    const usdc = usd.json.data.payment_options.find(
      (option: { slug: string }) => option.slug === 'usdc_polygon',
    );
    expect(usdc).toMatchObject({
      available: false,
      unavailable_reason: expect.stringMatching(/No fresh rate for USDC/),
    });

    await eventually(async () => {
      const health = (await server.get('/api/health')).json.data;
      expect(health.rates.source).toBe('live');
      expect(health.rates.problems.join('\n')).toMatch(/ECB: stale, last answer .* \(.*answered HTTP 503\)/);
    });
    const board = await operatorRates(server);
    expect(board.rates.find((rate) => rate.code === 'EUR')).toMatchObject({
      status: 'stale',
      usd_per_unit: null,
    });
    expect(board.sources.find((source) => source.name === 'kraken')).toMatchObject({
      stale: true,
      last_error: expect.stringMatching(/HTTP 503/),
    });
  });

  it('takes a stablecoin whose market is under the floor off the page, with the reason, until it recovers', async () => {
    const { fixtures, server } = await setup({
      prepare: (each) => {
        each.exchanges.kraken.USDC = '0.95';
        each.exchanges.bitstamp.USDC = '0.951';
      },
    });
    const created = await pricedAt(server, 'EUR', 126.5);
    const reason =
      'USDC trades at 0.9505 USD, under the 0.98 USD floor: paying in USDC is paused until it recovers.';
    const options = (await server.get('/api/payment_options?fiat_amount=10&fiat_currency=USD')).json.data
      .payment_options;
    for (const slug of ['usdc_polygon', 'usdc_ethereum']) {
      expect(options.find((option: { slug: string }) => option.slug === slug)).toMatchObject({
        available: false,
        unavailable_reason: reason,
      });
    }
    expect(options.find((option: { slug: string }) => option.slug === 'usdt_polygon').available).toBe(true);
    const page = await (await fetch(`${server.url}/pay/${created.transaction_code}`)).text();
    expect(page).toContain('USDC trades at 0.9505 USD, under the 0.98 USD floor');
    const link = await server.get(
      `/api/payment_link?transaction_code=${created.transaction_code}&payment_method=usdc_polygon`,
    );
    expect(link.status).toBe(422);

    fixtures.exchanges.kraken.USDC = '0.9992';
    fixtures.exchanges.bitstamp.USDC = '1.0001';
    await eventually(async () => {
      const again = await server.get(
        `/api/payment_link?transaction_code=${created.transaction_code}&payment_method=usdc_polygon`,
      );
      expect(again.status).toBe(200);
      expect(again.json.data.amount).toBe('126.5');
    });
  });

  it('refuses at start while every source fails, and prices once they recover', async () => {
    const { fixtures, server } = await setup({ prepare: (each) => each.setAll('down') });
    await eventually(async () => expect(fixtures.requests.ecb).toBeGreaterThan(1));
    const refused = await server.post('/api/checkout', checkout('EUR'));
    expect(refused.status).toBe(503);
    expect(refused.json.error.message).toMatch(/No fresh rate for EUR: never priced yet/);
    fixtures.setAll('ok');
    await pricedAt(server, 'EUR', 126.5);
  });

  it('reports a slow, a garbled and a partial source and prices from the rest', async () => {
    const { fixtures, server } = await setup({
      prepare: (each) => {
        each.mode.ecb = 'slow';
        each.mode.bitstamp = 'garbage';
      },
    });
    // ExchangeRate-API alone: 1 EUR = 1.28 USD; GBP only there too.
    const created = await pricedAt(server, 'EUR', 128);
    expect(
      (await server.get(`/api/transaction?transaction_code=${created.transaction_code}`)).json.data.rate
        .sources,
    ).toEqual(['ExchangeRate-API']);
    const board = await eventually(async () => {
      const rates = await operatorRates(server);
      expect(rates.sources.find((source) => source.name === 'ecb')!.last_error).toMatch(
        /no answer within 300 ms/,
      );
      expect(rates.sources.find((source) => source.name === 'bitstamp')!.last_error).toMatch(
        /Bitstamp: the answer is not JSON/,
      );
      return rates;
    });
    expect(board.source).toBe('live');
    // ECB answers again, without GBP: GBP stays priced by ExchangeRate-API alone (1 / 0.625 = 1.6).
    fixtures.ecb.eurRates = { USD: '1.25' };
    fixtures.mode.ecb = 'ok';
    await pricedAt(server, 'EUR', 126.5);
    await pricedAt(server, 'GBP', 160);
  });

  it("uses the ECB's Friday file over the weekend but not on Thursday, when the other source carries on", async () => {
    // Sunday 29 November 2026, the ECB file of Friday the 27th.
    const { clock, server } = await setup({
      start: '2026-11-29T12:00:00.000Z',
      prepare: (each) => {
        each.ecb.day = '2026-11-27';
      },
    });
    await pricedAt(server, 'EUR', 126.5);
    clock.advanceDays(4);
    // Thursday: the Friday file is stale; ExchangeRate-API, read again, still prices.
    await pricedAt(server, 'EUR', 128);
    const problems = (await server.get('/api/health')).json.data.rates.problems as string[];
    expect(problems.join('\n')).toMatch(/ECB: stale/);
  });

  it('serves the persisted rate after a restart before any source answers', async () => {
    const { fixtures, server } = await setup();
    await pricedAt(server, 'EUR', 126.5);
    fixtures.setAll('slow');
    const restarted = await server.restart();
    open.push(restarted);
    // The very first request after the restart: no waiting on any source.
    const created = await restarted.post('/api/checkout', checkout('EUR'));
    expect(created.status).toBe(201);
    expect(created.json.data.amount_in_usd).toBe(126.5);
  });

  it('applies the configured spread for the merchant, per currency', async () => {
    const clock = movableClock();
    const fixtures = await startRateSourceFixtures(clock.now);
    open.push(fixtures);
    fixtures.exchangeRateApi.perUsd = { EUR: '0.8' };
    const server = await startTestServer({
      clock: clock.now,
      rates: { ...liveRateOptions(fixtures), spreadPercent: '1', spreadByCode: { EUR: '2' } },
    });
    open.push(server);
    // median(1.25, 1.25) + 2% = 1.275.
    const created = await pricedAt(server, 'EUR', 127.5);
    const rate = (await server.get(`/api/transaction?transaction_code=${created.transaction_code}`)).json.data
      .rate;
    expect(rate).toMatchObject({ usd_per_unit: '1.275', spread_percent: '2' });
  });
});
