import { decimalToScaled, scaledToDecimal } from '@cryptocheckout/core';
import type { KeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestServer, startWebhookReceiver, type TestServer } from '../helpers.js';
import { OPERATOR_TOKEN, operatorRequest } from '../operator-helpers.js';
import {
  createStablecoinMints,
  openSolanaCheckout,
  type SolanaMints,
  solanaCheckoutBody,
  solanaHealth,
  solanaLiveOptions,
  storedSolanaTransfers,
  waitForSolanaStatus,
} from './solana-live-helpers.js';
import { type SolanaTestChain, startSolanaTestChain } from './solana-test-chain.js';

let chain: SolanaTestChain;
let mints: SolanaMints;
let server: TestServer;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let buyer: KeyPairSigner;
let merchant: string;

beforeAll(async () => {
  chain = await startSolanaTestChain();
  mints = await createStablecoinMints(chain);
  buyer = await chain.newWallet(100_000_000_000n);
  await chain.mintTo(mints.usdc, buyer.address, 1_000_000_000_000n);
  await chain.mintTo(mints.usdt, buyer.address, 1_000_000_000_000n);
  // A wallet that exists (rent-exempt) but has no USDC account yet: the first payment creates it.
  merchant = (await chain.newWallet(1_000_000_000n)).address;
  receiver = await startWebhookReceiver();
  server = await startTestServer({ ...solanaLiveOptions(chain, mints), operatorToken: OPERATOR_TOKEN });
});
afterAll(async () => {
  await server?.dispose();
  await receiver?.close();
  await chain?.stop();
});

const units = (amount: string, decimals = 6) => decimalToScaled(amount, decimals);

/** Pays `amount` (decimal) of the checkout's token with its reference, as a Solana Pay wallet does. */
const payToken = (mint: string, amount: string, reference: string | undefined, to = merchant) =>
  chain.payToken({
    payer: buyer,
    recipient: to,
    mint,
    amount: units(amount),
    ...(reference ? { references: [reference] } : {}),
  });

const open = (asset = 'USDC', overrides: Record<string, unknown> = {}) =>
  openSolanaCheckout(server, merchant, asset, { webhook_url: receiver.url, ...overrides });

