#!/usr/bin/env node
// Live-mode watcher benchmark on a local EVM chain (ganache in this process, behind the loopback JSON-RPC
// proxy of packages/server/test/live/local-chain.ts; the reference server as built in a child process):
//   catch-up  a backlog of blocks holding transfers to watched wallets, half of them paying open checkouts
//             exactly and half of unmatched amounts, mined while the server is down; then the time the
//             watcher takes from start to the head: blocks/s, transfers/s and JSON-RPC requests per block,
//             at the default maxBlockRange (500) and at 50;
//   webhook   the delay from the block that completes a payment's confirmations to its settlement
//             webhook on loopback: median, p90 and max, at the default poll interval (2000 ms) and 200 ms.
//   deposits  deposit mode (bench/watcher-deposits.mjs): catch-up with 1,000 to 100,000 deposit addresses
//             on file, and the gas of forwards at batch sizes 1, 10, 50.
// Prints figures to compare between versions; no pass/fail thresholds.
// Knobs (defaults): BENCH_PART (all; direct: catch-up and webhook only; deposits: deposit mode only),
// BENCH_BACKLOG_BLOCKS (2000), BENCH_BACKLOG_TRANSFERS (1000), BENCH_WALLETS (200),
// BENCH_WEBHOOKS (30), BENCH_SERVER_NODE_ARGS (node flags for the server process, e.g. --cpu-prof);
// the deposit-mode knobs are listed in bench/watcher-deposits.mjs.
import { fork } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decimalToScaled } from '@cryptocheckout/core';
import Database from 'better-sqlite3';
import { getAddress, keccak256, toHex } from 'viem';
import { importLocalChain } from './local-chain-import.mjs';
import { api } from './server-children.mjs';
import { checkDepositKnobs, depositBenchmarks } from './watcher-deposits.mjs';

const environment = process.env;
const PART = environment.BENCH_PART ?? 'all';
if (!['all', 'direct', 'deposits'].includes(PART)) {
  throw new Error(`BENCH_PART must be all, direct or deposits, not "${PART}".`);
}
const BACKLOG_BLOCKS = Number(environment.BENCH_BACKLOG_BLOCKS ?? 2000);
const BACKLOG_TRANSFERS = Number(environment.BENCH_BACKLOG_TRANSFERS ?? 1000);
const WALLETS = Number(environment.BENCH_WALLETS ?? 200);
const WEBHOOKS = Number(environment.BENCH_WEBHOOKS ?? 30);
const CONFIRMATIONS = 3;
const BLOCK_RANGES = [500, 50];
const POLL_INTERVALS_MS = [2000, 200];
/** Poll interval of the catch-up runs: it only matters once the watcher has caught up. */
const CATCH_UP_POLL_MS = 100;
/** Gaps between the blocks of the webhook runs (ms), random so blocks fall at any phase of the poll. */
const BLOCK_GAP_MS = [100, 500];
if (!(BACKLOG_BLOCKS >= BACKLOG_TRANSFERS && BACKLOG_TRANSFERS >= 2 && WALLETS >= 1 && WEBHOOKS >= 1)) {
  throw new Error(
    'Need BENCH_BACKLOG_BLOCKS ≥ BENCH_BACKLOG_TRANSFERS ≥ 2, BENCH_WALLETS ≥ 1, BENCH_WEBHOOKS ≥ 1.',
  );
}
if (PART !== 'direct') checkDepositKnobs();

const here = fileURLToPath(new URL('.', import.meta.url));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms) => (ms / 1000).toFixed(1);
const benchStart = performance.now();
const elapsed = () => `${seconds(performance.now() - benchStart)} s`;
const progress = (line) => process.stdout.write(`  [${elapsed()}] ${line}\n`);

const directories = [];
const temporaryDirectory = () => {
  const directory = mkdtempSync(join(tmpdir(), 'cryptocheckout-bench-watcher-'));
  directories.push(directory);
  return directory;
};

