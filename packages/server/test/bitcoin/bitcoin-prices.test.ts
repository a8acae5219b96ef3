/**
 * Bitcoin live mode and prices (docs/rates.md "Asset prices held", docs/bitcoin.md): the BTC price a
 * buyer was quoted holds for the checkout while the market moves or its source fails; a payment
 * after expiry settles late; the gap-limit warning of an extended key. Each test has its own node and
 * server: two servers handing out the same key's addresses on one node would see each other's payments.
 */
import { decimalToScaled, divideDecimals, multiplyDecimals } from '@cryptocheckout/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerOptions } from '../../src/index.js';
import { type RateProvider, RateUnavailableError, staticRateProvider } from '../../src/index.js';
import type { LiveRailOptions } from '../../src/rails/evm/evm-networks.js';
import { eventually, startTestServer, type TestServer } from '../helpers.js';
import {
  bitcoinCheckoutBody,
  bitcoinHealth,
  bitcoinLiveOptions,
  cents,
  linkOf,
  MERCHANT_ZPUB,
  openBitcoinCheckout,
  waitForBitcoinStatus,
} from './bitcoin-live-helpers.js';
import { type BitcoinTestNode, type Buyer, startBitcoinTestNode } from './bitcoin-test-node.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A loopback node with a funded buyer, and a live server watching it; both closed after the test. */
async function bitcoinSetup(live: Partial<LiveRailOptions> = {}, options: ServerOptions = {}) {
  const node: BitcoinTestNode = await startBitcoinTestNode();
  cleanups.push(() => node.close());
  const buyer: Buyer = node.newBuyer(10_000_000_000n);
  const server: TestServer = await startTestServer(bitcoinLiveOptions(node, live, options));
  cleanups.push(() => server.dispose());
  const pay = (address: string, sats: bigint) => node.pay(buyer, [{ address, sats }]);
  return { node, server, pay };
}

/**
 * The static table, but with a BTC price the test moves, or a refusal as a live source's when every
 * BTC source is stale.
 */
function movableBtcPrice(initial: string) {
  const table = staticRateProvider();
  let btc: string | RateUnavailableError = initial;
  const provider: RateProvider = {
    fiatToUsd: (currency) => table.fiatToUsd(currency),
    async assetToUsd(symbol) {
      if (symbol !== 'BTC') return table.assetToUsd(symbol);
      if (btc instanceof RateUnavailableError) throw btc;
      return {
        usdPerUnit: btc,
        source: 'test market',
        sources: ['test market'],
        asOf: new Date().toISOString(),
        spreadPercent: '0',
      };
    },
  };
  return {
    provider,
    set(price: string | RateUnavailableError) {
      btc = price;
    },
  };
}

/** The BTC amount (8 decimals) asked for `usd` at `usdPerBtc`, as the server rounds it: up. */
const btcFor = (usd: number, usdPerBtc: string) => divideDecimals(String(usd), usdPerBtc, 8, 'up');
const sats = (btc: string) => decimalToScaled(btc, 8);

describe('Bitcoin prices held for a checkout', () => {
  it('keeps asking the quoted amount after the market falls, counts it at the quoted price, and keeps it payable while the source is down', async () => {
    const before = '68250.00';
    const after = '61425.00'; // 10% lower
    const price = movableBtcPrice(before);
    const { node, server, pay } = await bitcoinSetup({}, { rateProvider: price.provider });

    const paid = await openBitcoinCheckout(server, MERCHANT_ZPUB, { external_reference: 'held-paid' });
    const kept = await openBitcoinCheckout(server, MERCHANT_ZPUB, { external_reference: 'held-kept' });
    const usd = (await server.client.getTransaction(paid.code)).amount_in_usd;
    const quoted = btcFor(usd, before);
    expect(paid.sats).toBe(sats(quoted));
    expect(kept.sats).toBe(sats(quoted));

    price.set(after);
    // The buyer asks again (the page reloads): the same amount, not the new market's.
    const again = await linkOf(server, paid.code);
    expect({ address: again.address, sats: sats(again.amount) }).toEqual({
      address: paid.link.address,
      sats: paid.sats,
    });
    // A checkout opened after the move is quoted at the new price, in its options and its link.
    const created = await server.client.createCheckout(
      bitcoinCheckoutBody(MERCHANT_ZPUB, { external_reference: 'held-new-price' }),
    );
    const newOption = created.payment_options.find((option) => option.slug === 'btc_bitcoin')!;
    expect(newOption.available).toBe(true);
    expect(sats(String(newOption.amount))).toBe(sats(btcFor(usd, after)));
    const newLink = await linkOf(server, created.transaction_code);
    expect(sats(newLink.amount)).toBe(sats(btcFor(usd, after)));
    expect(sats(newLink.amount)).toBeGreaterThan(paid.sats);

    // The quoted amount is what the buyer sends; at the new price it would be 10% short.
    expect(decimalToScaled(multiplyDecimals(quoted, after, 2, 'down'), 2)).toBeLessThan(
      decimalToScaled(String(usd), 2),
    );
    pay(paid.link.address, paid.sats);
    node.mine(1);
    const settled = await waitForBitcoinStatus(server, paid.code, 'settled');
    expect(settled.payments).toHaveLength(1);
    expect(settled.payments[0]!.amount).toBe(paid.link.amount);
    expect(cents(settled.payments[0]!.amount_usd)).toBe(
      decimalToScaled(multiplyDecimals(quoted, before, 2, 'down'), 2),
    );
    expect(cents(settled.received_usd)).toBeGreaterThanOrEqual(cents(settled.amount_in_usd));

    // Every BTC source stale: a checkout quoted before keeps its amount and stays payable…
    const refusal = new RateUnavailableError(
      'BTC',
      'No fresh price for BTC since 2026-11-01T10:00:00Z: every source is stale.',
    );
    price.set(refusal);
    const held = await linkOf(server, kept.code);
    expect({ address: held.address, sats: sats(held.amount) }).toEqual({
      address: kept.link.address,
      sats: kept.sats,
    });
    // …and so does one quoted at the new price.
    expect(sats((await linkOf(server, created.transaction_code)).amount)).toBe(sats(newLink.amount));
    // A new checkout cannot be quoted: its BTC option says why, and asking for its link is refused.
    const unpriced = await server.client.createCheckout(
      bitcoinCheckoutBody(MERCHANT_ZPUB, { external_reference: 'held-no-price' }),
    );
    const unpricedOption = unpriced.payment_options.find((option) => option.slug === 'btc_bitcoin')!;
    expect(unpricedOption.available).toBe(false);
    expect(unpricedOption.unavailable_reason).toBe(refusal.message);
    const refused = await server.get(
      `/api/payment_link?transaction_code=${unpriced.transaction_code}&payment_method=btc_bitcoin`,
    );
    expect(refused.status).toBe(503);
    expect(JSON.stringify(refused.json)).toContain(refusal.message);

    // The checkout quoted before is paid while the source is down: counted at its held price.
    pay(kept.link.address, kept.sats);
    node.mine(1);
    const settledWhileDown = await waitForBitcoinStatus(server, kept.code, 'settled');
    expect(cents(settledWhileDown.payments[0]!.amount_usd)).toBe(
      decimalToScaled(multiplyDecimals(quoted, before, 2, 'down'), 2),
    );
  });
});

