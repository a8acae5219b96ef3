/**
 * Bitcoin live mode (docs/bitcoin.md) against the loopback Bitcoin Core node: real regtest blocks and
 * transactions signed with @scure/btc-signer. Payments to addresses derived from the merchant's zpub
 * and to a plain address with satoshi tags; seen, confirmed, replaced, double-spent, reorganised.
 */
import { decimalToScaled, multiplyDecimals, scaledToDecimal } from '@cryptocheckout/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticRateProvider } from '../../src/index.js';
import { addressOfScript, parseBitcoinReceiver } from '../../src/rails/bitcoin/bitcoin-keys.js';
import { eventually, startTestServer, startWebhookReceiver, type TestServer } from '../helpers.js';
import { OPERATOR_TOKEN, operatorRequest } from '../operator-helpers.js';
import {
  bitcoinHealth,
  bitcoinLiveOptions,
  cents,
  linkOf,
  MERCHANT_ADDRESS,
  MERCHANT_ZPUB,
  openBitcoinCheckout,
  waitForBitcoinScan,
  waitForBitcoinStatus,
} from './bitcoin-live-helpers.js';
import { type BitcoinTestNode, type Buyer, startBitcoinTestNode } from './bitcoin-test-node.js';

let node: BitcoinTestNode;
let server: TestServer;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let buyer: Buyer;

beforeAll(async () => {
  node = await startBitcoinTestNode({ user: 'shop', password: 'node-secret' });
  buyer = node.newBuyer(100_000_000_000n);
  receiver = await startWebhookReceiver();
  server = await startTestServer({
    ...bitcoinLiveOptions(node, {
      bitcoinConfirmations: 2,
      bitcoinLargePayment: '500=3',
      bitcoinGapLimit: 40,
    }),
    paymentTolerancePercent: 1,
    operatorToken: OPERATOR_TOKEN,
  });
});
afterAll(async () => {
  await server?.dispose();
  await receiver?.close();
  await node?.close();
});

const open = (overrides: Record<string, unknown> = {}, wallet = MERCHANT_ZPUB) =>
  openBitcoinCheckout(server, wallet, { webhook_url: receiver.url, ...overrides });
const pay = (address: string, sats: bigint, options: { replaceable?: boolean } = {}) =>
  node.pay(buyer, [{ address, sats }], options);
const settledWebhooks = (code: string) =>
  receiver.received.map((each) => JSON.parse(each.body)).filter((body) => body.transaction_code === code);
/** The BIP84 receive address `index` of the merchant's key, as encoded on regtest. */
const derived = (index: number) => {
  const receiverOfKey = parseBitcoinReceiver(MERCHANT_ZPUB);
  if (receiverOfKey.kind !== 'extended_key') throw new Error('not a key');
  return addressOfScript(receiverOfKey.scriptAt(index), 'regtest');
};

