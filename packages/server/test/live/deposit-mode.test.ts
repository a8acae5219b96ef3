/**
 * Deposit mode on a local EVM chain: the DepositFactory compiled by the build and deployed here,
 * a forwarder address per checkout, any amount counted, confirmed deposits forwarded to the
 * merchant's wallet by the sweeper.
 */
import { join } from 'node:path';
import {
  type CryptoPaymentLink,
  compareDecimals,
  decimalToScaled,
  type Transaction,
} from '@cryptocheckout/core';
import Database from 'better-sqlite3';
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
  deployFactory,
  depositOptions,
  forwardAttempts,
  forwardStates,
  nodeKnows,
  sweeperOf,
} from './deposit-helpers.js';
import {
  MERCHANT_WALLET,
  openLiveCheckout,
  storedTransfers,
  waitForScan,
  waitForStatus,
} from './live-helpers.js';
import { type LocalChain, startLocalChain } from './local-chain.js';

const { key: SWEEPER_KEY, address: SWEEPER } = sweeperOf('deposit-mode test');
const CONFIRMATIONS = 3;

let chain: LocalChain;
let usdc: `0x${string}`;
let usdt: `0x${string}`;
let factory: `0x${string}`;
let server: TestServer;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let apiBase: string;

beforeAll(async () => {
  chain = await startLocalChain();
  usdc = await chain.deployToken('USDC', 6);
  usdt = await chain.deployToken('USDT', 6);
  factory = await deployFactory(chain);
  await chain.fund(SWEEPER, 10n ** 18n, { mine: true });
  receiver = await startWebhookReceiver();
  server = await startTestServer({
    operatorToken: OPERATOR_TOKEN,
    ...depositOptions(
      chain,
      { 'POLYGON:USDC': usdc, 'POLYGON:USDT': usdt },
      factory,
      SWEEPER_KEY,
      CONFIRMATIONS,
    ),
  });
  apiBase = `${server.url}/api`;
});
afterAll(async () => {
  await server?.dispose();
  await receiver?.close();
  await chain?.close();
});

const openCheckout = (overrides: Record<string, unknown> = {}) =>
  openLiveCheckout(server, { webhook_url: receiver.url, ...overrides });

const lookup = (code: string): Promise<Transaction> => server.client.getTransaction(code);

const statusBecomes = (code: string, status: string) => waitForStatus(server, code, status);

