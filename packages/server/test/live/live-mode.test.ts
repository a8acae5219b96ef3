import {
  type CryptoPaymentLink,
  decimalToScaled,
  settledWebhookSchema,
  type Transaction,
} from '@cryptocheckout/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EVENT_DEADLINE_MS,
  eventually,
  startTestServer,
  startWebhookReceiver,
  type TestServer,
} from '../helpers.js';
import { OPERATOR_TOKEN, operatorRequest } from '../operator-helpers.js';
import {
  liveCheckoutBody,
  liveOptions,
  MERCHANT_WALLET,
  openLiveCheckout,
  storedTransfers,
  waitForScan,
  waitForStatus,
  watcherHealth,
} from './live-helpers.js';
import { type LocalChain, startLocalChain } from './local-chain.js';

let chain: LocalChain;
let usdc: `0x${string}`;
let server: TestServer;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let apiBase: string;

beforeAll(async () => {
  chain = await startLocalChain();
  usdc = await chain.deployToken('USDC', 6);
  receiver = await startWebhookReceiver();
  server = await startTestServer({ ...liveOptions(chain, usdc), operatorToken: OPERATOR_TOKEN });
  apiBase = `${server.url}/api`;
});
afterAll(async () => {
  await server?.dispose();
  await receiver?.close();
  await chain?.close();
});

/** Creates a live checkout and asks for its USDC-on-Polygon instructions. */
const openCheckout = (overrides: Record<string, unknown> = {}) =>
  openLiveCheckout(server, { webhook_url: receiver.url, ...overrides });

const lookup = (code: string): Promise<Transaction> => server.client.getTransaction(code);

const statusBecomes = (code: string, status: string, timeoutMs = EVENT_DEADLINE_MS) =>
  waitForStatus(server, code, status, timeoutMs);

