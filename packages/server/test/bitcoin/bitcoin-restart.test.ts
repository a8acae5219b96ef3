/**
 * Bitcoin live mode survives kill -9 (docs/bitcoin.md "Finding payments": a restart resumes from the
 * last scanned block). The server runs as its own process (the CLI, bundled from the current sources)
 * on a data directory it keeps across restarts, watching the loopback Bitcoin Core node. A payment
 * seen in the mempool before the kill and mined while the server is down, and a payment made and
 * mined while it is down, each settle once after the restart; the derivation index carries on, so no
 * address is handed out twice.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CryptoPaymentLink,
  createCheckoutClient,
  decimalToScaled,
  type Transaction,
} from '@cryptocheckout/core';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import type { BitcoinWatcherHealth } from '../../src/rails/bitcoin/bitcoin-watcher.js';
import { eventually, startWebhookReceiver } from '../helpers.js';
import { type ServerProcess, startServerProcess } from '../server-process.js';
import { bitcoinCheckoutBody, cents, MERCHANT_ZPUB } from './bitcoin-live-helpers.js';
import { type BitcoinTestNode, type Buyer, startBitcoinTestNode } from './bitcoin-test-node.js';

const NODE_PASSWORD = 'restart-node-secret';
/** Confirmations a payment needs: one block is not enough, so "seen" and "final" are two moments. */
const CONFIRMATIONS = 2;

/**
 * Each test has a node of its own: a fresh data directory hands out the key's addresses from index 0
 * again, and another test's payments to them must not be on its chain.
 */
let node: BitcoinTestNode;
let buyer: Buyer;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
const processes: ServerProcess[] = [];
const dataDirs: string[] = [];

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
beforeEach(async () => {
  node = await startBitcoinTestNode({ user: 'shop', password: NODE_PASSWORD });
  buyer = node.newBuyer(100_000_000_000n);
});
afterEach(async () => {
  for (const started of processes.splice(0)) await started.stop('SIGKILL');
  for (const directory of dataDirs.splice(0)) rmSync(directory, { recursive: true, force: true });
  await node?.close();
});
afterAll(async () => {
  await receiver?.close();
});

/** A data directory of the test's own under the OS temp folder, removed after the test. */
function newDataDir(): string {
  const directory = mkdtempSync(join(tmpdir(), 'cryptocheckout-bitcoin-restart-'));
  dataDirs.push(directory);
  return directory;
}

/** The CLI in live mode watching the test node on regtest, on `dataDir`. */
async function startLive(dataDir: string): Promise<ServerProcess> {
  const started = await startServerProcess([
    ...['--mode', 'live', '--data-dir', dataDir],
    // A chain suite: fixed prices, asked for twice (docs/rates.md).
    ...['--rates', 'static', '--i-know-prices-are-fixed'],
    ...['--rpc-url', `BITCOIN=${node.url}`, '--bitcoin-chain', 'regtest'],
    ...['--bitcoin-confirmations', String(CONFIRMATIONS)],
    ...['--poll-interval-ms', '25', '--allow-private-webhooks'],
  ]);
  processes.push(started);
  return started;
}

interface Opened {
  code: string;
  link: CryptoPaymentLink;
  sats: bigint;
}

async function open(server: ServerProcess, externalReference: string): Promise<Opened> {
  const client = createCheckoutClient({ baseUrl: server.apiBase });
  const created = await client.createCheckout(
    bitcoinCheckoutBody(MERCHANT_ZPUB, { external_reference: externalReference, webhook_url: receiver.url }),
  );
  const link = (await client.getPaymentLink({
    transaction_code: created.transaction_code,
    payment_method: 'btc_bitcoin',
  })) as CryptoPaymentLink;
  return { code: created.transaction_code, link, sats: decimalToScaled(link.amount, 8) };
}

/** Pays a checkout's whole amount to its derived address; the txid. */
const pay = (checkout: Opened) =>
  node.pay(buyer, [{ address: checkout.link.address, sats: checkout.sats }]).txid;

function waitForStatus(server: ServerProcess, code: string, status: string): Promise<Transaction> {
  const client = createCheckoutClient({ baseUrl: server.apiBase });
  return eventually(async () => {
    const transaction = await client.getTransaction(code);
    expect(transaction.status).toBe(status);
    return transaction;
  });
}

