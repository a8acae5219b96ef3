#!/usr/bin/env node
// Bitcoin live-mode benchmark on the tests' Bitcoin node (packages/server/test/bitcoin/bitcoin-test-node.ts:
// a loopback Bitcoin Core JSON-RPC endpoint over real regtest blocks and transactions, in this process;
// the reference server as built in a child process, SQLite in a temp dir):
//   node calls per block with 1,000 and with 100,000 open Bitcoin checkouts of one merchant key (goal:
//   equal; docs/bitcoin.md "Finding payments"). A few checkouts are opened through the API (the BIP84
//   zpub of the tests), the rest are copies of one of them written straight into the stopped server's
//   SQLite file: `transactions`, `bitcoin_scripts` with the script really derived from the key at a
//   fresh index (the server's own dist/rails/bitcoin/bitcoin-keys.js), its `deposit_addresses` and
//   `asset_rate_locks` rows, and the key's `bitcoin_wallets.next_index` moved past them. The server
//   then watches them all. Over a fixed number of blocks, each holding a few payments to open checkouts
//   (some opened through the API, one a copy at one of the highest indexes) and thousands of filler
//   transactions (so the watcher looks up thousands of output scripts per block among the watched
//   ones), the calls per method as the node counted them, the watcher's own rpcCalls and callsLastPoll
//   (/api/health), the time from mining to the watcher asking for the block and to the paid checkouts
//   being processing and settled, and the server's CPU time (Linux: /proc of the child).
// The payments and the block come in the same tick: the watcher first sees them mined, so they go from
// pending to settled (1 confirmation) in one poll.
// Prints figures to compare between versions; no pass/fail thresholds.
// Knobs (defaults): BENCH_BITCOIN_SIZES (1000,100000), BENCH_BITCOIN_BLOCKS (10),
// BENCH_BITCOIN_PAYMENTS (2 opened through the API per block, plus 1 copy), BENCH_BITCOIN_FILLER (2000
// transactions per block), BENCH_BITCOIN_POLL_MS (250).
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { decimalToScaled } from '@cryptocheckout/core';
import Database from 'better-sqlite3';
import { addressOfScript, parseBitcoinReceiver } from '../packages/server/dist/rails/bitcoin/bitcoin-keys.js';
import { importBitcoinTestNode } from './local-chain-import.mjs';
import { api, startServerChild, stopServerChildren } from './server-children.mjs';

const environment = process.env;
const numbers = (value, fallback) => (value ?? fallback).split(',').map(Number);
const SIZES = numbers(environment.BENCH_BITCOIN_SIZES, '1000,100000');
const BLOCKS = Number(environment.BENCH_BITCOIN_BLOCKS ?? 10);
const PAYMENTS = Number(environment.BENCH_BITCOIN_PAYMENTS ?? 2);
const FILLER = Number(environment.BENCH_BITCOIN_FILLER ?? 2000);
const POLL_MS = Number(environment.BENCH_BITCOIN_POLL_MS ?? 250);
/** Checkouts opened through the API: PAYMENTS per block, and one more, never paid, that is copied. */
const OPENED = BLOCKS * PAYMENTS + 1;
if (
  !(
    SIZES.every((size) => Number.isInteger(size) && size >= OPENED + BLOCKS) &&
    Number.isInteger(BLOCKS) &&
    BLOCKS >= 1 &&
    Number.isInteger(PAYMENTS) &&
    PAYMENTS >= 0 &&
    Number.isInteger(FILLER) &&
    FILLER >= 1 &&
    FILLER <= 6000 &&
    POLL_MS >= 25
  )
) {
  throw new Error(
    `Need BENCH_BITCOIN_SIZES ≥ BENCH_BITCOIN_BLOCKS × (BENCH_BITCOIN_PAYMENTS + 1) + 1 (${OPENED + BLOCKS}), BENCH_BITCOIN_BLOCKS ≥ 1, BENCH_BITCOIN_FILLER 1–6000, BENCH_BITCOIN_POLL_MS ≥ 25.`,
  );
}