describe('live mode on a local EVM chain', () => {
  it('offers only the merchant’s own rail, with reasons for the rest', async () => {
    const created = await server.client.createCheckout(liveCheckoutBody());
    const bySlug = new Map(created.payment_options.map((option) => [option.slug, option]));
    expect(bySlug.get('usdc_polygon')).toMatchObject({ available: true });
    expect(bySlug.get('usdc_polygon')!.unavailable_reason).toBeUndefined();
    for (const slug of ['usdt_polygon', 'usdc_ethereum', 'btc_bitcoin', 'card']) {
      expect(bySlug.get(slug), slug).toMatchObject({
        available: false,
        unavailable_reason: 'Not offered: this merchant is paid in USDC on Polygon PoS only.',
      });
    }
    // Without a wallet (a price check), the reasons say what the server itself does not do.
    const priced = await server.client.getPaymentOptions({ fiat_amount: '25.00', fiat_currency: 'EUR' });
    const priceBySlug = new Map(priced.payment_options.map((option) => [option.slug, option]));
    expect(priceBySlug.get('usdc_polygon')!.available).toBe(true);
    expect(priceBySlug.get('usdc_ethereum')!.unavailable_reason).toMatch(/does not watch USDC on Ethereum/);
    expect(priceBySlug.get('card')!.unavailable_reason).toMatch(/payment processor/);
  });

  it('asks for an exact amount at the merchant’s wallet and settles after the confirmations, with payout_dispatched', async () => {
    const { code, link, baseUnits } = await openCheckout({ external_reference: 'exact-1' });
    expect(link.address).toBe(MERCHANT_WALLET);
    const due = decimalToScaled((await lookup(code)).amount_in_usd.toFixed(2), 6);
    expect(baseUnits - due).toBeGreaterThanOrEqual(1n);
    expect(baseUnits - due).toBeLessThanOrEqual(9999n);
    expect(link.uri).toBe(
      `ethereum:${usdc}@137/transfer?address=${MERCHANT_WALLET}&uint256=${baseUnits.toString()}`,
    );
    // The instructions are stable: a second call hands out the same amount.
    const again = await server.client.getPaymentLink({
      transaction_code: code,
      payment_method: 'usdc_polygon',
    });
    expect((again as CryptoPaymentLink).amount).toBe(link.amount);

    const txHash = await chain.transfer(usdc, MERCHANT_WALLET, baseUnits, { mine: true });
    const processing = await statusBecomes(code, 'processing');
    expect(processing.payments).toHaveLength(1);
    expect(processing.payments[0]).toMatchObject({ tx_id: txHash, amount: link.amount, asset: 'USDC' });
    expect(processing.received_usd).toBe(0);

    await chain.mine(1); // two confirmations of three
    await waitForScan(apiBase, chain);
    expect((await lookup(code)).status).toBe('processing');

    const before = receiver.received.length;
    await chain.mine(1);
    const settled = await statusBecomes(code, 'settled');
    expect(settled.received_usd).toBe(settled.amount_in_usd);
    expect(settled.payout_dispatched).toBe(true);
    expect(settled.late).toBe(false);
    await receiver.waitFor(before + 1);
    const webhook = settledWebhookSchema.parse(JSON.parse(receiver.received.at(-1)!.body));
    expect(webhook).toMatchObject({
      transaction_code: code,
      external_reference: 'exact-1',
      payout_dispatched: true,
      wallet_address: MERCHANT_WALLET,
      wallet_currency: 'USDC',
      wallet_network: 'POLYGON',
    });
  });

  it('tells two open checkouts of the same amount apart and settles both', async () => {
    const first = await openCheckout({ external_reference: 'twin-a' });
    const second = await openCheckout({ external_reference: 'twin-b' });
    expect(first.baseUnits).not.toBe(second.baseUnits);
    await chain.transfer(usdc, MERCHANT_WALLET, second.baseUnits);
    await chain.transfer(usdc, MERCHANT_WALLET, first.baseUnits);
    await chain.mine(3);
    for (const { code, link } of [first, second]) {
      const settled = await statusBecomes(code, 'settled');
      expect(settled.payments).toHaveLength(1);
      expect(settled.payments[0]!.amount).toBe(link.amount);
    }
  });

  it('keeps a transfer of a wrong amount as unmatched and leaves the order alone', async () => {
    const { code, baseUnits } = await openCheckout({ external_reference: 'wrong-amount' });
    const txHash = await chain.transfer(usdc, MERCHANT_WALLET, baseUnits - 1_000_000n, { mine: true });
    await chain.mine(3);
    await waitForScan(apiBase, chain);
    const transaction = await lookup(code);
    expect(transaction.status).toBe('pending');
    expect(transaction.payments).toHaveLength(0);
    const stored = storedTransfers(server.dataDir).find((transfer) => transfer.tx_hash === txHash);
    expect(stored).toMatchObject({ transaction_code: null, payment_id: null });
    expect(stored!.unmatched_reason).toMatch(/No open checkout asks for exactly/);
    // The operator sees it among the unmatched payments, with its chain references.
    const unmatched = (await operatorRequest(server, '/unmatched')).json.data.items;
    expect(unmatched.find((item: { tx_hash: string }) => item.tx_hash === txHash)).toMatchObject({
      network: 'POLYGON',
      asset: 'USDC',
      to_address: MERCHANT_WALLET.toLowerCase(),
      transaction_code: null,
      unmatched_reason: expect.stringMatching(/No open checkout asks for exactly/),
    });
  });

  it('ignores the exact amount paid in a token contract it does not watch', async () => {
    const lookalike = await chain.deployToken('USDC', 6);
    const { code, baseUnits } = await openCheckout({ external_reference: 'wrong-token' });
    const txHash = await chain.transfer(lookalike, MERCHANT_WALLET, baseUnits, { mine: true });
    await chain.mine(3);
    await waitForScan(apiBase, chain);
    expect((await lookup(code)).status).toBe('pending');
    expect(storedTransfers(server.dataDir).some((transfer) => transfer.tx_hash === txHash)).toBe(false);
  });

  it('un-counts a payment whose block is reorganised away before it confirms, and counts it once when it returns', async () => {
    const { code, baseUnits } = await openCheckout({ external_reference: 'reorg' });
    const mark = await chain.mark();
    const txHash = await chain.transfer(usdc, MERCHANT_WALLET, baseUnits, { mine: true });
    await statusBecomes(code, 'processing');
    const reorganisationsBefore = (await watcherHealth(apiBase)).reorganisations;

    await chain.revertTo(mark);
    await chain.mine(2); // a longer chain without the transfer
    const pending = await statusBecomes(code, 'pending');
    expect(pending.payments).toHaveLength(0);
    expect((await watcherHealth(apiBase)).reorganisations).toBeGreaterThan(reorganisationsBefore);
    expect(storedTransfers(server.dataDir).some((transfer) => transfer.tx_hash === txHash)).toBe(false);

    // The buyer's wallet sends it again; it lands in a new block and settles once.
    await chain.transfer(usdc, MERCHANT_WALLET, baseUnits);
    await chain.mine(3);
    const settled = await statusBecomes(code, 'settled');
    expect(settled.payments).toHaveLength(1);
  });

  it('keeps retrying while the RPC endpoint is down and catches up when it returns', async () => {
    const { code, baseUnits } = await openCheckout({ external_reference: 'rpc-down' });
    chain.rpcDown('refuse');
    try {
      await chain.transfer(usdc, MERCHANT_WALLET, baseUnits);
      await chain.mine(3);
      const seen = chain.requestsSeen;
      const failing = await eventually(async () => {
        const health = await watcherHealth(apiBase);
        expect(health.consecutiveFailures).toBeGreaterThanOrEqual(3);
        return health;
      });
      expect(failing.lastError).toBeTruthy();
      expect(chain.requestsSeen).toBeGreaterThan(seen); // it retried rather than gave up
      expect((await lookup(code)).status).toBe('pending');
    } finally {
      chain.rpcUp();
    }
    const settled = await statusBecomes(code, 'settled');
    expect(settled.payments).toHaveLength(1);
    expect((await watcherHealth(apiBase)).lastError).toBeNull();
  });

  it('records a second payment of a settled checkout as unmatched, never on the order', async () => {
    const { code, baseUnits } = await openCheckout({ external_reference: 'paid-twice' });
    await chain.transfer(usdc, MERCHANT_WALLET, baseUnits);
    await chain.mine(3);
    await statusBecomes(code, 'settled');
    const txHash = await chain.transfer(usdc, MERCHANT_WALLET, baseUnits, { mine: true });
    await chain.mine(3);
    await waitForScan(apiBase, chain);
    expect((await lookup(code)).payments).toHaveLength(1);
    const stored = storedTransfers(server.dataDir).find((transfer) => transfer.tx_hash === txHash);
    expect(stored).toMatchObject({ transaction_code: code, payment_id: null });
    expect(stored!.unmatched_reason).toMatch(/already settled/);
    // The order's page shows both transfers: the one that paid it and the one to refund.
    const detail = (await operatorRequest(server, `/transactions/${code}`)).json.data;
    expect(detail.chain_transfers).toHaveLength(2);
    expect(detail.chain_transfers[0]).toMatchObject({ unmatched_reason: null, confirmed: true });
    expect(detail.chain_transfers[1]).toMatchObject({
      tx_hash: txHash,
      unmatched_reason: expect.stringMatching(/already settled/),
    });
    expect(detail.payments).toHaveLength(1);
  });
});