async function health(server: ServerProcess): Promise<BitcoinWatcherHealth> {
  const body = (await (await fetch(`${server.apiBase}/health`)).json()) as {
    data: { networks: { BITCOIN: BitcoinWatcherHealth } };
  };
  return body.data.networks.BITCOIN;
}

/** Waits until the watcher scanned the node's tip and made a few more polls (node calls) after that. */
async function waitForScan(server: ServerProcess): Promise<void> {
  const tip = node.tipHeight();
  const before = (await health(server)).rpcCalls;
  await eventually(async () => {
    const now = await health(server);
    expect(now.scannedHeight).toBeGreaterThanOrEqual(tip);
    expect(now.rpcCalls).toBeGreaterThan(before + 8);
  });
}

/** Rows of the server's SQLite file, read-only (the process may be running). */
function rows<T>(dataDir: string, sql: string, ...values: unknown[]): T[] {
  const db = new Database(join(dataDir, 'cryptocheckout.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all(...values) as T[];
  } finally {
    db.close();
  }
}

const storedTransfers = (dataDir: string) =>
  rows<{
    tx_hash: string;
    log_index: number;
    transaction_code: string | null;
    payment_id: string | null;
    unmatched_reason: string | null;
    confirmed: number;
  }>(
    dataDir,
    "SELECT tx_hash, log_index, transaction_code, payment_id, unmatched_reason, confirmed FROM chain_transfers WHERE network = 'BITCOIN'",
  );

const webhooksOf = (code: string) =>
  receiver.received
    .map((webhook) => JSON.parse(webhook.body) as { transaction_code: string; event: string })
    .filter((body) => body.transaction_code === code);

/** Everything that says "paid once" about the checkouts in `paid`, each paid by its one txid. */
async function expectSettledOnce(
  server: ServerProcess,
  dataDir: string,
  paid: ReadonlyArray<{ checkout: Opened; txid: string }>,
): Promise<void> {
  await eventually(() => {
    for (const { checkout } of paid) expect(webhooksOf(checkout.code)).toHaveLength(1);
  });
  // Let the restarted watcher poll many more times over the same blocks and mempool: nothing changes.
  const calls = (await health(server)).rpcCalls;
  await eventually(async () => expect((await health(server)).rpcCalls).toBeGreaterThan(calls + 40));
  const client = createCheckoutClient({ baseUrl: server.apiBase });
  for (const { checkout, txid } of paid) {
    const transaction = await client.getTransaction(checkout.code);
    expect(transaction.status).toBe('settled');
    expect(transaction.payments.map((payment) => [payment.tx_id, payment.amount])).toEqual([
      [txid, checkout.link.amount],
    ]);
    expect(cents(transaction.received_usd)).toBeGreaterThanOrEqual(cents(transaction.amount_in_usd));
    expect(webhooksOf(checkout.code)).toMatchObject([{ event: 'transaction.settled' }]);
  }
  // One delivery queued per paid checkout across both runs, marked delivered once the receiver answered.
  await eventually(() => {
    const deliveries = rows<{ transaction_code: string; state: string }>(
      dataDir,
      'SELECT transaction_code, state FROM webhook_outbox',
    );
    for (const { checkout } of paid) {
      expect(deliveries.filter((row) => row.transaction_code === checkout.code)).toEqual([
        { transaction_code: checkout.code, state: 'delivered' },
      ]);
    }
  });
  for (const { checkout, txid } of paid) {
    // One counted, final transfer per paying output, one payment for it, one step to settled.
    expect(storedTransfers(dataDir).filter((row) => row.tx_hash === txid)).toEqual([
      {
        tx_hash: txid,
        log_index: 0,
        transaction_code: checkout.code,
        payment_id: expect.any(String),
        unmatched_reason: null,
        confirmed: 1,
      },
    ]);
    expect(
      rows(dataDir, 'SELECT payment_id FROM payments WHERE transaction_code = ?', checkout.code),
    ).toHaveLength(1);
    const events = rows<{ from_status: string; to_status: string }>(
      dataDir,
      'SELECT from_status, to_status FROM transaction_events WHERE transaction_code = ? ORDER BY version',
      checkout.code,
    );
    expect(events.filter((event) => event.to_status === 'settled')).toHaveLength(1);
    // Never taken back: no step away from processing other than to settled.
    expect(
      events.filter((event) => event.from_status === 'processing' && event.to_status !== 'settled'),
    ).toEqual([]);
  }
}

it('settles once after kill -9 between seen and confirmed, finds a payment made while it was down, and hands out no address twice', async () => {
  const dataDir = newDataDir();
  let server = await startLive(dataDir);
  // seen: paid and seen in the mempool before the kill, mined while the server is down.
  const seen = await open(server, 'btc-restart-seen');
  // down: paid and mined while the server is down.
  const down = await open(server, 'btc-restart-down');
  // unpaid: must stay untouched by the others' payments.
  const unpaid = await open(server, 'btc-restart-unpaid');
  const before = [seen, down, unpaid].map((checkout) => checkout.link.address);
  expect(new Set(before).size).toBe(3);

  const seenTxid = pay(seen);
  const processing = await waitForStatus(server, seen.code, 'processing');
  expect(processing.received_usd).toBe(0);
  expect(storedTransfers(dataDir).filter((row) => row.tx_hash === seenTxid)).toMatchObject([
    { transaction_code: seen.code, confirmed: 0 },
  ]);
  await server.stop('SIGKILL');
  const killed = server;

  // While it is down: the seen payment is mined, the second one is made and mined, both deep enough.
  node.mine(1);
  const downTxid = pay(down);
  node.mine(CONFIRMATIONS);
  expect(node.mempool()).toEqual([]);

  server = await startLive(dataDir);
  // The derivation index carries on from where the killed run left it.
  const after = await open(server, 'btc-restart-after');
  expect(before).not.toContain(after.link.address);
  const indices = rows<{ address: string; derivation_index: number }>(
    dataDir,
    'SELECT address, derivation_index FROM bitcoin_scripts ORDER BY derivation_index',
  );
  expect(indices).toEqual(
    [...before, after.link.address].map((address, index) => ({ address, derivation_index: index })),
  );
  expect(rows(dataDir, 'SELECT next_index FROM bitcoin_wallets')).toEqual([{ next_index: 4 }]);

  const settledSeen = await waitForStatus(server, seen.code, 'settled');
  expect(settledSeen.payments.map((payment) => payment.tx_id)).toEqual([seenTxid]);
  const settledDown = await waitForStatus(server, down.code, 'settled');
  expect(settledDown.payments.map((payment) => payment.tx_id)).toEqual([downTxid]);
  await expectSettledOnce(server, dataDir, [
    { checkout: seen, txid: seenTxid },
    { checkout: down, txid: downTxid },
  ]);
  const client = createCheckoutClient({ baseUrl: server.apiBase });
  for (const { code } of [unpaid, after]) {
    expect(await client.getTransaction(code)).toMatchObject({
      status: 'pending',
      received_usd: 0,
      payments: [],
    });
    expect(webhooksOf(code)).toEqual([]);
  }
  await server.stop();
  // The node's password (in the --rpc-url given) is in no output of either run.
  for (const run of [killed, server]) {
    expect(run.output()).toContain('Watching      BITCOIN');
    expect(run.output()).not.toContain(NODE_PASSWORD);
  }
});

// Catching up after the restart the watcher reads 20 blocks a poll; a payment seen in the mempool
// before the kill and mined further on is missing from the mempool for several polls meanwhile, and
// must not be taken back as dropped for it (it was, before fa56e20).
it('keeps a payment seen before the kill when more than two polls’ worth of blocks (40) were mined before it', async () => {
  const dataDir = newDataDir();
  let server = await startLive(dataDir);
  const seen = await open(server, 'btc-restart-behind');
  const seenTxid = pay(seen);
  await waitForStatus(server, seen.code, 'processing');
  await waitForScan(server);
  await server.stop('SIGKILL');

  // A long outage: 45 blocks without the payment (a low fee waits), then it is mined and confirmed.
  node.mine(45, { exclude: [seenTxid] });
  expect(node.mempool()).toEqual([seenTxid]);
  node.mine(CONFIRMATIONS);
  expect(node.mempool()).toEqual([]);

  server = await startLive(dataDir);
  const settled = await waitForStatus(server, seen.code, 'settled');
  expect(settled.payments.map((payment) => payment.tx_id)).toEqual([seenTxid]);
  await expectSettledOnce(server, dataDir, [{ checkout: seen, txid: seenTxid }]);
  // Catching up, the watcher never took the payment back: it was in a block it had not read yet.
  expect((await health(server)).dropped).toBe(0);
  await server.stop();
});