describe('Bitcoin live mode, an extended public key', () => {
  it('hands each checkout the next address derived from the key, in a BIP21 link carrying the amount', async () => {
    const first = await open({ external_reference: 'btc-address-1' });
    const second = await open({ external_reference: 'btc-address-2' });
    const derivedSoFar = Array.from({ length: 10 }, (_, index) => derived(index));
    expect(derivedSoFar).toContain(first.link.address);
    expect(derivedSoFar).toContain(second.link.address);
    expect(second.link.address).not.toBe(first.link.address);
    expect(first.link.address.startsWith('bcrt1q')).toBe(true);
    expect(first.link.uri).toBe(
      `bitcoin:${first.link.address}?amount=${first.link.amount}&label=Crypto%20Checkout`,
    );
    // Asking again changes nothing: same address, same amount.
    const again = await linkOf(server, first.code);
    expect({ address: again.address, amount: again.amount }).toEqual({
      address: first.link.address,
      amount: first.link.amount,
    });
  });

  it('shows the key’s first receive addresses (wallet check), the ones the merchant’s wallet shows', async () => {
    const answer = await server.get(
      `/api/wallet_check?network=BITCOIN&wallet_address=${encodeURIComponent(MERCHANT_ZPUB)}`,
    );
    expect(answer.status).toBe(200);
    expect(answer.json.data).toMatchObject({
      kind: 'extended_key',
      first_addresses: [derived(0), derived(1), derived(2)],
    });
    const wrong = await server.get(
      `/api/wallet_check?network=BITCOIN&wallet_address=${MERCHANT_ZPUB.slice(0, -1)}x`,
    );
    expect(wrong.status).toBe(400);
    expect(wrong.json.error.field).toBe('wallet_address');
  });

  it('is processing once the payment is in the mempool and settles at two confirmations, with one webhook', async () => {
    const { code, link, sats } = await open({ external_reference: 'btc-exact' });
    const { txid } = pay(link.address, sats);
    const seen = await waitForBitcoinStatus(server, code, 'processing');
    expect(seen.received_usd).toBe(0);
    node.mine(1);
    await waitForBitcoinScan(server, node);
    expect((await server.client.getTransaction(code)).status).toBe('processing');
    node.mine(1);
    const settled = await waitForBitcoinStatus(server, code, 'settled');
    expect(settled.payments).toEqual([
      expect.objectContaining({
        payment_method: 'btc_bitcoin',
        asset: 'BTC',
        amount: link.amount,
        tx_id: txid,
      }),
    ]);
    expect(cents(settled.received_usd)).toBeGreaterThanOrEqual(cents(settled.amount_in_usd));
    await eventually(() => expect(settledWebhooks(code)).toHaveLength(1));
  });

  it('counts a part payment and asks for the rest at the same address; the top-up settles it', async () => {
    const { code, link, sats } = await open({ external_reference: 'btc-part' });
    pay(link.address, sats / 2n);
    node.mine(2);
    const underpaid = await waitForBitcoinStatus(server, code, 'underpaid');
    expect(cents(underpaid.received_usd)).toBeGreaterThan(0n);
    const rest = await linkOf(server, code);
    expect(rest.address).toBe(link.address);
    expect(decimalToScaled(rest.amount, 8)).toBeLessThan(sats);
    pay(rest.address, decimalToScaled(rest.amount, 8));
    node.mine(2);
    const settled = await waitForBitcoinStatus(server, code, 'settled');
    expect(settled.payments).toHaveLength(2);
  });

  it('settles a checkout paid exactly the amount asked in two outputs (each valued to 8 decimals, the total to the cent)', async () => {
    const { code, link, sats } = await open({ external_reference: 'btc-two-outputs' });
    node.pay(buyer, [
      { address: link.address, sats: sats / 2n },
      { address: link.address, sats: sats - sats / 2n },
    ]);
    node.mine(2);
    const settled = await waitForBitcoinStatus(server, code, 'settled');
    expect(settled.payments).toHaveLength(2);
    expect(cents(settled.received_usd)).toBeGreaterThanOrEqual(cents(settled.amount_in_usd));
  });

  it('asks a top-up from the exact sum of what arrived, so paying it settles at the order amount, not a cent over', async () => {
    const { code, link, sats } = await open({ external_reference: 'btc-exact-top-up' });
    const price = (await staticRateProvider().assetToUsd('BTC'))!.usdPerUnit;
    // A first payment worth just under a whole cent more than its cents: rounding the received total
    // down loses almost a cent, which a top-up asked from the rounded total would ask again.
    const lostToRounding = (part: bigint) =>
      decimalToScaled(multiplyDecimals(scaledToDecimal(part, 8), price, 8, 'down'), 8) % 1_000_000n;
    let first = sats / 3n;
    while (lostToRounding(first) < 995_000n) first++;
    pay(link.address, first);
    node.mine(2);
    await waitForBitcoinStatus(server, code, 'underpaid');
    const rest = await linkOf(server, code);
    pay(rest.address, decimalToScaled(rest.amount, 8));
    node.mine(2);
    const settled = await waitForBitcoinStatus(server, code, 'settled');
    expect(cents(settled.received_usd)).toBe(cents(settled.amount_in_usd));
  });

  it('settles an overpayment with what arrived', async () => {
    const { code, link, sats } = await open({ external_reference: 'btc-over' });
    pay(link.address, sats * 2n);
    node.mine(2);
    const settled = await waitForBitcoinStatus(server, code, 'settled');
    expect(cents(settled.received_usd)).toBeGreaterThan(
      decimalToScaled(multiplyDecimals(String(settled.amount_in_usd), '1.9', 2, 'down'), 2),
    );
  });

  it('settles a payment short by less than the tolerance, recording the shortfall; a larger shortfall stays underpaid', async () => {
    const within = await open({ external_reference: 'btc-tolerated' });
    pay(within.link.address, (within.sats * 995n) / 1000n);
    const beyond = await open({ external_reference: 'btc-too-short' });
    pay(beyond.link.address, (beyond.sats * 97n) / 100n);
    node.mine(2);
    const settled = await waitForBitcoinStatus(server, within.code, 'settled');
    expect(cents(settled.received_usd)).toBeLessThan(cents(settled.amount_in_usd));
    const tolerance = (
      settled as unknown as { payment_tolerance: { percent: string; accepted_shortfall_usd: string } }
    ).payment_tolerance;
    expect(tolerance.percent).toBe('1');
    expect(decimalToScaled(tolerance.accepted_shortfall_usd, 2)).toBe(
      cents(settled.amount_in_usd) - cents(settled.received_usd),
    );
    const short = await waitForBitcoinStatus(server, beyond.code, 'underpaid');
    expect(cents(short.received_usd)).toBeLessThan(cents(short.amount_in_usd));
  });

  it('waits for three confirmations from the large-payment threshold on', async () => {
    const { code, link, sats } = await open({ external_reference: 'btc-large', fiat_amount: '600.00' });
    pay(link.address, sats);
    node.mine(2);
    await waitForBitcoinScan(server, node);
    expect((await server.client.getTransaction(code)).status).toBe('processing');
    node.mine(1);
    await waitForBitcoinStatus(server, code, 'settled');
  });
});