/** BIP84's published account key ("abandon … about"), as packages/server/test/bitcoin/bitcoin-live-helpers.ts. */
const MERCHANT_ZPUB =
  'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
const CHAIN = 'regtest';
/** The methods the watcher calls (docs/bitcoin.md "Finding payments"), in the tables' order. */
const METHODS = [
  'getblockchaininfo',
  'getbestblockhash',
  'getblockcount',
  'getblockhash',
  'getblock',
  'getrawmempool',
  'getrawtransaction',
];

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms) => (ms / 1000).toFixed(1);
const benchStart = performance.now();
const elapsed = () => `${seconds(performance.now() - benchStart)} s`;
const progress = (line) => process.stdout.write(`  [${elapsed()}] ${line}\n`);
const thousands = (value) => value.toLocaleString('en-US');
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
const ratio = (large, small) =>
  small === 0 ? (large === 0 ? '×1.00' : '×∞') : `×${(large / small).toFixed(2)}`;

const directories = [];
const temporaryDirectory = () => {
  const directory = mkdtempSync(join(tmpdir(), 'cryptocheckout-bench-bitcoin-'));
  directories.push(directory);
  return directory;
};

function liveOptions(dataDir) {
  return {
    port: 0,
    dataDir,
    logLevel: 'silent',
    mode: 'live',
    rates: { source: 'static', fixedPricesInLiveMode: true },
    live: { rpcUrls: { BITCOIN: node.url }, bitcoinChain: CHAIN, pollIntervalMs: POLL_MS },
    webhooks: { allowPrivateTargets: true },
    newHoldLimits: { perClientPerMinute: 0, perPricePerMinute: 0 },
  };
}

/** Opens a live checkout paid in BTC to the merchant key and asks for its link; returns its code, address and sats. */
async function openCheckout(server, externalReference) {
  const created = await api(server, 'POST', '/checkout', {
    fiat_amount: '25.00',
    fiat_currency: 'EUR',
    external_reference: externalReference,
    customer: { wallet_address: MERCHANT_ZPUB, crypto_currency: 'BTC', crypto_currency_network: 'BITCOIN' },
  });
  const code = created.transaction_code;
  const link = await api(server, 'GET', `/payment_link?transaction_code=${code}&payment_method=btc_bitcoin`);
  return { code, address: link.address, sats: decimalToScaled(link.amount, 8) };
}

/** Opens `count` checkouts, a few requests at a time (in order: each takes the key's next index). */
async function openCheckouts(server, count, prefix) {
  const checkouts = [];
  for (let index = 0; index < count; index += 8) {
    const batch = [];
    for (let each = index; each < Math.min(count, index + 8); each++) {
      batch.push(openCheckout(server, `${prefix}-${each}`));
    }
    checkouts.push(...(await Promise.all(batch)));
  }
  return checkouts;
}

/**
 * A GET of the API, again on a connection the server closed as the request went out: while the bench
 * signs a block's filler its event loop is busy for seconds, and a kept-alive connection can expire.
 */
async function read(server, path) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await api(server, 'GET', path);
    } catch (error) {
      if (attempt >= 3 || !(error instanceof TypeError)) throw error;
    }
  }
}
const bitcoinHealth = async (server) => (await read(server, '/health')).networks.BITCOIN;
const statusOf = async (server, code) => (await read(server, `/transaction?transaction_code=${code}`)).status;