/** Mines until the forward carrying the deposits at `deposit` is confirmed; the address is then empty. */
async function mineUntilForwarded(deposit: `0x${string}`, token = usdc): Promise<void> {
  await eventually(async () => {
    await chain.mine(1);
    await waitForScan(apiBase, chain);
    expect(forwardStates(server.dataDir, deposit).at(-1)).toBe('confirmed');
  }, EVENT_DEADLINE_MS);
  expect(await chain.tokenBalance(token, deposit)).toBe(0n);
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

    const deposited = due - 1_000_000n + restUnits;
    expect(await chain.tokenBalance(usdc, deposit)).toBe(deposited);
    await mineUntilForwarded(deposit);
    expect(await chain.tokenBalance(usdc, MERCHANT_WALLET)).toBe(before + deposited);
    await eventually(
      async () => expect((await lookup(code)).payout_dispatched).toBe(true),
      EVENT_DEADLINE_MS,
    );
  });

  it('shows a top-up that left with the forward of the first part as carried by that forward', async () => {
    const { code, link } = await openCheckout({
      external_reference: 'deposit-ride-along',
      fiat_amount: '35.00',
    });
    const deposit = link.address as `0x${string}`;
    const due = decimalToScaled(link.amount, 6);
    const before = await chain.tokenBalance(usdc, MERCHANT_WALLET);
    await chain.transfer(usdc, deposit, due - 2_000_000n, { mine: true });
    await chain.mine(CONFIRMATIONS);
    await statusBecomes(code, 'underpaid');
    // The node does not take the forward of the first part yet; meanwhile the top-up is mined.
    chain.refuseMethod('eth_sendRawTransaction');
    try {
      await eventually(
        () => expect(forwardAttempts(server.dataDir, deposit)).toHaveLength(1),
        EVENT_DEADLINE_MS,
      );
      await chain.transfer(usdc, deposit, 2_000_000n, { mine: true });
    } finally {
      chain.refuseMethod(null);
    }
    // The forward now moves the whole balance, top-up included.
    await eventually(async () => {
      expect(await nodeKnows(chain, forwardAttempts(server.dataDir, deposit)[0]!)).toBe(true);
    }, EVENT_DEADLINE_MS);
    await chain.mine(1);
    expect(await chain.tokenBalance(usdc, MERCHANT_WALLET)).toBe(before + due);
    await chain.mine(CONFIRMATIONS);
    await statusBecomes(code, 'settled');
    await mineUntilForwarded(deposit);
    const transfers = (await operatorRequest(server, `/transactions/${code}`)).json.data.chain_transfers;
    expect(transfers).toHaveLength(2);
    const [first, topUp] = transfers;
    expect(first.forward).toMatchObject({ state: 'confirmed' });
    expect(topUp.forward).toEqual(first.forward);
    expect(forwardStates(server.dataDir, deposit)).toEqual(['confirmed']);
    expect((await lookup(code)).payout_dispatched).toBe(true);
  });

  it('reads every transfer of the token once over 1,000 addresses are open, and keeps only its own', async () => {
    // 1,001 more open deposit addresses, as a busy server has them.
    const db = new Database(join(server.dataDir, 'cryptocheckout.sqlite'));
    try {
      const insert = db.prepare(
        `INSERT INTO deposit_forwarders (network, address, transaction_code, payment_method, merchant, salt, factory, created_at)
         VALUES ('POLYGON', ?, ?, 'usdc_polygon', ?, ?, ?, ?)`,
      );
      db.transaction(() => {
        for (let index = 0; index < 1001; index++) {
          const address = `0x${(0xd0000000 + index).toString(16).padStart(40, '0')}`;
          const code = `00000000-0000-4000-8000-${index.toString().padStart(12, '0')}`;
          const salt = `0x${index.toString(16).padStart(64, '0')}`;
          insert.run(
            address,
            code,
            MERCHANT_WALLET.toLowerCase(),
            salt,
            factory.toLowerCase(),
            new Date().toISOString(),
          );
        }
      })();
    } finally {
      db.close();
    }
    const { code, link } = await openCheckout({ external_reference: 'deposit-many', fiat_amount: '36.00' });
    const stranger = '0x00000000000000000000000000000000000000b7' as const;
    const strangerHash = await chain.transfer(usdc, stranger, 5_000_000n);
    await chain.transfer(usdc, link.address as `0x${string}`, decimalToScaled(link.amount, 6), {
      mine: true,
    });
    await chain.mine(CONFIRMATIONS);
    const settled = await statusBecomes(code, 'settled');
    expect(settled.payments).toHaveLength(1);
    expect(storedTransfers(server.dataDir).some((transfer) => transfer.tx_hash === strangerHash)).toBe(false);
    await mineUntilForwarded(link.address as `0x${string}`);
  });

  it('counts an overpayment whole and forwards all of it', async () => {
    const { code, link } = await openCheckout({ external_reference: 'deposit-over', fiat_amount: '31.00' });
    const deposit = link.address as `0x${string}`;
    const sent = decimalToScaled(link.amount, 6) + 5_000_000n;
    const before = await chain.tokenBalance(usdc, MERCHANT_WALLET);
    await chain.transfer(usdc, deposit, sent, { mine: true });
    await chain.mine(CONFIRMATIONS);
    const settled = await statusBecomes(code, 'settled');
    expect(compareDecimals(settled.received_usd.toFixed(2), settled.amount_in_usd.toFixed(2))).toBe(1);
    await mineUntilForwarded(deposit);
    expect(await chain.tokenBalance(usdc, MERCHANT_WALLET)).toBe(before + sent);
  });

  it('keeps another token sent to the address for the operator: not counted, forwarded once the operator approves', async () => {
    const { code, link } = await openCheckout({ external_reference: 'deposit-usdt', fiat_amount: '32.00' });
    const deposit = link.address as `0x${string}`;
    const merchantUsdt = await chain.tokenBalance(usdt, MERCHANT_WALLET);
    const txHash = await chain.transfer(usdt, deposit, decimalToScaled(link.amount, 6), { mine: true });
    await chain.mine(CONFIRMATIONS);
    await waitForScan(apiBase, chain);
    const transaction = await lookup(code);
    expect(transaction.status).toBe('pending');
    expect(transaction.payments).toEqual([]);
    const kept = storedTransfers(server.dataDir).filter((transfer) => transfer.transaction_code === code);
    expect(kept).toHaveLength(1);
    expect(kept[0]!.unmatched_reason).toMatch(
      /USDT arrived at the deposit address .* asked for USDC: not counted/,
    );
    await chain.mine(2);
    await waitForScan(apiBase, chain);
    expect(await chain.tokenBalance(usdt, deposit)).toBe(decimalToScaled(link.amount, 6));

    // The operator sees it waiting for approval; it cannot be attached as a payment of anything.
    const listed = (await operatorRequest(server, '/unmatched')).json.data.items;
    expect(listed.find((item: { tx_hash: string }) => item.tx_hash === txHash)).toMatchObject({
      asset: 'USDT',
      transaction_code: code,
      forward: { state: 'needs_approval', tx_hash: null },
      resolution: null,
    });
    const transfer = `/transfers/POLYGON/${txHash}/${kept[0]!.log_index}`;
    const attach = await operatorRequest(server, `${transfer}/attach`, { body: { transaction_code: code } });
    expect(attach.status).toBe(409);
    expect(attach.json.error.message).toMatch(/deposit address .* belongs to that checkout/);
    const approved = await operatorRequest(server, `${transfer}/forward`, {
      body: { note: 'buyer sent USDT' },
    });
    expect(approved.status).toBe(200);
    expect(approved.json.data).toMatchObject({
      forward: { state: 'waiting' },
      resolution: { kind: 'forward_approved', note: 'by the operator token: buyer sent USDT' },
    });
    // Approving twice is refused with the first decision named.
    const again = await operatorRequest(server, `${transfer}/forward`, { body: {} });
    expect(again.status).toBe(409);
    expect(again.json.error.message).toMatch(/resolved already \(forward_approved at /);

    await mineUntilForwarded(deposit, usdt);
    expect(await chain.tokenBalance(usdt, MERCHANT_WALLET)).toBe(
      merchantUsdt + decimalToScaled(link.amount, 6),
    );
    const after = await lookup(code);
    expect(after.status).toBe('pending');
    expect(after.payments).toEqual([]);
    const detail = (await operatorRequest(server, `/transactions/${code}`)).json.data;
    expect(detail.chain_transfers[0]).toMatchObject({
      asset: 'USDT',
      forward: { state: 'confirmed', tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) },
    });
  });

  it('takes back a deposit whose block left the chain before its confirmation, and counts it once when it returns', async () => {
    const { code, link } = await openCheckout({ external_reference: 'deposit-reorg', fiat_amount: '33.00' });
    const deposit = link.address as `0x${string}`;
    const amount = decimalToScaled(link.amount, 6);
    const mark = await chain.mark();
    await chain.transfer(usdc, deposit, amount, { mine: true });
    await statusBecomes(code, 'processing');
    await chain.revertTo(mark);
    await chain.mine(2);
    await statusBecomes(code, 'pending');
    await chain.transfer(usdc, deposit, amount, { mine: true });
    await chain.mine(CONFIRMATIONS);
    const settled = await statusBecomes(code, 'settled');
    expect(settled.payments).toHaveLength(1);
    await mineUntilForwarded(deposit);
  });

  it('sends a forward again when its block leaves the chain, and pays the merchant once', async () => {
    const { code, link } = await openCheckout({
      external_reference: 'deposit-forward-reorg',
      fiat_amount: '34.00',
    });
    const deposit = link.address as `0x${string}`;
    const amount = decimalToScaled(link.amount, 6);
    const before = await chain.tokenBalance(usdc, MERCHANT_WALLET);
    await chain.transfer(usdc, deposit, amount, { mine: true });
    await chain.mine(CONFIRMATIONS);
    await statusBecomes(code, 'settled');
    // The forward is sent once the deposit is confirmed: wait until the node holds it, then mine it.
    await eventually(async () => {
      expect(forwardStates(server.dataDir, deposit)).toEqual(['sending']);
      // Stored before it is sent: wait until the node holds it too.
      const [hash] = forwardAttempts(server.dataDir, deposit);
      expect(await nodeKnows(chain, hash!)).toBe(true);
    }, EVENT_DEADLINE_MS);
    const mark = await chain.mark();
    await chain.mine(1);
    expect(await chain.tokenBalance(usdc, MERCHANT_WALLET)).toBe(before + amount);
    await chain.revertTo(mark);
    expect(await chain.tokenBalance(usdc, MERCHANT_WALLET)).toBe(before);
    await mineUntilForwarded(deposit);
    // The same forward, sent again: not a second one.
    expect(forwardStates(server.dataDir, deposit)).toEqual(['confirmed']);
    expect(await chain.tokenBalance(usdc, MERCHANT_WALLET)).toBe(before + amount);
  });
});
