import { decimalToScaled, refundPaidWebhookSchema } from '@cryptocheckout/core';
import type { KeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestServer, startWebhookReceiver, type TestServer } from '../helpers.js';
import { OPERATOR_TOKEN } from '../operator-helpers.js';
import {
  confirmRefundAddress,
  createRefund,
  postClaimForm,
  refundBecomesPaid,
  refundOf,
  refundPaidWebhooks,
  storedRefundTransfers,
} from '../refund-helpers.js';
import {
  createStablecoinMints,
  openSolanaCheckout,
  type SolanaMints,
  solanaHealth,
  solanaLiveOptions,
} from './solana-live-helpers.js';
import { type SolanaTestChain, startSolanaTestChain } from './solana-test-chain.js';

let chain: SolanaTestChain;
let mints: SolanaMints;
let server: TestServer;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let buyer: KeyPairSigner;
/** The shop's wallet: paid by the buyer, and the payer of the refunds. */
let merchant: KeyPairSigner;

beforeAll(async () => {
  chain = await startSolanaTestChain();
  mints = await createStablecoinMints(chain);
  buyer = await chain.newWallet(100_000_000_000n);
  await chain.mintTo(mints.usdc, buyer.address, 1_000_000_000_000n);
  merchant = await chain.newWallet(100_000_000_000n);
  // More than the orders bring in: the refunds below are sent twice over.
  await chain.mintTo(mints.usdc, merchant.address, 1_000_000_000n);
  receiver = await startWebhookReceiver();
  server = await startTestServer({ ...solanaLiveOptions(chain, mints), operatorToken: OPERATOR_TOKEN });
  // Never paid: keeps the merchant's wallet watched, so every poll calls the endpoint (morePolls).
  await openSolanaCheckout(server, merchant.address, 'USDC', { external_reference: 'sol-refund-watch' });
});
afterAll(async () => {
  await server?.dispose();
  await receiver?.close();
  await chain?.stop();
});

type Asset = 'USDC' | 'SOL';
const decimalsOf = (asset: Asset) => (asset === 'SOL' ? 9 : 6);

/** Pays `amount` base units of `asset` from `payer` to `recipient`, with the references given. */
function send(asset: Asset, payer: KeyPairSigner, recipient: string, amount: bigint, references: string[]) {
  return asset === 'SOL'
    ? chain.paySol({ payer, recipient, lamports: amount, references })
    : chain.payToken({ payer, recipient, mint: mints.usdc, amount, references });
}

const lookupRefund = (refundId: string) => refundOf(server, refundId);

/**
 * A settled order paid in `asset` on Solana, and its refund of `amount` awaiting payment to a fresh
 * buyer address; returns the refund and what its Solana Pay request asks.
 */
async function refundAwaitingPayment(externalReference: string, amount: string, asset: Asset = 'USDC') {
  const { code, link, request } = await openSolanaCheckout(server, merchant.address, asset, {
    external_reference: externalReference,
    webhook_url: receiver.url,
  });
  await send(asset, buyer, merchant.address, decimalToScaled(link.amount, decimalsOf(asset)), [
    request.reference,
  ]);
  chain.finalize();
  await eventually(async () => expect((await server.client.getTransaction(code)).status).toBe('settled'));

  const created = await createRefund(server, { transaction_code: code, amount, currency: asset });
  expect(created.status).toBe(201);
  const refundId = created.json.data.refund_id as string;
  // A wallet with no account on the chain yet: the refund's transfer creates it.
  const address = (await chain.newWallet(0n)).address;
  expect((await confirmRefundAddress(created.json.data.claim_url, address)).status).toBe(303);
  const awaiting = await lookupRefund(refundId);
  expect(awaiting).toMatchObject({ status: 'awaiting_payment', address, asset, network: 'SOLANA', amount });
  expect(awaiting.payment_request!.text).toBe(`Send ${amount} ${asset} on Solana to ${address}`);
  const uri = new URL(awaiting.payment_request!.uri);
  expect(uri.protocol).toBe('solana:');
  expect(uri.pathname).toBe(address);
  expect(uri.searchParams.get('amount')).toBe(amount);
  // The configured mint (the test chain's), not mainnet's; none for SOL.
  expect(uri.searchParams.get('spl-token')).toBe(asset === 'SOL' ? null : mints.usdc);
  expect(uri.searchParams.get('message')).toBe('Refund');
  const reference = uri.searchParams.get('reference')!;
  expect(reference).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
  // The refund's own reference, not the order's: a refund payment is never taken for a payment.
  expect(reference).not.toBe(request.reference);
  return { refundId, code, address, reference };
}

/** Transfers to the refund's address the server stored, amounts in base units of `asset`. */
const storedTransfers = (refundId: string, asset: Asset = 'USDC') =>
  storedRefundTransfers(server.dataDir, refundId, decimalsOf(asset)).map(
    ({ log_index: _output, ...row }) => row,
  );

const refundWebhooks = (refundId: string) => refundPaidWebhooks(receiver, refundId);

const paidBecomes = (refundId: string) => refundBecomesPaid(server, refundId);

/** Waits for `count` more polls of the Solana watcher (a poll reads at least one address or refund). */
async function morePolls(count: number) {
  const before = await solanaHealth(server);
  await eventually(async () =>
    expect((await solanaHealth(server)).rpcCalls).toBeGreaterThanOrEqual(before.rpcCalls + count),
  );
}

