/**
 * Deposit mode when things go wrong: a sweeper without gas, a forward stuck in the node's pool, a
 * payment after the late window, a factory address that is not ours.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_DEADLINE_MS, eventually, startTestServer, type TestServer } from '../helpers.js';
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
  liveCheckoutBody,
  MERCHANT_WALLET,
  openLiveCheckout,
  waitForScan,
  waitForStatus,
} from './live-helpers.js';
import { type LocalChain, startLocalChain } from './local-chain.js';

const CONFIRMATIONS = 2;

let chain: LocalChain;
let usdc: `0x${string}`;
let factory: `0x${string}`;
const servers: TestServer[] = [];

beforeAll(async () => {
  chain = await startLocalChain();
  usdc = await chain.deployToken('USDC', 6);
  factory = await deployFactory(chain);
});
afterAll(async () => {
  for (const server of servers) await server.dispose();
  await chain?.close();
});

async function startDepositServer(
  sweeperKey: `0x${string}`,
  extra: Parameters<typeof depositOptions>[5] & { lateWindowHours?: number; expiryMinutes?: number } = {},
  factoryAddress: string = factory,
): Promise<TestServer> {
  const { lateWindowHours, expiryMinutes, ...forwarding } = extra;
  const server = await startTestServer({
    operatorToken: OPERATOR_TOKEN,
    ...depositOptions(chain, { 'POLYGON:USDC': usdc }, factoryAddress, sweeperKey, CONFIRMATIONS, forwarding),
    ...(lateWindowHours === undefined ? {} : { lateWindowHours }),
    ...(expiryMinutes === undefined ? {} : { expiryMinutes, sweepIntervalMs: 50 }),
  });
  servers.push(server);
  return server;
}

async function openCheckout(server: TestServer, reference: string, fiatAmount: string) {
  const { code, link, baseUnits } = await openLiveCheckout(server, {
    external_reference: reference,
    fiat_amount: fiatAmount,
  });
  return { code, deposit: link.address as `0x${string}`, amount: baseUnits };
}

const statusBecomes = waitForStatus;

/** Who holds the right to send forwards, from the server's SQLite file. */
function leaseHolders(dataDir: string): string[] {
  const db = new Database(join(dataDir, 'cryptocheckout.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT holder FROM forwarder_leases').all() as { holder: string }[]).map(
      (row) => row.holder,
    );
  } finally {
    db.close();
  }
}

interface ForwardingHealth {
  sending: boolean;
  sweeper: string;
  sweeperBalanceWei: string | null;
  needsGas: { neededWei: string; balanceWei: string } | null;
  depositsWaiting: number;
}

async function forwardingHealth(server: TestServer): Promise<ForwardingHealth> {
  const body = (await (await fetch(`${server.url}/api/health`)).json()) as {
    data: { networks: { POLYGON: { forwarding: ForwardingHealth } } };
  };
  return body.data.networks.POLYGON.forwarding;
}

/** Mines a block at a time until the forward carrying `deposit` is confirmed. */
async function mineUntilForwarded(server: TestServer, deposit: `0x${string}`): Promise<void> {
  await eventually(async () => {
    await chain.mine(1);
    await waitForScan(`${server.url}/api`, chain);
    expect(forwardStates(server.dataDir, deposit).at(-1)).toBe('confirmed');
  }, EVENT_DEADLINE_MS);
  expect(await chain.tokenBalance(usdc, deposit)).toBe(0n);
}