describe('live mode: the operator’s decisions on transfers no checkout took', () => {
  /** A transfer of `amount` base units to the merchant, kept unmatched; its operator API path. */
  async function unmatchedTransfer(amount: bigint): Promise<string> {
    const txHash = await chain.transfer(usdc, MERCHANT_WALLET, amount, { mine: true });
    await waitForScan(apiBase, chain);
    const stored = storedTransfers(server.dataDir).find((transfer) => transfer.tx_hash === txHash)!;
    expect(stored.unmatched_reason).toMatch(/No open checkout asks for exactly/);
    return `/transfers/POLYGON/${txHash}/${stored.log_index}`;
  }

  /** Mines the confirmations and waits until the watcher has confirmed the transfer at `path`. */
  async function confirm(path: string): Promise<void> {
    const txHash = path.split('/')[3];
    await chain.mine(3);
    await eventually(() => {
      const stored = storedTransfers(server.dataDir).find((transfer) => transfer.tx_hash === txHash);
      expect(stored?.confirmed).toBe(1);
    }, EVENT_DEADLINE_MS);
  }

  it('attaches a confirmed transfer of a wrong amount to its checkout, which then shows the part paid', async () => {
    const { code, baseUnits } = await openCheckout({ external_reference: 'attach-short' });
    // An exchange kept 1 USDC as its fee: the transfer matches no checkout.
    const transfer = await unmatchedTransfer(baseUnits - 1_000_000n);
    const early = await operatorRequest(server, `${transfer}/attach`, { body: { transaction_code: code } });
    expect(early.status).toBe(409);
    expect(early.json.error.message).toMatch(/not confirmed yet/);
    await confirm(transfer);

    const attached = await operatorRequest(server, `${transfer}/attach`, {
      body: { transaction_code: code, note: 'ticket 42' },
    });
    expect(attached.status).toBe(200);
    expect(attached.json.data).toMatchObject({
      transaction_code: code,
      resolution: { kind: 'attached', note: 'by the operator token: ticket 42' },
    });
    const underpaid = await lookup(code);
    expect(underpaid.status).toBe('underpaid');
    expect(underpaid.payments).toHaveLength(1);
    // Attaching twice (a double click, a second operator) is refused and counts nothing more.
    const twice = await operatorRequest(server, `${transfer}/attach`, { body: { transaction_code: code } });
    expect(twice.status).toBe(409);
    expect(twice.json.error.message).toMatch(/resolved already \(attached at /);
    expect((await lookup(code)).payments).toHaveLength(1);
  });

  it('attaches an overpayment: settled, webhook sent; refuses a checkout paid to another wallet or settled', async () => {
    const { code, baseUnits } = await openCheckout({ external_reference: 'attach-over' });
    const elsewhere = await server.client.createCheckout(
      liveCheckoutBody({
        external_reference: 'attach-other-wallet',
        customer: {
          wallet_address: '0x00000000000000000000000000000000000000A1',
          crypto_currency: 'USDC',
          crypto_currency_network: 'POLYGON',
        },
      }),
    );
    const transfer = await unmatchedTransfer(baseUnits + 1_000_000n);
    await confirm(transfer);
    const wrongWallet = await operatorRequest(server, `${transfer}/attach`, {
      body: { transaction_code: elsewhere.transaction_code },
    });
    expect(wrongWallet.status).toBe(409);
    expect(wrongWallet.json.error.message).toMatch(/cannot pay that checkout/);
    const unknown = await operatorRequest(server, `${transfer}/attach`, {
      body: { transaction_code: '0f0f0f0f-0f0f-4f0f-8f0f-0f0f0f0f0f0f' },
    });
    expect(unknown.status).toBe(404);

    expect(
      (await operatorRequest(server, `${transfer}/attach`, { body: { transaction_code: code } })).status,
    ).toBe(200);
    const settled = await lookup(code);
    expect(settled.status).toBe('settled');
    expect(settled.received_usd).toBeGreaterThan(settled.amount_in_usd);

    // Another stray transfer cannot be put on the settled checkout; it can be marked handled.
    const stray = await unmatchedTransfer(baseUnits + 2_000_000n);
    await confirm(stray);
    const onSettled = await operatorRequest(server, `${stray}/attach`, { body: { transaction_code: code } });
    expect(onSettled.status).toBe(409);
    expect(onSettled.json.error.message).toMatch(/already settled/);
    const handled = await operatorRequest(server, `${stray}/handled`, { body: { note: 'refunded by hand' } });
    expect(handled.status).toBe(200);
    expect(handled.json.data.resolution).toMatchObject({
      kind: 'handled',
      note: 'by the operator token: refunded by hand',
    });
    expect((await lookup(code)).payments).toHaveLength(1);
    const missing = await operatorRequest(server, `/transfers/POLYGON/0x${'ab'.repeat(32)}/0/handled`, {
      body: {},
    });
    expect(missing.status).toBe(404);
    const bad = await operatorRequest(server, '/transfers/POLYGON/0x12/0/handled', { body: {} });
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toMatch(/tx_hash must be a transaction hash/);
  });
});

describe('live mode: late payments', () => {
  it('settles a payment made after expiry within the late window, flagged late', async () => {
    const lateServer = await startTestServer({
      ...liveOptions(chain, usdc, 2),
      expiryMinutes: 0.02,
      sweepIntervalMs: 50,
    });
    try {
      const created = await lateServer.client.createCheckout(
        liveCheckoutBody({ external_reference: 'late' }),
      );
      const link = (await lateServer.client.getPaymentLink({
        transaction_code: created.transaction_code,
        payment_method: 'usdc_polygon',
      })) as CryptoPaymentLink;
      await eventually(async () => {
        expect((await lateServer.client.getTransaction(created.transaction_code)).status).toBe('expired');
      });
      // Block times are whole seconds: a block of the second the checkout expired in is on time.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      await chain.transfer(usdc, MERCHANT_WALLET, decimalToScaled(link.amount, 6));
      await chain.mine(2);
      const settled = await eventually(async () => {
        const transaction = await lateServer.client.getTransaction(created.transaction_code);
        expect(transaction.status).toBe('settled');
        return transaction;
      });
      expect(settled.late).toBe(true);
    } finally {
      await lateServer.dispose();
    }
  });
});

describe('live mode: an endpoint of the wrong chain', () => {
  it('offers no rail on it and says in /api/health how to fix the setting', async () => {
    const wrongChain = await startTestServer({
      mode: 'live',
      rates: { source: 'static', fixedPricesInLiveMode: true },
      live: {
        rpcUrls: { POLYGON: chain.rpcUrl },
        chainIds: { POLYGON: 80002 },
        tokens: { 'POLYGON:USDC': usdc },
        pollIntervalMs: 25,
      },
    });
    try {
      const health = await eventually(async () => {
        const current = await watcherHealth(`${wrongChain.url}/api`);
        expect(current.lastError).toMatch(/reports chain id 137, not 80002/);
        return current;
      });
      expect(health.lastError).toMatch(/--chain-id POLYGON=137/);
      const created = await wrongChain.client.createCheckout(liveCheckoutBody());
      const usdcPolygon = created.payment_options.find((option) => option.slug === 'usdc_polygon')!;
      expect(usdcPolygon).toMatchObject({
        available: false,
        unavailable_reason: 'Not offered right now: Polygon PoS cannot be watched.',
      });
    } finally {
      await wrongChain.dispose();
    }
  });
});
