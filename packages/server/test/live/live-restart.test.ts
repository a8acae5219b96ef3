import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CryptoPaymentLink, createCheckoutClient, decimalToScaled } from '@cryptocheckout/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually } from '../helpers.js';
import { type ServerProcess, startServerProcess } from '../server-process.js';
import {
  liveCheckoutBody,
  MERCHANT_WALLET,
  storedTransfers,
  waitForScan,
  watcherHealth,
} from './live-helpers.js';
import { type LocalChain, startLocalChain } from './local-chain.js';

let chain: LocalChain;
let usdc: `0x${string}`;
let dataDir: string;
const processes: ServerProcess[] = [];

beforeAll(async () => {
  chain = await startLocalChain();
  usdc = await chain.deployToken('USDC', 6);
  dataDir = mkdtempSync(join(tmpdir(), 'cryptocheckout-live-restart-'));
});
afterAll(async () => {
  for (const process of processes) await process.stop('SIGKILL');
  await chain?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function startLive(): Promise<ServerProcess> {
  const started = await startServerProcess([
    '--mode',
    'live',
    // A chain suite: fixed prices, asked for twice (docs/rates.md).
    '--rates',
    'static',
    '--i-know-prices-are-fixed',
    '--data-dir',
    dataDir,
    '--rpc-url',
    `POLYGON=${chain.rpcUrl}`,
    '--token',
    `POLYGON:USDC=${usdc}`,
    '--confirmations',
    'POLYGON=2',
    '--poll-interval-ms',
    '20',
    '--max-block-range',
    '4',
  ]);
  processes.push(started);
  return started;
}

it('resumes from its cursor after being killed mid-scan and counts every payment once', async () => {
  let server = await startLive();
  const client = createCheckoutClient({ baseUrl: server.apiBase });
  const checkouts: Array<{ code: string; baseUnits: bigint }> = [];
  for (let index = 0; index < 6; index++) {
    const created = await client.createCheckout(liveCheckoutBody({ external_reference: `restart-${index}` }));
    const link = (await client.getPaymentLink({
      transaction_code: created.transaction_code,
      payment_method: 'usdc_polygon',
    })) as CryptoPaymentLink;
    checkouts.push({ code: created.transaction_code, baseUnits: decimalToScaled(link.amount, 6) });
  }
  await waitForScan(server.apiBase, chain);
  const cursorAtKill = BigInt((await watcherHealth(server.apiBase)).scannedTo!);
  await server.stop('SIGKILL');

  // While the server is down, the six payments land spread over 60 blocks.
  const txHashes: string[] = [];
  for (const { baseUnits } of checkouts) {
    txHashes.push(await chain.transfer(usdc, MERCHANT_WALLET, baseUnits));
    await chain.mine(10);
  }
  const head = await chain.head();

  // A slow endpoint lets the test kill the next run part-way through the backlog.
  chain.rpcLatency(15);
  server = await startLive();
  const partWay = await eventually(async () => {
    const scannedTo = (await watcherHealth(server.apiBase)).scannedTo;
    expect(scannedTo !== null && BigInt(scannedTo) >= cursorAtKill + 12n).toBe(true);
    return BigInt(scannedTo!);
  });
  await server.stop('SIGKILL');
  expect(partWay).toBeLessThan(head);
  chain.rpcLatency(0);

  server = await startLive();
  const restarted = createCheckoutClient({ baseUrl: server.apiBase });
  for (const { code, baseUnits } of checkouts) {
    const settled = await eventually(async () => {
      const transaction = await restarted.getTransaction(code);
      expect(transaction.status).toBe('settled');
      return transaction;
    });
    expect(settled.payments).toHaveLength(1);
    expect(decimalToScaled(settled.payments[0]!.amount, 6)).toBe(baseUnits);
  }
  await server.stop();
  const stored = storedTransfers(dataDir).filter((transfer) => txHashes.includes(transfer.tx_hash));
  expect(stored).toHaveLength(6);
  expect(stored.every((transfer) => transfer.confirmed === 1 && transfer.payment_id !== null)).toBe(true);
});