describe('refunds paid on the Solana test chain', () => {
  it('does not take another amount with the refund’s reference; the exact amount pays it once finalized, with one webhook', async () => {
    const { refundId, code, address, reference } = await refundAwaitingPayment('sol-refund-exact', '10.5');
    const wrong = await send('USDC', merchant, address, 10_499_999n, [reference]);
    chain.finalize();
    // Seen, judged not exact, made final: the refund still waits.
    await eventually(() =>
      expect(storedTransfers(refundId)).toEqual([
        { tx_hash: wrong, units: 10_499_999n, exact: 0, confirmed: 1 },
      ]),
    );
    expect((await lookupRefund(refundId)).status).toBe('awaiting_payment');

    const exact = await send('USDC', merchant, address, 10_500_000n, [reference]);
    await eventually(() =>
      expect(storedTransfers(refundId)).toContainEqual({
        tx_hash: exact,
        units: 10_500_000n,
        exact: 1,
        confirmed: 0,
      }),
    );
    // Seen at confirmed only: not paid before the cluster finalizes it.
    expect((await lookupRefund(refundId)).status).toBe('awaiting_payment');
    chain.finalize();
    const paid = await paidBecomes(refundId);
    // The test chain's mints are not mainnet's: no explorer link.
    expect(paid).toMatchObject({ tx_id: exact, address, tx_url: null, payment_request: null });
    expect(paid.history.at(-1)).toMatchObject({ status: 'paid' });
    expect(paid.history.at(-1)?.note).toContain(exact);
    await eventually(() => expect(refundWebhooks(refundId)).toHaveLength(1));
    expect(refundPaidWebhookSchema.parse(refundWebhooks(refundId)[0])).toMatchObject({
      refund_id: refundId,
      transaction_code: code,
      tx_id: exact,
      amount: '10.5',
      asset: 'USDC',
      network: 'SOLANA',
      address,
    });
    expect(chain.tokenBalance(address, mints.usdc, 'finalized')).toBe(10_499_999n + 10_500_000n);

    // The watcher passes over both transfers again: nothing changes, no second webhook.
    await morePolls(10);
    expect(refundWebhooks(refundId)).toHaveLength(1);
    expect(storedTransfers(refundId)).toHaveLength(2);
    const after = await lookupRefund(refundId);
    expect(after).toMatchObject({ status: 'paid', tx_id: exact });
    expect(after.history.filter((entry) => entry.status === 'paid')).toHaveLength(1);
    // The order is untouched by the refund transfers: it keeps its one payment.
    expect((await server.client.getTransaction(code)).payments).toHaveLength(1);
  });

  it('does not take the exact amount with the refund’s reference sent to someone else', async () => {
    const { refundId, address, reference } = await refundAwaitingPayment('sol-refund-elsewhere', '4');
    const stranger = (await chain.newWallet(0n)).address;
    // The buyer's address rides along as a key, as a wallet bug or a crafted transfer would have it.
    const elsewhere = await chain.payToken({
      payer: merchant,
      recipient: stranger,
      mint: mints.usdc,
      amount: 4_000_000n,
      references: [reference],
      extraReadonlyKeys: [address],
    });
    chain.finalize();
    const right = await send('USDC', merchant, address, 4_000_000n, [reference]);
    chain.finalize();
    const paid = await paidBecomes(refundId);
    expect(paid.tx_id).toBe(right);
    expect(storedTransfers(refundId).map((row) => row.tx_hash)).toEqual([right]);
    expect(storedTransfers(refundId).some((row) => row.tx_hash === elsewhere)).toBe(false);
    await eventually(() => expect(refundWebhooks(refundId)).toHaveLength(1));
  });

  it('pays a SOL refund by a SOL transfer of the exact lamports', async () => {
    const { refundId, address, reference } = await refundAwaitingPayment('sol-refund-sol', '0.01', 'SOL');
    const signature = await send('SOL', merchant, address, 10_000_000n, [reference]);
    chain.finalize();
    const paid = await paidBecomes(refundId);
    expect(paid).toMatchObject({ tx_id: signature, address, amount: '0.01', asset: 'SOL' });
    expect(storedTransfers(refundId, 'SOL')).toEqual([
      { tx_hash: signature, units: 10_000_000n, exact: 1, confirmed: 1 },
    ]);
    expect(chain.solBalance(address, 'finalized')).toBe(10_000_000n);
    await eventually(() => expect(refundWebhooks(refundId)).toHaveLength(1));
    expect(refundWebhooks(refundId)[0]).toMatchObject({ tx_id: signature, asset: 'SOL', amount: '0.01' });
  });

  it('refuses a token account as the refund address on the claim page, saying why, and takes the wallet', async () => {
    const { code, link, request } = await openSolanaCheckout(server, merchant.address, 'USDC', {
      external_reference: 'sol-refund-token-account',
    });
    await send('USDC', buyer, merchant.address, decimalToScaled(link.amount, 6), [request.reference]);
    chain.finalize();
    await eventually(async () => expect((await server.client.getTransaction(code)).status).toBe('settled'));
    const created = await createRefund(server, { transaction_code: code, amount: '1.5', currency: 'USDC' });
    const claimUrl = created.json.data.claim_url as string;
    // The buyer pastes their USDC token account instead of their wallet.
    const tokenAccount = await chain.associatedTokenAccount(buyer.address, mints.usdc);
    const steps: Record<string, string>[] = [
      { step: 'check', address: tokenAccount, address_again: tokenAccount },
      { step: 'confirm', address: tokenAccount, confirmed: 'yes' },
    ];
    for (const step of steps) {
      const answer = await postClaimForm(claimUrl, step);
      expect(answer.status, step.step).toBe(200);
      expect(await answer.text(), step.step).toContain('This is a token account, not a wallet');
    }
    expect((await lookupRefund(created.json.data.refund_id)).status).toBe('awaiting_address');
    expect((await confirmRefundAddress(claimUrl, buyer.address)).status).toBe(303);
    expect((await lookupRefund(created.json.data.refund_id)).status).toBe('awaiting_payment');
  });
});