describe('deposit mode recovers', () => {
  it('keeps deposits waiting while the sweeper has no gas, says so in /api/health, and forwards once it is funded', async () => {
    const sweeper = sweeperOf('deposit-recovery no-gas');
    const server = await startDepositServer(sweeper.key);
    const { code, deposit, amount } = await openCheckout(server, 'no-gas', '41.00');
    const merchantBefore = await chain.tokenBalance(usdc, MERCHANT_WALLET);
    await chain.transfer(usdc, deposit, amount, { mine: true });
    await chain.mine(CONFIRMATIONS);
    const settled = await statusBecomes(server, code, 'settled');
    expect(settled.payout_dispatched).toBe(false);

    const waiting = await eventually(async () => {
      const health = await forwardingHealth(server);
      expect(health.needsGas).not.toBeNull();
      return health;
    }, EVENT_DEADLINE_MS);
    expect(waiting).toMatchObject({ sweeper: sweeper.address, sweeperBalanceWei: '0', depositsWaiting: 1 });
    expect(BigInt(waiting.needsGas!.neededWei)).toBeGreaterThan(0n);
    await chain.mine(2);
    await waitForScan(`${server.url}/api`, chain);
    expect(forwardStates(server.dataDir, deposit)).toEqual([]);
    expect(await chain.tokenBalance(usdc, deposit)).toBe(amount);

    await chain.fund(sweeper.address, 10n ** 17n, { mine: true });
    await mineUntilForwarded(server, deposit);
    expect(await chain.tokenBalance(usdc, MERCHANT_WALLET)).toBe(merchantBefore + amount);
    expect((await forwardingHealth(server)).needsGas).toBeNull();
    expect((await server.client.getTransaction(code)).payout_dispatched).toBe(true);
  });

  it('sends a stuck forward again with higher fees under the same nonce, and pays the merchant once', async () => {
    const sweeper = sweeperOf('deposit-recovery stuck');
    await chain.fund(sweeper.address, 10n ** 17n, { mine: true });
    const server = await startDepositServer(sweeper.key, { bumpAfterMs: 200 });
    const { code, deposit, amount } = await openCheckout(server, 'stuck', '42.00');
    const merchantBefore = await chain.tokenBalance(usdc, MERCHANT_WALLET);
    await chain.transfer(usdc, deposit, amount, { mine: true });
    await chain.mine(CONFIRMATIONS);
    await statusBecomes(server, code, 'settled');
    // Nothing is mined: the forward waits in the node's pool until the forwarder bumps its fees.
    const attempts = await eventually(async () => {
      const hashes = forwardAttempts(server.dataDir, deposit);
      expect(hashes.length).toBeGreaterThanOrEqual(2);
      expect(await nodeKnows(chain, hashes.at(-1)!)).toBe(true);
      return hashes;
    }, EVENT_DEADLINE_MS);
    expect(new Set(attempts).size).toBe(attempts.length);
    expect(forwardStates(server.dataDir, deposit)).toEqual(['sending']);

    await mineUntilForwarded(server, deposit);
    expect(forwardStates(server.dataDir, deposit)).toEqual(['confirmed']);
    expect(await chain.tokenBalance(usdc, MERCHANT_WALLET)).toBe(merchantBefore + amount);
  });

  it('records a deposit after the late window, forwards it, shows it to the operator, and leaves the order expired', async () => {
    const sweeper = sweeperOf('deposit-recovery late');
    await chain.fund(sweeper.address, 10n ** 17n, { mine: true });
    const server = await startDepositServer(sweeper.key, { expiryMinutes: 0.02, lateWindowHours: 0 });
    const { code, deposit, amount } = await openCheckout(server, 'too-late', '43.00');
    await statusBecomes(server, code, 'expired');
    const merchantBefore = await chain.tokenBalance(usdc, MERCHANT_WALLET);
    const txHash = await chain.transfer(usdc, deposit, amount, { mine: true });
    await chain.mine(CONFIRMATIONS);
    await mineUntilForwarded(server, deposit);
    expect(await chain.tokenBalance(usdc, MERCHANT_WALLET)).toBe(merchantBefore + amount);

    const order = await server.client.getTransaction(code);
    expect(order.status).toBe('expired');
    expect(order.payments).toEqual([]);
    const listed = (await operatorRequest(server, '/unmatched')).json.data.items;
    expect(listed.find((item: { tx_hash: string }) => item.tx_hash === txHash)).toMatchObject({
      transaction_code: code,
      unmatched_reason: expect.stringMatching(/did not count this deposit: .*no longer monitored/),
      forward: { state: 'confirmed' },
    });
  });

  it('gives up the sending lease when it stops, so a restarted node forwards at once', async () => {
    const sweeper = sweeperOf('deposit-recovery lease');
    const first = await startDepositServer(sweeper.key);
    await eventually(
      async () => expect((await forwardingHealth(first)).sending).toBe(true),
      EVENT_DEADLINE_MS,
    );
    expect(leaseHolders(first.dataDir)).toHaveLength(1);
    await first.close();
    expect(leaseHolders(first.dataDir)).toEqual([]);
    const restarted = await startTestServer(
      depositOptions(chain, { 'POLYGON:USDC': usdc }, factory, sweeper.key, CONFIRMATIONS),
      first.dataDir,
    );
    servers.push(restarted);
    await eventually(
      async () => expect((await forwardingHealth(restarted)).sending).toBe(true),
      EVENT_DEADLINE_MS,
    );
  });

  it('refuses deposit addresses when the factory address holds another contract, and says why', async () => {
    const server = await startDepositServer(sweeperOf('deposit-recovery factory').key, {}, usdc);
    const created = await server.client.createCheckout(
      liveCheckoutBody({ external_reference: 'bad-factory' }),
    );
    const option = created.payment_options.find((each) => each.slug === 'usdc_polygon')!;
    expect(option.available).toBe(false);
    expect(option.unavailable_reason).toBeTruthy();
    const health = (await (await fetch(`${server.url}/api/health`)).json()) as {
      data: { networks: { POLYGON: { depositFactoryProblem?: string } } };
    };
    expect(health.data.networks.POLYGON.depositFactoryProblem).toMatch(
      /is not this server's DepositFactory .* deploy-factory/,
    );
  });
});