/** Starts the built server in a child process; resolves once it listens. */
function startServerChild(options) {
  return new Promise((resolve, reject) => {
    const child = fork(join(here, 'watcher-server-child.mjs'), [JSON.stringify(options)], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      // e.g. BENCH_SERVER_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/profiles' to profile the server.
      execArgv: (environment.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean),
    });
    const exited = new Promise((done) => child.once('exit', done));
    children.set(child, exited);
    exited.then(() => children.delete(child));
    child.once('message', ({ url, startedAt, cpu }) =>
      resolve({
        url,
        startedAt,
        startCpu: cpu,
        /** CPU time the server process used so far (µs, user + system). */
        cpu: () =>
          new Promise((done) => {
            child.once('message', (message) => done(message.cpu));
            child.send('cpu');
          }),
        stop: () => {
          child.kill('SIGTERM');
          return exited;
        },
      }),
    );
    child.once('exit', (code) => reject(new Error(`watcher-server-child.mjs exited with ${code}`)));
  });
}

/** Opens a live checkout paid in USDC on Polygon to `wallet` and returns the exact amount it asks for. */
async function openCheckout(server, wallet, reference, webhookUrl) {
  const created = await api(server, 'POST', '/checkout', {
    fiat_amount: '25.00',
    fiat_currency: 'EUR',
    external_reference: reference,
    ...(webhookUrl ? { webhook_url: webhookUrl } : {}),
    customer: { wallet_address: wallet, crypto_currency: 'USDC', crypto_currency_network: 'POLYGON' },
  });
  const code = created.transaction_code;
  const link = await api(server, 'GET', `/payment_link?transaction_code=${code}&payment_method=usdc_polygon`);
  return { code, wallet, baseUnits: decimalToScaled(link.amount, 6) };
}

/** Opens `count` checkouts, a few requests at a time; the i-th pays into wallets[i % wallets.length]. */
async function openCheckouts(server, count, prefix, webhookUrlOf = () => undefined) {
  const checkouts = [];
  for (let index = 0; index < count; index += 8) {
    const batch = [];
    for (let each = index; each < Math.min(count, index + 8); each++) {
      batch.push(
        openCheckout(server, wallets[each % wallets.length], `${prefix}-${each}`, webhookUrlOf(each)),
      );
    }
    checkouts.push(...(await Promise.all(batch)));
  }
  return checkouts;
}

async function watcherHealth(server) {
  const response = await fetch(`${server.url}/api/health`);
  return (await response.json()).data.networks.POLYGON;
}

/** Waits until the watcher has scanned block `head`; calls `onPoll` with each health answer. */
async function scannedTo(server, head, timeoutMs, onPoll = () => undefined) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const health = await watcherHealth(server);
    if (health.scannedTo !== null && BigInt(health.scannedTo) >= head) return health;
    if (performance.now() > deadline) {
      throw new Error(`watcher at block ${health.scannedTo} after ${timeoutMs} ms, head ${head}`);
    }
    onPoll(health);
    await sleep(20);
  }
}

function liveOptions(dataDir, live) {
  return {
    port: 0,
    dataDir,
    logLevel: 'silent',
    mode: 'live',
    rates: { source: 'static', fixedPricesInLiveMode: true },
    live: {
      rpcUrls: { POLYGON: chain.rpcUrl },
      tokens: { 'POLYGON:USDC': usdc },
      confirmations: { POLYGON: CONFIRMATIONS },
      ...live,
    },
    webhooks: { allowPrivateTargets: true },
    // Hundreds of checkouts from one address in seconds: the flood limits would refuse most of them.
    newHoldLimits: { perClientPerMinute: 0, perPricePerMinute: 0 },
  };
}

