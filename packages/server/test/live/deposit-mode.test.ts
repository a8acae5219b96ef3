/**
 * Deposit mode on a local EVM chain: the DepositFactory compiled by the build and deployed here,
 * a forwarder address per checkout, any amount counted, confirmed deposits forwarded to the
 * merchant's wallet by the sweeper.
 */
import { compiledContracts } from '@cryptocheckout/contracts';
import { compareDecimals, type CryptoPaymentLink, decimalToScaled, type Transaction } from '@cryptocheckout/core';
import { keccak256, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EVENT_DEADLINE_MS,
  eventually,
  startTestServer,
  startWebhookReceiver,
  type TestServer,
} from '../helpers.js';
import { liveCheckoutBody, liveOptions, MERCHANT_WALLET, waitForScan } from './live-helpers.js';
import { type LocalChain, startLocalChain } from './local-chain.js';

const SWEEPER_KEY = keccak256(toHex('cryptocheckout deposit-mode test sweeper'));
const SWEEPER = privateKeyToAccount(SWEEPER_KEY).address;
const CONFIRMATIONS = 3;

let chain: LocalChain;
let usdc: `0x${string}`;
let factory: `0x${string}`;
let server: TestServer;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let apiBase: string;

beforeAll(async () => {
  chain = await startLocalChain();
  usdc = await chain.deployToken('USDC', 6);
  factory = await chain.deployContract(compiledContracts().DepositFactory);
  await chain.fund(SWEEPER, 10n ** 18n, { mine: true });
  receiver = await startWebhookReceiver();
  const options = liveOptions(chain, usdc, CONFIRMATIONS);
  server = await startTestServer({
    ...options,
    live: {
      ...options.live!,
      depositFactories: { POLYGON: factory },
      sweeperKey: SWEEPER_KEY,
      forwarding: { resendEveryMs: 50, bumpAfterMs: 60_000 },
    },
  });
  apiBase = `${server.url}/api`;
});
afterAll(async () => {
  await server?.dispose();
  await receiver?.close();
  await chain?.close();
});

async function openCheckout(overrides: Record<string, unknown> = {}) {
  const created = await server.client.createCheckout(
    liveCheckoutBody({ webhook_url: receiver.url, ...overrides }),
  );
  const link = (await server.client.getPaymentLink({
    transaction_code: created.transaction_code,
    payment_method: 'usdc_polygon',
  })) as CryptoPaymentLink;
  return { code: created.transaction_code, link };
}

const lookup = (code: string): Promise<Transaction> => server.client.getTransaction(code);

async function statusBecomes(code: string, status: string): Promise<Transaction> {
  return eventually(async () => {
    const transaction = await lookup(code);
    expect(transaction.status).toBe(status);
    return transaction;
  }, EVENT_DEADLINE_MS);
}

/** Mines until the forwarder has sent and the chain has confirmed what it sent, then returns the merchant's balance. */
async function mineUntilForwarded(expected: bigint): Promise<void> {
  await eventually(async () => {
    await chain.mine(1);
    await waitForScan(apiBase, chain);
    expect(await chain.tokenBalance(usdc, MERCHANT_WALLET)).toBe(expected);
  }, EVENT_DEADLINE_MS);
}

describe('deposit mode on a local EVM chain', () => {
  it('counts a part payment, then the top-up, settles, and forwards exactly the deposits to the merchant', async () => {
    const { code, link } = await openCheckout({ external_reference: 'deposit-1' });
    expect(link.address).not.toBe(MERCHANT_WALLET);
    const due = decimalToScaled(link.amount, 6);
    const deposit = link.address as `0x${string}`;
    const before = await chain.tokenBalance(usdc, MERCHANT_WALLET);

    // An exchange kept its 1 USDC fee: less arrives than was asked.
    await chain.transfer(usdc, deposit, due - 1_000_000n, { mine: true });
    await chain.mine(CONFIRMATIONS);
    const underpaid = await statusBecomes(code, 'underpaid');
    expect(compareDecimals(underpaid.received_usd.toFixed(2), underpaid.amount_in_usd.toFixed(2))).toBe(-1);

    // The pay page asks for what is still due, at the same address.
    const rest = (await server.client.getPaymentLink({
      transaction_code: code,
      payment_method: 'usdc_polygon',
    })) as CryptoPaymentLink;
    expect(rest.address).toBe(link.address);
    const restUnits = decimalToScaled(rest.amount, 6);
    expect(restUnits).toBeGreaterThanOrEqual(1_000_000n);
    expect(restUnits).toBeLessThan(due);

    await chain.transfer(usdc, deposit, restUnits, { mine: true });
    await chain.mine(CONFIRMATIONS);
    const settled = await statusBecomes(code, 'settled');
    expect(
      compareDecimals(settled.received_usd.toFixed(2), settled.amount_in_usd.toFixed(2)),
    ).toBeGreaterThanOrEqual(0);

    const deposited = await chain.tokenBalance(usdc, link.address as `0x${string}`);
    expect(deposited).toBeGreaterThan(0n);
    await mineUntilForwarded(before + deposited);
    expect(await chain.tokenBalance(usdc, link.address as `0x${string}`)).toBe(0n);
    await eventually(
      async () => expect((await lookup(code)).payout_dispatched).toBe(true),
      EVENT_DEADLINE_MS,
    );
  });
});