describe('Solana live mode (litesvm behind a loopback JSON-RPC endpoint)', () => {
  it('offers USDC, USDT and SOL on Solana and hands out a Solana Pay transfer request with the checkout’s reference', async () => {
    const { code, link, request } = await open('USDC', { external_reference: 'sol-request' });
    expect(link.address).toBe(merchant);
    expect(request).toMatchObject({
      recipient: merchant,
      amount: link.amount,
      splToken: mints.usdc,
      label: 'Crypto Checkout',
      message: 'Order sol-request',
    });
    expect(request.reference).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    // The same instructions on a repeat; another checkout gets another reference.
    const again = await server.client.getPaymentLink({
      transaction_code: code,
      payment_method: 'usdc_solana',
    });
    expect(again).toMatchObject({ uri: link.uri });
    expect((await open()).request.reference).not.toBe(request.reference);
    const created = await server.client.createCheckout(solanaCheckoutBody(merchant, 'SOL'));
    const bySlug = new Map(created.payment_options.map((option) => [option.slug, option]));
    expect(bySlug.get('sol_solana')).toMatchObject({ available: true });
    expect(bySlug.get('usdc_solana')!.unavailable_reason).toBe(
      'Not offered: this merchant is paid in SOL on Solana only.',
    );
    const priced = await server.client.getPaymentOptions({ fiat_amount: '25.00', fiat_currency: 'EUR' });
    const priceBySlug = new Map(priced.payment_options.map((option) => [option.slug, option]));
    for (const slug of ['usdc_solana', 'usdt_solana', 'sol_solana'])
      expect(priceBySlug.get(slug)?.available, slug).toBe(true);
    expect(priceBySlug.get('usdc_polygon')!.unavailable_reason).toMatch(/does not watch USDC on Polygon/);
  });

  it('refuses a token account entered as the merchant’s wallet, saying why, instead of sending the buyer’s money where no wallet reaches it', async () => {
    // The merchant's own USDC token account, which exists once a payment created it.
    const tokenAccount = await chain.associatedTokenAccount(buyer.address, mints.usdc);
    const created = await server.client.createCheckout(
      solanaCheckoutBody(tokenAccount, 'USDC', { external_reference: 'sol-token-account' }),
    );
    // The checkout's own answer already says so, for the plugin to tell its owner.
    const option = created.payment_options.find((each) => each.slug === 'usdc_solana')!;
    expect(option.available).toBe(false);
    expect(option.unavailable_reason).toMatch(/the shop's Solana address is a token account, not a wallet/);
    const link = await server.get(
      `/api/payment_link?transaction_code=${created.transaction_code}&payment_method=usdc_solana`,
    );
    expect(link.status).toBe(422);
    expect(JSON.stringify(link.json)).toMatch(/The shop must enter its wallet address/);
    const looked = await server.client.getTransaction(created.transaction_code);
    expect(looked.status).toBe('pending');
    // A wallet is not refused: the checks above are about the address, not Solana.
    expect((await open('USDC', { external_reference: 'sol-wallet-ok' })).link.address).toBe(merchant);
  });

  it('settles an exact USDC payment once the cluster finalizes it: processing at confirmed, then settled with its webhook', async () => {
    const { code, link, request } = await open('USDC', { external_reference: 'sol-exact' });
    const signature = await payToken(mints.usdc, link.amount, request.reference);
    const seen = await waitForSolanaStatus(server, code, 'processing');
    expect(seen.received_usd).toBe(0);
    chain.finalize();
    const settled = await waitForSolanaStatus(server, code, 'settled');
    expect(settled.received_usd).toBe(settled.amount_in_usd);
    expect(settled.payments.map((payment) => payment.tx_id)).toEqual([signature]);
    const webhook = await eventually(() => {
      const found = receiver.received
        .map((each) => JSON.parse(each.body) as { transaction_code: string; event: string })
        .find((body) => body.transaction_code === code);
      if (!found) throw new Error('no webhook yet');
      return found;
    });
    expect(webhook).toMatchObject({
      transaction_code: code,
      event: 'transaction.settled',
      payout_dispatched: true,
    });
    expect(chain.tokenBalance(merchant, mints.usdc)).toBeGreaterThanOrEqual(units(link.amount));
  });

  it('counts a part payment and a top-up with the same reference, and an overpayment, whatever the amounts', async () => {
    const part = await open('USDC', { external_reference: 'sol-part' });
    const half = scaledToDecimal(units(part.link.amount) / 2n, 6);
    await payToken(mints.usdc, half, part.request.reference);
    chain.finalize();
    const underpaid = await waitForSolanaStatus(server, part.code, 'underpaid');
    expect(decimalToScaled(underpaid.received_usd.toFixed(2), 2)).toBeGreaterThan(0n);
    const rest = await server.client.getPaymentLink({
      transaction_code: part.code,
      payment_method: 'usdc_solana',
    });
    // The reference is the checkout's: the top-up carries the same one, for what is still due.
    expect((rest as { uri: string }).uri).toContain(`reference=${part.request.reference}`);
    await payToken(mints.usdc, (rest as { amount: string }).amount, part.request.reference);
    chain.finalize();
    const paid = await waitForSolanaStatus(server, part.code, 'settled');
    expect(paid.payments).toHaveLength(2);

    const over = await open('USDC', { external_reference: 'sol-over' });
    await payToken(mints.usdc, scaledToDecimal(units(over.link.amount) * 2n, 6), over.request.reference);
    chain.finalize();
    const overpaid = await waitForSolanaStatus(server, over.code, 'settled');
    // Twice what was asked, counted whole: the stablecoin at par, so the USD figures say it too.
    expect(overpaid.payments.map((payment) => decimalToScaled(payment.amount, 6))).toEqual([
      units(over.link.amount) * 2n,
    ]);
    expect(decimalToScaled(overpaid.received_usd.toFixed(2), 2)).toBeGreaterThan(
      decimalToScaled(overpaid.amount_in_usd.toFixed(2), 2),
    );
  });

  it('settles a SOL payment at the locked rate, and a USDT one', async () => {
    const solMerchant = (await chain.newWallet(1_000_000_000n)).address;
    const sol = await openSolanaCheckout(server, solMerchant, 'SOL', { external_reference: 'sol-sol' });
    expect(sol.request.splToken).toBeNull();
    await chain.paySol({
      payer: buyer,
      recipient: solMerchant,
      lamports: decimalToScaled(sol.link.amount, 9),
      references: [sol.request.reference],
    });
    chain.finalize();
    const settled = await waitForSolanaStatus(server, sol.code, 'settled');
    expect(settled.payments[0]).toMatchObject({ amount: sol.link.amount, asset: 'SOL' });

    const usdtMerchant = (await chain.newWallet(1_000_000_000n)).address;
    const usdt = await openSolanaCheckout(server, usdtMerchant, 'USDT', { external_reference: 'sol-usdt' });
    expect(usdt.request.splToken).toBe(mints.usdt);
    await payToken(mints.usdt, usdt.link.amount, usdt.request.reference, usdtMerchant);
    chain.finalize();
    await waitForSolanaStatus(server, usdt.code, 'settled');
  });

  it('never counts another mint or a transfer to someone else, even with the checkout’s reference, and shows both to the operator', async () => {
    const { code, link, request } = await open('USDC', { external_reference: 'sol-wrong' });
    // Another token, sent to the merchant's account for that token, with the right reference.
    const fake = await chain.createMint({ decimals: 6 });
    await chain.mintTo(fake, buyer.address, 1_000_000_000n);
    const wrongMint = await payToken(fake, link.amount, request.reference);
    // The right token and reference, but paid to someone else (the merchant's wallet rides along as a key).
    const stranger = (await chain.newWallet(1_000_000_000n)).address;
    const wrongRecipient = await chain.payToken({
      payer: buyer,
      recipient: stranger,
      mint: mints.usdc,
      amount: units(link.amount),
      references: [request.reference],
      extraReadonlyKeys: [merchant],
    });
    chain.finalize();
    const stored = await eventually(() => {
      const rows = storedSolanaTransfers(server.dataDir).filter(
        (row) => row.tx_hash === wrongMint || row.tx_hash === wrongRecipient,
      );
      if (rows.length < 2) throw new Error(`stored ${rows.length} of 2`);
      return rows;
    });
    for (const row of stored) {
      expect(row.payment_id).toBeNull();
      expect(row.unmatched_reason).toMatch(new RegExp(`reference of checkout ${code} but pays no USDC`));
    }
    expect(stored.find((row) => row.tx_hash === wrongRecipient)!.unmatched_reason).toContain(stranger);
    expect(stored.find((row) => row.tx_hash === wrongMint)!.unmatched_reason).toContain(fake);
    const transaction = await server.client.getTransaction(code);
    expect(transaction.status).toBe('pending');
    expect(transaction.payments).toEqual([]);
  });

  it('keeps a transfer to the merchant without any checkout’s reference for the operator, and ignores a failed transfer', async () => {
    const { code, link, request } = await open('USDC', { external_reference: 'sol-noref' });
    const bare = await payToken(mints.usdc, link.amount, undefined);
    const failed = await chain.payToken({
      payer: await chain.newWallet(1_000_000_000n),
      recipient: merchant,
      mint: mints.usdc,
      amount: units(link.amount),
      references: [request.reference],
      allowFailure: true,
    });
    chain.finalize();
    const row = await eventually(() => {
      const found = storedSolanaTransfers(server.dataDir).find((each) => each.tx_hash === bare);
      if (!found) throw new Error('not stored yet');
      return found;
    });
    expect(row.unmatched_reason).toMatch(/No open checkout's Solana Pay reference/);
    // The failed transfer came after the stored one: once that is final and a few polls more have
    // run, the watcher has listed the failed one too.
    await eventually(() => {
      const stored = storedSolanaTransfers(server.dataDir).find((each) => each.tx_hash === bare);
      expect(stored?.confirmed).toBe(1);
    });
    const calls = (await solanaHealth(server)).rpcCalls;
    await eventually(async () => {
      expect((await solanaHealth(server)).rpcCalls).toBeGreaterThan(calls + 10);
    });
    expect(storedSolanaTransfers(server.dataDir).some((each) => each.tx_hash === failed)).toBe(false);
    expect((await server.client.getTransaction(code)).status).toBe('pending');
  });

  it('lets the operator attach a finalized transfer without the reference to its checkout, but never a record that moved nothing to the merchant', async () => {
    const { code, link, request } = await open('USDC', { external_reference: 'sol-attach' });
    // A wallet that dropped the reference: the money is the merchant's, the checkout cannot know.
    const bare = await payToken(mints.usdc, link.amount, undefined);
    const elsewhere = await chain.payToken({
      payer: buyer,
      recipient: (await chain.newWallet(1_000_000_000n)).address,
      mint: mints.usdc,
      amount: units(link.amount),
      references: [request.reference],
      extraReadonlyKeys: [merchant],
    });
    const path = (signature: string) => {
      const row = storedSolanaTransfers(server.dataDir).find((each) => each.tx_hash === signature);
      if (!row) throw new Error('not stored yet');
      return { row, path: `/transfers/SOLANA/${signature}/${row.log_index}` };
    };
    const early = await eventually(() => path(bare));
    expect(early.row.confirmed).toBe(0);
    const tooEarly = await operatorRequest(server, `${early.path}/attach`, {
      body: { transaction_code: code },
    });
    expect(tooEarly.status).toBe(409);
    expect(tooEarly.json.error.message).toMatch(/not confirmed yet/);
    chain.finalize();
    await eventually(() => expect(path(bare).row.confirmed).toBe(1));
    await eventually(() => expect(path(elsewhere).row.confirmed).toBe(1));
    const nothing = await operatorRequest(server, `${path(elsewhere).path}/attach`, {
      body: { transaction_code: code },
    });
    expect(nothing.status).toBe(409);
    expect(nothing.json.error.message).toMatch(/moved nothing to the merchant/);
    const attached = await operatorRequest(server, `${path(bare).path}/attach`, {
      body: { transaction_code: code },
    });
    expect(attached.status).toBe(200);
    const settled = await waitForSolanaStatus(server, code, 'settled');
    expect(settled.payments.map((payment) => payment.tx_id)).toEqual([bare]);
  });

  it('takes a payment back when the cluster drops it before finalizing it', async () => {
    const { code, link, request } = await open('USDC', { external_reference: 'sol-drop' });
    const signature = await chain.payToken({
      payer: buyer,
      recipient: merchant,
      mint: mints.usdc,
      amount: units(link.amount),
      references: [request.reference],
      dropLater: true,
    });
    await waitForSolanaStatus(server, code, 'processing');
    chain.drop(signature);
    chain.advanceSlots(3);
    chain.finalize();
    const back = await waitForSolanaStatus(server, code, 'pending');
    expect(back.payments).toEqual([]);
    expect((await solanaHealth(server)).dropped).toBeGreaterThanOrEqual(1);
    // The buyer pays again, for real this time.
    await payToken(mints.usdc, link.amount, request.reference);
    chain.finalize();
    await waitForSolanaStatus(server, code, 'settled');
  });

  it('settles a payment made after expiry within the late window, flagged late', async () => {
    const lateServer = await startTestServer({
      ...solanaLiveOptions(chain, mints),
      expiryMinutes: 0.02,
      sweepIntervalMs: 50,
    });
    try {
      const lateMerchant = (await chain.newWallet(1_000_000_000n)).address;
      const { code, link, request } = await openSolanaCheckout(lateServer, lateMerchant, 'USDC', {
        external_reference: 'sol-late',
      });
      await waitForSolanaStatus(lateServer, code, 'expired');
      // Block times are whole seconds: a transaction of the second the checkout expired in is on time.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      await payToken(mints.usdc, link.amount, request.reference, lateMerchant);
      chain.finalize();
      const settled = await waitForSolanaStatus(lateServer, code, 'settled');
      expect(settled.late).toBe(true);
    } finally {
      await lateServer.dispose();
    }
  });

  it('with --solana-commitment confirmed, settles at confirmed without waiting for finality', async () => {
    const fastServer = await startTestServer(solanaLiveOptions(chain, mints, { commitment: 'confirmed' }));
    try {
      const fastMerchant = (await chain.newWallet(1_000_000_000n)).address;
      const { code, link, request } = await openSolanaCheckout(fastServer, fastMerchant, 'USDC', {
        external_reference: 'sol-confirmed',
      });
      const finalizedBefore = chain.finalizedSlot();
      await payToken(mints.usdc, link.amount, request.reference, fastMerchant);
      await waitForSolanaStatus(fastServer, code, 'settled');
      expect(chain.finalizedSlot()).toBe(finalizedBefore);
    } finally {
      await fastServer.dispose();
    }
  });

  it('keeps watching through an endpoint that is down, then slow, and reports it in health', async () => {
    const { code, link, request } = await open('USDC', { external_reference: 'sol-down' });
    chain.rpc.down = true;
    await eventually(async () => {
      const health = await solanaHealth(server);
      expect(health.consecutiveFailures).toBeGreaterThan(0);
      expect(health.lastError).toMatch(/HTTP 503|fetch failed|socket/);
    });
    // The wallet check cannot ask the endpoint now: the checkout is still created and payable.
    const unchecked = (await chain.newWallet(1_000_000_000n)).address;
    const created = await server.client.createCheckout(solanaCheckoutBody(unchecked, 'USDC'));
    expect(created.payment_options.find((option) => option.slug === 'usdc_solana')?.available).toBe(true);
    await payToken(mints.usdc, link.amount, request.reference);
    chain.finalize();
    chain.rpc.down = false;
    chain.rpc.delayMs = 200;
    try {
      await waitForSolanaStatus(server, code, 'settled', 60_000);
    } finally {
      chain.rpc.delayMs = 0;
    }
    expect((await solanaHealth(server)).lastError).toBeNull();
  });

  it('asks the endpoint for the same number of calls per poll whatever the number of open checkouts of one merchant', async () => {
    const measure = async () => {
      const before = await solanaHealth(server);
      // Two quiet polls after the last one seen.
      await eventually(async () => {
        const now = await solanaHealth(server);
        if (now.rpcCalls < before.rpcCalls + 3 * before.callsLastPoll + 3)
          throw new Error('waiting for polls');
      });
      return (await solanaHealth(server)).callsLastPoll;
    };
    chain.finalize();
    const few = await measure();
    for (let index = 0; index < 40; index++) await open('USDC', { external_reference: `sol-many-${index}` });
    const many = await measure();
    expect(many).toBe(few);
  });
});