/** What the server stored of the chain's transfers, read from its SQLite file after it stopped. */
function storedTransferCounts(dataDir) {
  const db = new Database(join(dataDir, 'cryptocheckout.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare(
        `SELECT count(*) AS stored,
                sum(payment_id IS NOT NULL AND unmatched_reason IS NULL) AS matched,
                sum(unmatched_reason IS NOT NULL) AS unmatched,
                sum(confirmed) AS confirmed
           FROM chain_transfers`,
      )
      .get();
  } finally {
    db.close();
  }
}

/** Milliseconds of CPU in a process.cpuUsage() answer. */
const cpuMs = ({ user, system }) => (user + system) / 1000;

/** Nearest-rank percentile of ascending `sorted`. */
const percentile = (sorted, p) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];

const children = new Map();
let chain;
let usdc;
// Deterministic merchant wallets, so runs compare.
const wallets = Array.from({ length: WALLETS }, (_, index) =>
  getAddress(keccak256(toHex(`cryptocheckout bench wallet ${index}`)).slice(0, 42)),
);
const arrivals = new Map();
const receiver = createServer((request, response) => {
  // Stamped on arrival of the headers; the body is not needed, every webhook is a settlement.
  if (!arrivals.has(request.url)) arrivals.set(request.url, performance.now());
  request.resume();
  request.on('end', () => response.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
});

try {
  const cpuList = cpus();
  console.log(
    `Watcher benchmark: ${process.arch} Node ${process.version}, ${cpuList.length} × ${cpuList[0]?.model ?? 'unknown CPU'}`,
  );
  console.log(
    `ganache in the bench process, the server in a child process (SQLite in a temp dir); ${CONFIRMATIONS} confirmations.`,
  );
  progress('bundling test/live/local-chain.ts, starting ganache, deploying the token…');
  const { startLocalChain } = await importLocalChain(temporaryDirectory());
  chain = await startLocalChain();
  usdc = await chain.deployToken('USDC', 6);
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${receiver.address().port}`;

  if (PART !== 'deposits') {
    // 1. Catch-up. A first start watches from the head, so the server runs once to set its cursor and
    // hold the checkouts' amounts, then stops; every catch-up run starts from a copy of that database.
    const matchedCount = Math.ceil(BACKLOG_TRANSFERS / 2);
    const templateDir = temporaryDirectory();
    const first = await startServerChild(liveOptions(templateDir, {}));
    progress(`opening ${matchedCount} checkouts to ${WALLETS} wallets…`);
    const checkouts = await openCheckouts(first, matchedCount, 'backlog');
    await scannedTo(first, await chain.head(), 30_000);
    await first.stop();

    const backlogFrom = await chain.head();
    progress(
      `mining the backlog: ${BACKLOG_BLOCKS} blocks, ${BACKLOG_TRANSFERS} transfers (${matchedCount} exact, the rest unmatched)…`,
    );
    const backlogStart = performance.now();
    for (let index = 0; index < BACKLOG_TRANSFERS; index++) {
      // Even transfers pay a checkout exactly; odd ones send an amount no checkout asks for (1.000… USDC).
      const checkout = checkouts[index / 2];
      if (checkout) await chain.transfer(usdc, checkout.wallet, checkout.baseUnits);
      else await chain.transfer(usdc, wallets[index % WALLETS], 1_000_000n + BigInt(index));
      // Spread evenly: each transfer opens a run of blocks, the rest of the run empty.
      const blocks =
        Math.floor(((index + 1) * BACKLOG_BLOCKS) / BACKLOG_TRANSFERS) -
        Math.floor((index * BACKLOG_BLOCKS) / BACKLOG_TRANSFERS);
      await chain.mine(blocks);
      if ((index + 1) % 100 === 0 || index + 1 === BACKLOG_TRANSFERS) {
        progress(
          `  backlog ${index + 1}/${BACKLOG_TRANSFERS} transfers, ${(await chain.head()) - backlogFrom} blocks`,
        );
      }
    }
    const head = await chain.head();
    const backlogMs = performance.now() - backlogStart;
    progress(
      `backlog mined in ${seconds(backlogMs)} s (${(backlogMs / BACKLOG_TRANSFERS).toFixed(1)} ms per transfer)`,
    );

    const catchUps = [];
    for (const maxBlockRange of BLOCK_RANGES) {
      const dataDir = temporaryDirectory();
      cpSync(templateDir, dataDir, { recursive: true });
      progress(`catch-up with maxBlockRange ${maxBlockRange}…`);
      const requestsBefore = chain.requestsSeen;
      const server = await startServerChild(
        liveOptions(dataDir, { maxBlockRange, pollIntervalMs: CATCH_UP_POLL_MS }),
      );
      const benchCpuBefore = process.cpuUsage();
      let lastReport = performance.now();
      const health = await scannedTo(server, head, 120_000, (partWay) => {
        if (performance.now() - lastReport < 2000) return;
        lastReport = performance.now();
        const at =
          partWay.scannedTo === null ? 'first range under way' : `at block ${partWay.scannedTo} of ${head}`;
        progress(`  ${at}, ${partWay.transfersSeen} transfers seen`);
      });
      const ms = Date.now() - server.startedAt;
      const requests = chain.requestsSeen - requestsBefore;
      const benchCpu = cpuMs(process.cpuUsage(benchCpuBefore));
      const serverCpu = cpuMs(await server.cpu()) - cpuMs(server.startCpu);
      await server.stop();
      catchUps.push({
        maxBlockRange,
        ms,
        requests,
        health,
        serverCpu,
        benchCpu,
        stored: storedTransferCounts(dataDir),
      });
    }

    // 2. Confirmation to webhook. Blocks come at random gaps, each of the first WEBHOOKS carrying one
    // payment; a payment's confirming block is the CONFIRMATIONS-th counting its own.
    const webhookRuns = [];
    for (const pollIntervalMs of POLL_INTERVALS_MS) {
      progress(`webhook delays at poll interval ${pollIntervalMs} ms: opening ${WEBHOOKS} checkouts…`);
      const server = await startServerChild(liveOptions(temporaryDirectory(), { pollIntervalMs }));
      const pathOf = (index) => `/webhook/${pollIntervalMs}/${index}`;
      const paid = await openCheckouts(
        server,
        WEBHOOKS,
        `webhook-${pollIntervalMs}`,
        (index) => new URL(pathOf(index), receiverUrl).href,
      );
      // Payments mined before the watcher's first scan would lie behind its starting cursor.
      await scannedTo(server, await chain.head(), 30_000);
      progress(`  paying and mining ${WEBHOOKS + CONFIRMATIONS - 1} blocks…`);
      const minedAt = new Map();
      const mineDurations = [];
      const paidIn = [];
      for (let step = 0; step < WEBHOOKS + CONFIRMATIONS - 1; step++) {
        const checkout = paid[step];
        if (checkout) await chain.transfer(usdc, checkout.wallet, checkout.baseUnits);
        // Stamped before mining: the watcher cannot see the block any earlier.
        const before = performance.now();
        const block = await chain.mine(1);
        mineDurations.push(performance.now() - before);
        minedAt.set(block, before);
        if (checkout) paidIn.push(block);
        const [shortest, longest] = BLOCK_GAP_MS;
        await sleep(shortest + Math.random() * (longest - shortest));
      }
      const deadline = performance.now() + 3 * pollIntervalMs + 10_000;
      const arrived = () => paid.filter((_, index) => arrivals.has(pathOf(index))).length;
      while (arrived() < WEBHOOKS && performance.now() < deadline) await sleep(20);
      await server.stop();
      if (arrived() < WEBHOOKS) throw new Error(`only ${arrived()} of ${WEBHOOKS} webhooks arrived`);
      const delays = paid
        .map(
          (_, index) => arrivals.get(pathOf(index)) - minedAt.get(paidIn[index] + BigInt(CONFIRMATIONS - 1)),
        )
        .sort((a, b) => a - b);
      mineDurations.sort((a, b) => a - b);
      webhookRuns.push({ pollIntervalMs, delays, mineMedian: percentile(mineDurations, 50) });
    }

    console.log(
      `\nCatch-up: ${head - backlogFrom} blocks mined while the server was down, ${BACKLOG_TRANSFERS} transfers to ${WALLETS} watched wallets (${matchedCount} exact payments, ${BACKLOG_TRANSFERS - matchedCount} unmatched); timed from server start to the head.`,
    );
    console.log(
      '\n| maxBlockRange | time s | blocks scanned | blocks/s | transfers seen | transfers/s | RPC requests | RPC requests / block | CPU s server · ganache | stored: matched · unmatched · confirmed |',
    );
    console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---|---|');
    for (const { maxBlockRange, ms, requests, health, serverCpu, benchCpu, stored } of catchUps) {
      console.log(
        `| ${maxBlockRange} | ${seconds(ms)} | ${health.blocksScanned} | ${((health.blocksScanned * 1000) / ms).toFixed(0)} | ${health.transfersSeen} | ${((health.transfersSeen * 1000) / ms).toFixed(0)} | ${requests} | ${(requests / health.blocksScanned).toFixed(2)} | ${seconds(serverCpu)} · ${seconds(benchCpu)} | ${stored.matched} · ${stored.unmatched} · ${stored.confirmed} |`,
      );
    }
    console.log(
      `\nCPU: the server's child process, and this process (ganache behind its proxy, plus health polling) over the same time. Confirmed: transfers ${CONFIRMATIONS} or more blocks deep at the head.`,
    );
    const [wide, narrow] = catchUps;
    if (wide && narrow) {
      console.log(
        `\nmaxBlockRange ${narrow.maxBlockRange} takes ${(narrow.ms / wide.ms).toFixed(2)}× the time of ${wide.maxBlockRange} and ${(narrow.requests / wide.requests).toFixed(2)}× the RPC requests.`,
      );
    }

    console.log(
      `\nConfirmation to webhook: ${WEBHOOKS} payments, one per block, blocks ${BLOCK_GAP_MS[0]}–${BLOCK_GAP_MS[1]} ms apart at random; delay from mining the block that makes a payment ${CONFIRMATIONS} blocks deep to its webhook's arrival on loopback.`,
    );
    console.log('\n| poll interval ms | webhooks | median ms | p90 ms | max ms | median / poll interval |');
    console.log('|---:|---:|---:|---:|---:|---:|');
    for (const { pollIntervalMs, delays } of webhookRuns) {
      const median = percentile(delays, 50);
      console.log(
        `| ${pollIntervalMs} | ${delays.length} | ${median.toFixed(0)} | ${percentile(delays, 90).toFixed(0)} | ${delays.at(-1).toFixed(0)} | ${(median / pollIntervalMs).toFixed(2)} |`,
      );
    }
    const mineMedian = Math.max(...webhookRuns.map((run) => run.mineMedian));
    console.log(
      `\nThe delay is dominated by the poll interval: a confirming block waits for the watcher's next scan, on average half an interval, at most one; scanning, settling and sending add the rest. Delays count from the start of mining (median ${mineMedian.toFixed(0)} ms per block), and arrival stamps can lag by as much while ganache, in this process, mines.`,
    );
  }
  if (PART !== 'direct') {
    // 3. Deposit mode, on the same chain; it prints its own figures.
    await depositBenchmarks({
      chain,
      usdc,
      wallets,
      confirmations: CONFIRMATIONS,
      catchUpPollMs: CATCH_UP_POLL_MS,
      startServerChild,
      api,
      scannedTo,
      liveOptions,
      temporaryDirectory,
      progress,
      seconds,
      cpuMs,
    });
  }
  console.log(`\nTotal ${elapsed()}.`);
} finally {
  for (const [child, exited] of children) {
    child.kill('SIGTERM');
    await exited;
  }
  receiver.close();
  await chain?.close();
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
}