// Derivation runs on every core: about 1.4 ms an address on one core, 100,000 of them otherwise take minutes.
const DERIVE_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const keys = await import(workerData.keysUrl);
  const blocks = await import(workerData.blocksUrl);
  const receiver = keys.parseBitcoinReceiver(workerData.key);
  const scripts = [];
  const addresses = [];
  for (let index = workerData.first; index < workerData.end; index++) {
    const script = receiver.scriptAt(index);
    scripts.push(blocks.scriptHex(script));
    addresses.push(keys.addressOfScript(script, workerData.chain));
  }
  parentPort.postMessage({ scripts, addresses });
})().catch((error) => { throw error; });
`;

/** The output scripts (hex, as `bitcoin_scripts.script_hex`) and addresses of receive indexes first … first+count-1. */
async function deriveScripts(first, count) {
  const workers = Math.max(1, Math.min(cpus().length, 8));
  const share = Math.ceil(count / workers);
  const parts = [];
  for (let start = first; start < first + count; start += share) {
    const end = Math.min(first + count, start + share);
    parts.push(
      new Promise((resolve, reject) => {
        const worker = new Worker(DERIVE_WORKER, {
          eval: true,
          workerData: {
            keysUrl: new URL('../packages/server/dist/rails/bitcoin/bitcoin-keys.js', import.meta.url).href,
            blocksUrl: new URL('../packages/server/dist/rails/bitcoin/bitcoin-blocks.js', import.meta.url)
              .href,
            key: MERCHANT_ZPUB,
            chain: CHAIN,
            first: start,
            end,
          },
        });
        worker.once('message', (result) => {
          resolve(result);
          worker.terminate();
        });
        worker.once('error', reject);
      }),
    );
  }
  const results = await Promise.all(parts);
  return {
    scripts: results.flatMap((result) => result.scripts),
    addresses: results.flatMap((result) => result.addresses),
  };
}

/**
 * Copies checkout `template` (opened through the API, its link asked) `count` times into the stopped
 * server's SQLite file, in one transaction, each at the key's next receive index; returns the copies
 * at the `keep` highest indexes (code, address) and what the database then watches.
 */
async function insertOpenCheckouts(dataDir, template, count, keep) {
  const db = new Database(join(dataDir, 'cryptocheckout.sqlite'), { fileMustExist: true });
  try {
    const one = (sql) => db.prepare(sql).get(template);
    const transaction = one('SELECT * FROM transactions WHERE transaction_code = ?');
    const script = one('SELECT * FROM bitcoin_scripts WHERE transaction_code = ?');
    const deposit = one('SELECT * FROM deposit_addresses WHERE transaction_code = ?');
    const lock = one('SELECT * FROM asset_rate_locks WHERE transaction_code = ?');
    if (!transaction || !script || !deposit || !lock)
      throw new Error(`checkout ${template} is not all in the database`);
    const wallet = db.prepare('SELECT * FROM bitcoin_wallets WHERE wallet_id = ?').get(script.wallet_id);
    const receiver = parseBitcoinReceiver(MERCHANT_ZPUB);
    if (receiver.id !== script.wallet_id)
      throw new Error('the template was not derived from the merchant key');
    const first = wallet.next_index;
    // The template's address is the one the key gives at its index: the copies' are derived alike.
    if (addressOfScript(receiver.scriptAt(script.derivation_index), CHAIN) !== script.address) {
      throw new Error(`the template's address is not index ${script.derivation_index} of the key`);
    }
    const deriveStart = performance.now();
    const { scripts, addresses } = await deriveScripts(first, count);
    progress(
      `  derived ${thousands(count)} receive addresses (indexes ${thousands(first)}–${thousands(first + count - 1)}) in ${seconds(performance.now() - deriveStart)} s`,
    );
    const insert = (table, row) =>
      `INSERT INTO ${table} (${Object.keys(row).join(', ')}) VALUES (${Object.keys(row)
        .map((column) => `@${column}`)
        .join(', ')})`;
    const insertTransaction = db.prepare(insert('transactions', transaction));
    const insertScript = db.prepare(insert('bitcoin_scripts', script));
    const insertDeposit = db.prepare(insert('deposit_addresses', deposit));
    const insertLock = db.prepare(insert('asset_rate_locks', lock));
    const now = new Date().toISOString();
    const kept = [];
    const insertStart = performance.now();
    db.transaction(() => {
      for (let index = 0; index < count; index++) {
        const code = randomUUID();
        insertTransaction.run({
          ...transaction,
          transaction_code: code,
          external_reference: `bulk-${index}`,
        });
        insertScript.run({
          ...script,
          script_hex: scripts[index],
          address: addresses[index],
          derivation_index: first + index,
          transaction_code: code,
          created_at: now,
        });
        insertDeposit.run({ ...deposit, transaction_code: code, address: addresses[index], created_at: now });
        insertLock.run({ ...lock, transaction_code: code });
        if (index >= count - keep) kept.push({ code, address: addresses[index], index: first + index });
      }
      db.prepare('UPDATE bitcoin_wallets SET next_index = ? WHERE wallet_id = ?').run(
        first + count,
        script.wallet_id,
      );
    })();
    const insertMs = performance.now() - insertStart;
    const watched = db
      .prepare('SELECT count(*) AS watched FROM bitcoin_scripts WHERE transaction_code IS NOT NULL')
      .get().watched;
    const open = db.prepare("SELECT count(*) AS open FROM transactions WHERE status = 'pending'").get().open;
    return { kept: kept.reverse(), watched, open, insertMs };
  } finally {
    db.close();
  }
}

