/**
 * Deposit mode as an operator runs it: the factory deployed with `cryptocheckout-server
 * deploy-factory`, the server as its own process, killed with SIGKILL around sending a forward.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CryptoPaymentLink, createCheckoutClient, decimalToScaled } from '@cryptocheckout/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bundledCli } from '../cli-bundle.js';
import { EVENT_DEADLINE_MS, eventually } from '../helpers.js';
import { type ServerProcess, startServerProcess } from '../server-process.js';
import { forwardAttempts, forwardStates, nodeKnows, sweeperOf } from './deposit-helpers.js';
import { liveCheckoutBody, MERCHANT_WALLET, waitForScan } from './live-helpers.js';
import { type LocalChain, startLocalChain } from './local-chain.js';

let chain: LocalChain;
let usdc: `0x${string}`;
let folder: string;
const processes: ServerProcess[] = [];

beforeAll(async () => {
  chain = await startLocalChain();
  usdc = await chain.deployToken('USDC', 6);
  folder = mkdtempSync(join(tmpdir(), 'cryptocheckout-deposit-restart-'));
});
afterAll(async () => {
  for (const process of processes) await process.stop('SIGKILL');
  await chain?.close();
  rmSync(folder, { recursive: true, force: true });
});

/** Runs `cryptocheckout-server <args>` to its end, mining a block whenever `mineOn` shows in its output. */
async function runCli(args: string[], mineOn: RegExp): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [await bundledCli(), ...args], { cwd: folder });
  let output = '';
  let mined = false;
  const collect = (chunk: Buffer) => {
    output += chunk;
    if (!mined && mineOn.test(output)) {
      mined = true;
      void chain.mine(1);
    }
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, output };
}

function keyFile(name: string, key: string): string {
  const file = join(folder, `${name}.key`);
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return file;
}

async function startDepositProcess(dataDir: string, factory: string, sweeperKeyFile: string) {
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
    '--deposit-factory',
    `POLYGON=${factory}`,
    '--sweeper-key-file',
    sweeperKeyFile,
    // A killed node's lease runs out in 2 s instead of a minute: the restart below waits for it.
    '--forwarding-lease-ms',
    '2000',
  ]);
  processes.push(started);
  return started;
}

async function payDeposit(server: ServerProcess, reference: string) {
  const client = createCheckoutClient({ baseUrl: server.apiBase });
  const created = await client.createCheckout(liveCheckoutBody({ external_reference: reference }));
  const link = (await client.getPaymentLink({
    transaction_code: created.transaction_code,
    payment_method: 'usdc_polygon',
  })) as CryptoPaymentLink;
  const amount = decimalToScaled(link.amount, 6);
  await chain.transfer(usdc, link.address as `0x${string}`, amount, { mine: true });
  await chain.mine(2);
  return { code: created.transaction_code, deposit: link.address as `0x${string}`, amount };
}

it('deploys the factory from the CLI, and forwards each deposit once across SIGKILL before and after sending', async () => {
  const sweeper = sweeperOf('deposit-restart');
  await chain.fund(sweeper.address, 10n ** 18n, { mine: true });
  const sweeperKeyFile = keyFile('sweeper', sweeper.key);
  const deployed = await runCli(
    ['deploy-factory', '--rpc-url', `POLYGON=${chain.rpcUrl}`, '--sweeper-key-file', sweeperKeyFile],
    /waiting for it to be mined/,
  );
  expect(deployed.code, deployed.output).toBe(0);
  const factory = /DepositFactory: (0x[0-9a-fA-F]{40})/.exec(deployed.output)?.[1];
  expect(factory, deployed.output).toBeDefined();
  expect(deployed.output).not.toContain(sweeper.key.slice(2));

  // Two servers of their own (their own SQLite): one is killed after its forward reached the node,
  // the other after storing its forward while the node refused to take it.
  const sentDir = join(folder, 'sent');
  const storedDir = join(folder, 'stored');
  const otherSweeper = sweeperOf('deposit-restart second');
  await chain.fund(otherSweeper.address, 10n ** 18n, { mine: true });
  const otherKeyFile = keyFile('second', otherSweeper.key);
  const merchantBefore = await chain.tokenBalance(usdc, MERCHANT_WALLET);

  const sentServer = await startDepositProcess(sentDir, factory!, sweeperKeyFile);
  const sent = await payDeposit(sentServer, 'killed-after-send');
  const [sentHash] = await eventually(async () => {
    const hashes = forwardAttempts(sentDir, sent.deposit);
    expect(hashes).toHaveLength(1);
    expect(await nodeKnows(chain, hashes[0]!)).toBe(true);
    return hashes;
  }, EVENT_DEADLINE_MS);
  await sentServer.stop('SIGKILL');

  chain.refuseMethod('eth_sendRawTransaction');
  const storedServer = await startDepositProcess(storedDir, factory!, otherKeyFile);
  const stored = await payDeposit(storedServer, 'killed-before-send');
  const [storedHash] = await eventually(async () => {
    const hashes = forwardAttempts(storedDir, stored.deposit);
    expect(hashes).toHaveLength(1);
    return hashes;
  }, EVENT_DEADLINE_MS);
  expect(await nodeKnows(chain, storedHash!)).toBe(false);
  await storedServer.stop('SIGKILL');
  chain.refuseMethod(null);

  // The first forward is mined while no server runs.
  await chain.mine(1);
  expect(await chain.tokenBalance(usdc, sent.deposit)).toBe(0n);
  expect(await nodeKnows(chain, sentHash!)).toBe(true);

  // Restarted, each finds its forward: the first by its receipt, the second is sent from its
  // stored signed transaction once the killed process's sending lease has run out.
  const restarted = [
    await startDepositProcess(sentDir, factory!, sweeperKeyFile),
    await startDepositProcess(storedDir, factory!, otherKeyFile),
  ];
  await eventually(async () => {
    await chain.mine(1);
    for (const server of restarted) await waitForScan(server.apiBase, chain);
    expect(forwardStates(sentDir, sent.deposit)).toEqual(['confirmed']);
    expect(forwardStates(storedDir, stored.deposit)).toEqual(['confirmed']);
  }, EVENT_DEADLINE_MS);
  expect(forwardAttempts(sentDir, sent.deposit)).toEqual([sentHash]);
  expect(forwardAttempts(storedDir, stored.deposit)).toEqual([storedHash]);
  expect(await chain.tokenBalance(usdc, stored.deposit)).toBe(0n);
  expect(await chain.tokenBalance(usdc, MERCHANT_WALLET)).toBe(merchantBefore + sent.amount + stored.amount);
  for (const [index, { code }] of [sent, stored].entries()) {
    const client = createCheckoutClient({ baseUrl: restarted[index]!.apiBase });
    const transaction = await client.getTransaction(code);
    expect(transaction).toMatchObject({ status: 'settled', payout_dispatched: true });
  }
});