describe('Bitcoin live mode, payments that go back', () => {
  it('takes back a payment replaced by fee before it was mined; a replacement that still pays counts', async () => {
    const { code, link, sats } = await open({ external_reference: 'btc-rbf' });
    const original = pay(link.address, sats, { replaceable: true });
    await waitForBitcoinStatus(server, code, 'processing');
    // Replaced by one that pays the buyer instead: the checkout has nothing again.
    node.replace(original.txid, [{ address: buyer.address, sats }]);
    const back = await waitForBitcoinStatus(server, code, 'pending');
    expect(back.payments).toEqual([]);
    // A second attempt is replaced by one paying half: that half counts.
    const second = pay(link.address, sats, { replaceable: true });
    await waitForBitcoinStatus(server, code, 'processing');
    const replacement = node.replace(second.txid, [{ address: link.address, sats: sats / 2n }]);
    await eventually(async () => {
      const transaction = await server.client.getTransaction(code);
      expect(transaction.payments.map((payment) => payment.tx_id)).toEqual([replacement.txid]);
    });
    node.mine(2);
    await waitForBitcoinStatus(server, code, 'underpaid');
  });

  it('takes back a payment whose inputs a block spent otherwise (a double spend)', async () => {
    const { code, link, sats } = await open({ external_reference: 'btc-double' });
    const payment = pay(link.address, sats);
    await waitForBitcoinStatus(server, code, 'processing');
    node.doubleSpend(payment.txid);
    const back = await waitForBitcoinStatus(server, code, 'pending');
    expect(back.payments).toEqual([]);
  });

  it('puts a payment whose block a reorganisation dropped back to waiting, and takes it back when it is gone', async () => {
    const { code, link, sats } = await open({ external_reference: 'btc-reorg-gone' });
    const payment = pay(link.address, sats);
    node.mine(1);
    await waitForBitcoinScan(server, node);
    expect((await server.client.getTransaction(code)).status).toBe('processing');
    node.reorg(1, { newBlocks: 2, dropTransactions: [payment.txid] });
    const back = await waitForBitcoinStatus(server, code, 'pending');
    expect(back.payments).toEqual([]);
    expect((await bitcoinHealth(server)).reorganisations).toBeGreaterThan(0);
  });

  it('keeps a payment mined again in the new branch, and settles it at that branch’s confirmations', async () => {
    const { code, link, sats } = await open({ external_reference: 'btc-reorg-kept' });
    const payment = pay(link.address, sats);
    node.mine(1);
    await waitForBitcoinScan(server, node);
    node.reorg(1, { newBlocks: 1, includeInNewBranch: [payment.txid] });
    await waitForBitcoinScan(server, node);
    expect((await server.client.getTransaction(code)).status).toBe('processing');
    node.mine(1);
    const settled = await waitForBitcoinStatus(server, code, 'settled');
    expect(settled.payments.map((each) => each.tx_id)).toEqual([payment.txid]);
  });
});