// --- the server's CPU time (Linux) ------------------------------------------------------------

let clockTicks;
/** The server child's pid: this process's child running watcher-server-child.mjs (Linux only). */
function serverPid() {
  if (process.platform !== 'linux') return undefined;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (
        parent === process.pid &&
        readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('watcher-server-child.mjs')
      ) {
        return Number(entry);
      }
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return undefined;
}

/** User + system CPU time of process `pid` so far, in ms (undefined when unknown). */
function cpuMsOf(pid) {
  if (pid === undefined) return undefined;
  try {
    clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
  } catch {
    return undefined;
  }
}

// --- one size ---------------------------------------------------------------------------------

const callsOf = (method) => node.calls().byMethod[method] ?? 0;
const difference = (after, before) =>
  Object.fromEntries(
    [...new Set([...Object.keys(after.byMethod), ...Object.keys(before.byMethod)])].map((method) => [
      method,
      (after.byMethod[method] ?? 0) - (before.byMethod[method] ?? 0),
    ]),
  );

const waitFor = async (predicate, timeoutMs, what) => {
  const deadline = performance.now() + timeoutMs;
  while (!(await predicate())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
};

/** Waits until the watcher has made `polls` more polls (each starts with getbestblockhash). */
const morePolls = (polls, what) => {
  const target = callsOf('getbestblockhash') + polls;
  return waitFor(() => callsOf('getbestblockhash') >= target, 60_000 + polls * POLL_MS * 20, what);
};

/** One block: pays `paying` and mines them with the filler in the same tick; what it cost, and when each checkout moved. */
async function oneBlock(server, pid, paying) {
  const healthBefore = await bitcoinHealth(server);
  const before = node.calls();
  const cpuBefore = cpuMsOf(pid);
  for (const checkout of paying) node.pay(buyer, [{ address: checkout.address, sats: checkout.sats }]);
  const hash = node.mineFiller(FILLER);
  const minedAt = performance.now();
  const height = node.tipHeight();
  // The node counts a call as it comes in: sampled often, the time the watcher asked for the block.
  const getblocks = before.byMethod.getblock ?? 0;
  let readAt;
  const sampler = setInterval(() => {
    if (readAt === undefined && callsOf('getblock') > getblocks) readAt = performance.now();
  }, 2);
  const moved = new Map(paying.map((checkout) => [checkout.code, {}]));
  let highestCallsLastPoll = 0;
  try {
    await waitFor(
      async () => {
        const [statuses, health] = await Promise.all([
          Promise.all(paying.map((checkout) => statusOf(server, checkout.code))),
          bitcoinHealth(server),
        ]);
        const now = performance.now();
        highestCallsLastPoll = Math.max(highestCallsLastPoll, health.callsLastPoll);
        paying.forEach((checkout, index) => {
          const times = moved.get(checkout.code);
          if (statuses[index] !== 'pending' && times.processing === undefined) times.processing = now;
          if (statuses[index] === 'settled' && times.settled === undefined) times.settled = now;
        });
        return [...moved.values()].every((times) => times.settled !== undefined);
      },
      60_000 + POLL_MS * 20,
      `the block's ${paying.length} checkouts to settle`,
    );
    // Two more polls: the window ends at rest, the block's poll finished whatever the timing.
    await morePolls(2, 'the polls after the block');
    highestCallsLastPoll = Math.max(highestCallsLastPoll, (await bitcoinHealth(server)).callsLastPoll);
  } finally {
    clearInterval(sampler);
  }
  const after = node.calls();
  const cpuAfter = cpuMsOf(pid);
  const healthAfter = await bitcoinHealth(server);
  if (healthAfter.scannedHeight !== height) {
    throw new Error(`the watcher scanned up to ${healthAfter.scannedHeight}, the block is at ${height}`);
  }
  const times = [...moved.values()];
  return {
    hash,
    transactions: FILLER + 2 + paying.length,
    calls: difference(after, before),
    total: after.total - before.total,
    watcherCalls: healthAfter.rpcCalls - healthBefore.rpcCalls,
    highestCallsLastPoll,
    readMs: readAt === undefined ? undefined : readAt - minedAt,
    processingMs: median(times.map((each) => each.processing - minedAt)),
    settledMs: median(times.map((each) => each.settled - minedAt)),
    afterReadMs: readAt === undefined ? undefined : median(times.map((each) => each.settled - readAt)),
    cpuMs: cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore,
  };
}

async function runAt(size) {
  const dataDir = temporaryDirectory();
  // A new server starts watching at the node's tip block, included: an empty one, so the payments of
  // the size before (to the same key's first indexes) are not this server's.
  node.mine(1);
  progress(`${thousands(size)} open checkouts: opening ${OPENED} through the API…`);
  const setup = await startServerChild(liveOptions(dataDir));
  const opened = await openCheckouts(setup, OPENED, `bitcoin-${size}`);
  await setup.stop();
  const template = opened.pop();
  const copies = size - OPENED;
  progress(`  copying checkout ${template.code} ${thousands(copies)} times into SQLite…`);
  const inserted = await insertOpenCheckouts(dataDir, template.code, copies, BLOCKS);
  progress(
    `  wrote ${thousands(copies)} checkouts in ${(inserted.insertMs / 1000).toFixed(1)} s: ${thousands(inserted.open)} open, ${thousands(inserted.watched)} derived scripts watched; starting the server…`,
  );
  if (inserted.watched !== size || inserted.open !== size) {
    throw new Error(`${inserted.open} open and ${inserted.watched} watched, not ${size}`);
  }
  const server = await startServerChild(liveOptions(dataDir));
  try {
    const pid = serverPid();
    // Resumed at the tip it scanned before (nothing was mined meanwhile): health shows no
    // scannedHeight until a block comes, so the polls are counted instead.
    await morePolls(3, 'the first polls');
    const quiet = await bitcoinHealth(server);
    progress(
      `  watching at height ${node.tipHeight()}, callsLastPoll ${quiet.callsLastPoll} at rest; ${BLOCKS} blocks of ${thousands(FILLER)} filler transactions and ${PAYMENTS + 1} payments each…`,
    );
    const blocks = [];
    for (let block = 0; block < BLOCKS; block++) {
      const paying = [
        ...opened.slice(block * PAYMENTS, (block + 1) * PAYMENTS),
        { ...inserted.kept[block], sats: template.sats },
      ];
      const result = await oneBlock(server, pid, paying);
      blocks.push(result);
      progress(
        `  block ${block + 1}/${BLOCKS}: ${result.total} node calls, read ${result.readMs?.toFixed(0) ?? '?'} ms after mining, settled ${result.settledMs.toFixed(0)} ms after mining${result.cpuMs === undefined ? '' : `, server CPU ${result.cpuMs.toFixed(0)} ms`}`,
      );
    }
    const paidCopies = await Promise.all(
      inserted.kept.slice(0, BLOCKS).map((copy) => statusOf(server, copy.code)),
    );
    if (paidCopies.some((status) => status !== 'settled')) {
      throw new Error(`copies paid at their derived addresses: ${paidCopies.join(', ')}`);
    }
    const after = await bitcoinHealth(server);
    return { size, quiet, after, blocks, lastCopyIndex: inserted.kept[0].index };
  } finally {
    await server.stop();
  }
}

// --- report -----------------------------------------------------------------------------------

const fixed = (value, digits = 0) => (value === undefined ? 'n/a' : value.toFixed(digits));

function summaryOf(run) {
  const perMethod = Object.fromEntries(
    METHODS.map((method) => [method, mean(run.blocks.map((block) => block.calls[method] ?? 0))]),
  );
  const polls = perMethod.getbestblockhash;
  const blockCalls = perMethod.getblockcount + perMethod.getblockhash + perMethod.getblock;
  const cpu = run.blocks.map((block) => block.cpuMs);
  return {
    perMethod,
    total: mean(run.blocks.map((block) => block.total)),
    watcherCalls: mean(run.blocks.map((block) => block.watcherCalls)),
    polls,
    blockCalls,
    restPerPoll: (perMethod.getbestblockhash + perMethod.getrawmempool) / polls,
    highestCallsLastPoll: Math.max(...run.blocks.map((block) => block.highestCallsLastPoll)),
    readMs: median(run.blocks.map((block) => block.readMs ?? Number.NaN)),
    processingMs: median(run.blocks.map((block) => block.processingMs)),
    settledMs: median(run.blocks.map((block) => block.settledMs)),
    afterReadMs: median(run.blocks.map((block) => block.afterReadMs ?? Number.NaN)),
    cpuMs: cpu.some((value) => value === undefined) ? undefined : median(cpu),
  };
}

function printRun(run) {
  console.log(
    `\n${thousands(run.size)} open checkouts (${thousands(run.size - OPENED)} copied into SQLite, up to index ${thousands(run.lastCopyIndex)} of the key): node calls per block as the node counted them, from the payments to two rest polls after settlement.`,
  );
  console.log(
    `\n| block | transactions | ${METHODS.join(' | ')} | node calls | watcher rpcCalls | highest callsLastPoll | read ms | processing ms | settled ms | settled after read ms | server CPU ms |`,
  );
  console.log(`|---:|---:|${METHODS.map(() => '---:|').join('')}---:|---:|---:|---:|---:|---:|---:|---:|`);
  run.blocks.forEach((block, index) => {
    console.log(
      `| ${index + 1} | ${thousands(block.transactions)} | ${METHODS.map((method) => block.calls[method] ?? 0).join(' | ')} | ${block.total} | ${block.watcherCalls} | ${block.highestCallsLastPoll} | ${fixed(block.readMs)} | ${fixed(block.processingMs)} | ${fixed(block.settledMs)} | ${fixed(block.afterReadMs)} | ${fixed(block.cpuMs)} |`,
    );
  });
  const summary = summaryOf(run);
  console.log(
    `| mean / median | | ${METHODS.map((method) => fixed(summary.perMethod[method], 2)).join(' | ')} | ${fixed(summary.total, 2)} | ${fixed(summary.watcherCalls, 2)} | ${summary.highestCallsLastPoll} | ${fixed(summary.readMs)} | ${fixed(summary.processingMs)} | ${fixed(summary.settledMs)} | ${fixed(summary.afterReadMs)} | ${fixed(summary.cpuMs)} |`,
  );
  console.log(
    `Health after: blocksScanned ${run.after.blocksScanned}, transfersRecorded ${run.after.transfersRecorded}, rpcCalls ${run.after.rpcCalls}, callsLastPoll ${run.after.callsLastPoll}; at rest before the blocks: callsLastPoll ${run.quiet.callsLastPoll}.`,
  );
}

let node;
let buyer;
try {
  const cpuList = cpus();
  console.log(
    `Bitcoin benchmark: ${process.arch} Node ${process.version}, ${cpuList.length} × ${cpuList[0]?.model ?? 'unknown CPU'}`,
  );
  console.log(
    `The Bitcoin test node (regtest blocks and transactions behind a loopback Bitcoin Core JSON-RPC endpoint) in the bench process, the server in a child process (SQLite in a temp dir); poll interval ${POLL_MS} ms, 1 confirmation.`,
  );
  progress('bundling test/bitcoin/bitcoin-test-node.ts, starting the node, funding a buyer…');
  const { startBitcoinTestNode } = await importBitcoinTestNode(temporaryDirectory());
  node = await startBitcoinTestNode({ user: 'bench', password: randomUUID() });
  buyer = node.newBuyer(10_000_000_000n);

  const runs = [];
  for (const size of SIZES) runs.push(await runAt(size));

  console.log(
    `\nEach block: ${PAYMENTS} payments to checkouts opened through the API and 1 to a copy at one of the key's highest indexes, then ${thousands(FILLER)} filler transactions (p2wpkh, p2tr, p2pkh and p2sh outputs to random keys, with change), all mined together; the watcher looks up every output script of the block among the watched ones. Times from the end of mining (the bench signs the filler first: the watcher's request in flight meanwhile waits), median over the block's checkouts; "read": the watcher's getblock call arriving.`,
  );
  for (const run of runs) printRun(run);

  const summaries = runs.map((run) => ({ size: run.size, ...summaryOf(run) }));
  console.log('\nPer block, by open checkouts (means over the blocks; times and CPU: medians):');
  console.log(
    '\n| open checkouts | node calls | block calls (getblockcount + getblockhash + getblock) | polls (getbestblockhash) | calls per rest poll | getrawtransaction | highest callsLastPoll | read ms | settled ms | settled after read ms | server CPU ms |',
  );
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const summary of summaries) {
    console.log(
      `| ${thousands(summary.size)} | ${fixed(summary.total, 2)} | ${fixed(summary.blockCalls, 2)} | ${fixed(summary.polls, 2)} | ${fixed(summary.restPerPoll, 2)} | ${fixed(summary.perMethod.getrawtransaction, 2)} | ${summary.highestCallsLastPoll} | ${fixed(summary.readMs)} | ${fixed(summary.settledMs)} | ${fixed(summary.afterReadMs)} | ${fixed(summary.cpuMs)} |`,
    );
  }
  if (summaries.length > 1) {
    const small = summaries[0];
    const large = summaries.at(-1);
    console.log(
      `\n${thousands(large.size)} / ${thousands(small.size)} open checkouts: block calls ${ratio(large.blockCalls, small.blockCalls)}, calls per rest poll ${ratio(large.restPerPoll, small.restPerPoll)}, highest callsLastPoll ${ratio(large.highestCallsLastPoll, small.highestCallsLastPoll)}${METHODS.map((method) => `, ${method} ${ratio(large.perMethod[method], small.perMethod[method])}`).join('')} (goal: ×1.00); node calls per block ${ratio(large.total, small.total)} (rest polls counted in: their number follows the time the window lasts). Settled after the block was read ${ratio(large.afterReadMs, small.afterReadMs)}, server CPU per block ${large.cpuMs === undefined || small.cpuMs === undefined ? 'n/a' : ratio(large.cpuMs, small.cpuMs)} (the bench's status reads included).`,
    );
  }
  console.log(`\nTotal ${elapsed()}.`);
} finally {
  await stopServerChildren();
  await node?.close();
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
}