describe('Bitcoin late payments', () => {
  it('settles the exact payment that arrives after expiry, within the late window, flagged late', async () => {
    const { node, server, pay } = await bitcoinSetup({}, { expiryMinutes: 0.02, sweepIntervalMs: 100 });
    // 1.2 s to get the link: a machine too busy for that gets another checkout.
    let opened: Awaited<ReturnType<typeof openBitcoinCheckout>> | undefined;
    for (let attempt = 0; opened === undefined; attempt++) {
      try {
        opened = await openBitcoinCheckout(server, MERCHANT_ZPUB, { external_reference: `late-${attempt}` });
      } catch (error) {
        if (attempt >= 20 || !/expired/.test(String((error as Error).message))) throw error;
      }
    }
    const expired = await waitForBitcoinStatus(server, opened.code, 'expired');
    expect(expired.payments).toEqual([]);
    // Past expiry by more than a second: a block's time (whole seconds) is past it too.
    const expiresAt = Date.parse(expired.expires_at);
    await eventually(() => expect(Date.now()).toBeGreaterThan(expiresAt + 1000));

    pay(opened.link.address, opened.sats);
    node.mine(1);
    const settled = await waitForBitcoinStatus(server, opened.code, 'settled');
    expect(settled.late).toBe(true);
    expect(settled.payments).toEqual([
      expect.objectContaining({ payment_method: 'btc_bitcoin', amount: opened.link.amount }),
    ]);
    expect(Date.parse(settled.payments[0]!.seen_at)).toBeGreaterThan(expiresAt);
    expect(cents(settled.received_usd)).toBeGreaterThanOrEqual(cents(settled.amount_in_usd));
  });
});

describe('Bitcoin gap limit', () => {
  it('warns in /api/health when a key’s unpaid addresses in a row near the gap limit, counting after the last paid one', async () => {
    const { server, pay } = await bitcoinSetup({ bitcoinGapLimit: 4 });
    const shown = `${MERCHANT_ZPUB.slice(0, 12)}…${MERCHANT_ZPUB.slice(-6)}`;
    const warningsOf = async () => (await bitcoinHealth(server)).gapWarnings;

    const open = (reference: string) =>
      openBitcoinCheckout(server, MERCHANT_ZPUB, { external_reference: reference });
    const first = await open('gap-1');
    await open('gap-2');
    const third = await open('gap-3');
    // Three quarters of 4: three unpaid addresses in a row are warned about.
    await eventually(async () =>
      expect(await warningsOf()).toEqual([{ wallet: shown, unpaidInARow: 3, gapLimit: 4 }]),
    );
    expect(JSON.stringify(await warningsOf())).not.toContain(MERCHANT_ZPUB);

    const fourth = await open('gap-4');
    await eventually(async () =>
      expect(await warningsOf()).toEqual([{ wallet: shown, unpaidInARow: 4, gapLimit: 4 }]),
    );
    // The oldest paid: the three after it are still unpaid in a row.
    pay(first.link.address, first.sats);
    await waitForBitcoinStatus(server, first.code, 'processing');
    await eventually(async () =>
      expect(await warningsOf()).toEqual([{ wallet: shown, unpaidInARow: 3, gapLimit: 4 }]),
    );
    // The newest paid: nothing unpaid after it, whatever came before.
    pay(fourth.link.address, fourth.sats);
    await waitForBitcoinStatus(server, fourth.code, 'processing');
    await eventually(async () => expect(await warningsOf()).toEqual([]));
    expect((await server.client.getTransaction(third.code)).status).toBe('pending');
  });
});