describe('Bitcoin live mode, a plain address', () => {
  it('asks each checkout of one price an amount with its own satoshi tag, and counts the exact one', async () => {
    const first = await open({ external_reference: 'btc-plain-1' }, MERCHANT_ADDRESS);
    const second = await open({ external_reference: 'btc-plain-2' }, MERCHANT_ADDRESS);
    // The address as the node's chain writes it: the same output script as the merchant's bc1 address.
    expect(first.link.address).toBe(second.link.address);
    expect(first.link.address.startsWith('bcrt1p')).toBe(true);
    expect(first.sats).not.toBe(second.sats);
    expect(second.sats - first.sats).toBeLessThan(1000n);
    pay(second.link.address, second.sats);
    node.mine(2);
    await waitForBitcoinStatus(server, second.code, 'settled');
    expect((await server.client.getTransaction(first.code)).status).toBe('pending');
  });

  it('keeps an amount no checkout asks for, visible to the operator and attachable', async () => {
    const { code, link, sats } = await open({ external_reference: 'btc-plain-odd' }, MERCHANT_ADDRESS);
    const odd = pay(link.address, sats + 50_000n);
    node.mine(2);
    const unmatched = await eventually(async () => {
      const list = await operatorRequest(server, '/unmatched');
      const found = (list.json.data.items as Array<Record<string, unknown>>).find(
        (each) => each.tx_hash === odd.txid,
      );
      expect(found).toBeDefined();
      expect(found!.confirmed).toBe(true);
      return found!;
    });
    expect(String(unmatched.unmatched_reason)).toContain('No open checkout asks for exactly');
    const attached = await operatorRequest(
      server,
      `/transfers/BITCOIN/${odd.txid}/${unmatched.log_index}/attach`,
      {
        body: { transaction_code: code },
      },
    );
    expect(attached.status).toBe(200);
    await waitForBitcoinStatus(server, code, 'settled');
  });
});

describe('Bitcoin live mode, the node', () => {
  it('reports an outage, and finds the payments made meanwhile once the node answers again', async () => {
    const { code, link, sats } = await open({ external_reference: 'btc-outage' });
    node.setOutage('down');
    await eventually(async () =>
      expect((await bitcoinHealth(server)).lastError).toMatch(/cannot be reached/),
    );
    node.setOutage(null);
    pay(link.address, sats);
    node.mine(2);
    await waitForBitcoinStatus(server, code, 'settled');
    expect((await bitcoinHealth(server)).lastError).toBeNull();
  });

  it('finds a payment mined while the node was unreachable at the watcher’s very first start', async () => {
    // BIP32's test vector 1 master key: a merchant no other server of this suite pays.
    const wallet =
      'xpub661MyMwAqRbcFW31YEwpkMuc5THy2PSt5bDMsktWQcFF8syAmRUapSCGu8ED9W6oDMSgv6Zz8idoc4a6mr8BDzTJY47LJhkJ8UB7WEGuduB';
    node.setOutage('down');
    const fresh = await startTestServer(bitcoinLiveOptions(node, { bitcoinConfirmations: 1 }));
    try {
      const { code, link, sats } = await openBitcoinCheckout(fresh, wallet, {
        external_reference: 'btc-first-start',
      });
      pay(link.address, sats);
      node.mine(3);
      node.setOutage(null);
      const settled = await waitForBitcoinStatus(fresh, code, 'settled');
      expect(settled.payments).toHaveLength(1);
    } finally {
      node.setOutage(null);
      await fresh.dispose();
    }
  });

  it('reports the scanned tip after a restart with no new block', async () => {
    await waitForBitcoinScan(server, node);
    server = await server.restart();
    await eventually(async () => {
      const health = await bitcoinHealth(server);
      expect(health.scannedHeight).toBe(node.tipHeight());
      expect(health.nodeHeight).toBe(node.tipHeight());
    });
  });

  it('refuses a node on another chain than the one configured: the rail is not offered, and health says why', async () => {
    const mainnetServer = await startTestServer(bitcoinLiveOptions(node, { bitcoinChain: 'main' }));
    try {
      await eventually(async () =>
        expect((await bitcoinHealth(mainnetServer)).lastError).toMatch(/chain "regtest"/),
      );
      const created = await mainnetServer.client.createCheckout({
        fiat_amount: '25.00',
        fiat_currency: 'EUR',
        external_reference: 'btc-wrong-chain',
        customer: {
          wallet_address: MERCHANT_ZPUB,
          crypto_currency: 'BTC',
          crypto_currency_network: 'BITCOIN',
        },
      });
      const option = created.payment_options.find((each) => each.slug === 'btc_bitcoin')!;
      expect(option.available).toBe(false);
      expect(option.unavailable_reason).toMatch(/cannot be watched/);
    } finally {
      await mainnetServer.dispose();
    }
  });
});
