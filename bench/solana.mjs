#!/usr/bin/env node
// Solana live-mode benchmark on the tests' Solana chain (packages/server/test/solana/solana-test-chain.ts:
// a real SVM, litesvm, behind a loopback JSON-RPC endpoint, in this process; the reference server as
// built in a child process, SQLite in a temp dir):
//   calls     RPC calls per poll for ONE merchant wallet with 1,000 and with 100,000 open checkouts
//             (goal: equal; docs/solana.md "Finding payments"). A few checkouts are opened through the
//             API, the rest are copies of one of them written straight into the server's SQLite file
//             (`transactions` and `solana_references`, the reference the server derives) while it is
//             stopped; the server then watches them all. Over a fixed number of polls, with payments
//             arriving and finalized at fixed polls, the calls per method as the endpoint counted them
//             (chain.rpc.calls), and the watcher's own callsLastPoll at rest.
//   webhook   finality to webhook: checkouts with a webhook receiver on loopback, all paid with their
//             references and `processing`, then the cluster finalizes (half a poll interval after a poll
//             started): the time from finalize() to each settlement webhook's arrival, median, p95 and max,
//             at the default poll interval and a short one.
// Prints figures to compare between versions; no pass/fail thresholds.
// Knobs (defaults): BENCH_SOLANA_SIZES (1000,100000), BENCH_SOLANA_POLLS (30), BENCH_SOLANA_PAYMENTS (3),
// BENCH_SOLANA_POLL_MS (100, calls part), BENCH_SOLANA_WEBHOOKS (50), BENCH_SOLANA_WEBHOOK_POLL_MS (2000,200).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { decimalToScaled } from '@cryptocheckout/core';
import Database from 'better-sqlite3';
import { checkoutReference } from '../packages/server/dist/rails/solana/solana-addresses.js';
import { importSolanaTestChain } from './local-chain-import.mjs';
import { api, startServerChild, stopServerChildren } from './server-children.mjs';

const environment = process.env;
const numbers = (value, fallback) => (value ?? fallback).split(',').map(Number);
const SIZES = numbers(environment.BENCH_SOLANA_SIZES, '1000,100000');
const POLLS = Number(environment.BENCH_SOLANA_POLLS ?? 30);
const PAYMENTS = Number(environment.BENCH_SOLANA_PAYMENTS ?? 3);
const CALLS_POLL_MS = Number(environment.BENCH_SOLANA_POLL_MS ?? 100);
const WEBHOOKS = Number(environment.BENCH_SOLANA_WEBHOOKS ?? 50);
const WEBHOOK_POLL_MS = numbers(environment.BENCH_SOLANA_WEBHOOK_POLL_MS, '2000,200');
/** Quiet polls after the server's start before the counted window. */
const WARMUP_POLLS = 5;
/** Window polls (1-based): the payments are sent once the listing of PAY_AT is done; the cluster finalizes as FINALIZE_AT starts. */
const PAY_AT = 3;
const FINALIZE_AT = 12;
if (
  !(
    SIZES.every((size) => Number.isInteger(size) && size >= PAYMENTS) &&
    POLLS > FINALIZE_AT &&
    PAYMENTS >= 1 &&
    WEBHOOKS >= 1 &&
    WEBHOOK_POLL_MS.every((ms) => ms >= 25) &&
    CALLS_POLL_MS >= 25
  )
) {
  throw new Error(
    `Need BENCH_SOLANA_SIZES ≥ BENCH_SOLANA_PAYMENTS ≥ 1, BENCH_SOLANA_POLLS > ${FINALIZE_AT}, BENCH_SOLANA_WEBHOOKS ≥ 1, poll intervals ≥ 25 ms.`,
  );
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms) => (ms / 1000).toFixed(1);
const benchStart = performance.now();
const elapsed = () => `${seconds(performance.now() - benchStart)} s`;
const progress = (line) => process.stdout.write(`  [${elapsed()}] ${line}\n`);
/** Nearest-rank percentile of ascending `sorted`. */
const percentile = (sorted, p) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
const thousands = (value) => value.toLocaleString('en-US');

const directories = [];
const temporaryDirectory = () => {
  const directory = mkdtempSync(join(tmpdir(), 'cryptocheckout-bench-solana-'));
  directories.push(directory);
  return directory;
};

/** Opens a live checkout paid in USDC on Solana to `wallet`; returns its code, reference and amount due. */
async function openCheckout(server, wallet, externalReference, webhookUrl) {
  const created = await api(server, 'POST', '/checkout', {
    fiat_amount: '25.00',
    fiat_currency: 'EUR',
    external_reference: externalReference,
    ...(webhookUrl ? { webhook_url: webhookUrl } : {}),
    customer: { wallet_address: wallet, crypto_currency: 'USDC', crypto_currency_network: 'SOLANA' },
  });
  const code = created.transaction_code;
  const link = await api(server, 'GET', `/payment_link?transaction_code=${code}&payment_method=usdc_solana`);
  const reference = new URL(link.uri).searchParams.get('reference');
  if (reference !== checkoutReference(code, 'usdc_solana')) {
    throw new Error(`checkout ${code}: the link's reference ${reference} is not the derived one`);
  }
  return { code, reference, baseUnits: decimalToScaled(link.amount, 6) };
}

/** Opens `count` checkouts, a few requests at a time. */
async function openCheckouts(server, count, wallet, prefix, webhookUrlOf = () => undefined) {
  const checkouts = [];
  for (let index = 0; index < count; index += 8) {
    const batch = [];
    for (let each = index; each < Math.min(count, index + 8); each++) {
      batch.push(openCheckout(server, wallet, `${prefix}-${each}`, webhookUrlOf(each)));
    }
    checkouts.push(...(await Promise.all(batch)));
  }
  return checkouts;
}

async function solanaHealth(server) {
  const response = await fetch(`${server.url}/api/health`);
  return (await response.json()).data.networks.SOLANA;
}

async function statusOf(server, code) {
  return (await api(server, 'GET', `/transaction?transaction_code=${code}`)).status;
}

/** Waits until every checkout of `codes` is in `status`. */
async function allInStatus(server, codes, status, timeoutMs) {
  const deadline = performance.now() + timeoutMs;
  let waiting = [...codes];
  while (waiting.length > 0) {
    const statuses = await Promise.all(waiting.map((code) => statusOf(server, code)));
    waiting = waiting.filter((_, index) => statuses[index] !== status);
    if (waiting.length === 0) return;
    if (performance.now() > deadline) {
      throw new Error(`${waiting.length} of ${codes.length} checkouts not ${status} after ${timeoutMs} ms`);
    }
    await sleep(50);
  }
}

function liveOptions(dataDir, pollIntervalMs) {
  return {
    port: 0,
    dataDir,
    logLevel: 'silent',
    mode: 'live',
    rates: { source: 'static', fixedPricesInLiveMode: true },
    live: {
      rpcUrls: { SOLANA: chain.rpcUrl },
      tokens: { 'SOLANA:USDC': mints.usdc, 'SOLANA:USDT': mints.usdt },
      pollIntervalMs,
    },
    webhooks: { allowPrivateTargets: true },
    newHoldLimits: { perClientPerMinute: 0, perPricePerMinute: 0 },
  };
}

/**
 * Copies checkout `template` (one opened through the API, its payment instructions asked) `count`
 * times into the stopped server's SQLite file, in one transaction: `transactions` rows under new codes
 * and their `solana_references` rows with the reference the server derives for each code.
 */
function insertOpenCheckouts(dataDir, template, count) {
  const db = new Database(join(dataDir, 'cryptocheckout.sqlite'), { fileMustExist: true });
  try {
    const transaction = db.prepare('SELECT * FROM transactions WHERE transaction_code = ?').get(template);
    const reference = db.prepare('SELECT * FROM solana_references WHERE transaction_code = ?').get(template);
    if (!transaction || !reference) throw new Error(`checkout ${template} is not in the database`);
    if (!(reference.monitor_until > new Date().toISOString())) {
      throw new Error(`checkout ${template} is no longer watched (monitor_until ${reference.monitor_until})`);
    }
    const columns = Object.keys(transaction);
    const insertTransaction = db.prepare(
      `INSERT INTO transactions (${columns.join(', ')}) VALUES (${columns.map((column) => `@${column}`).join(', ')})`,
    );
    const insertReference = db.prepare(
      `INSERT INTO solana_references (reference, transaction_code, payment_method, wallet_address, created_at, monitor_until)
       VALUES (@reference, @transaction_code, @payment_method, @wallet_address, @created_at, @monitor_until)`,
    );
    const now = new Date().toISOString();
    db.transaction(() => {
      for (let index = 0; index < count; index++) {
        const code = `${template.slice(0, 4)}B${String(index).padStart(7, '0')}`;
        insertTransaction.run({
          ...transaction,
          transaction_code: code,
          external_reference: `bulk-${index}`,
        });
        insertReference.run({
          ...reference,
          reference: checkoutReference(code, reference.payment_method),
          transaction_code: code,
          created_at: now,
        });
      }
    })();
    return db.prepare('SELECT count(*) AS watched FROM solana_references WHERE monitor_until >= ?').get(now)
      .watched;
  } finally {
    db.close();
  }
}

/**
 * The watcher's polls as the chain's endpoint sees them, counted synchronously as each request comes
 * in (before it is answered): a poll starts with `getSignaturesForAddress` for its first address, so
 * with `addresses` addresses per poll every addresses-th such call starts one. `onPoll(n, phase)` runs
 * at the start ('start') and once the listing is done ('listed') of poll n (1-based).
 */
function trackPolls(addresses, onPoll = () => undefined) {
  const tracker = { polls: [], listings: 0, addresses, onPoll };
  pollTracker = tracker;
  return tracker;
}
let pollTracker;

/** Hooks the chain's call counter: the endpoint counts each JSON-RPC call with `calls.set`. */
function hookCallCounter() {
  const calls = chain.rpc.calls;
  const set = calls.set.bind(calls);
  calls.set = (method, value) => {
    // The endpoint sets the count it read plus one: keep the step, so a reset by the hook holds.
    const step = value - (calls.get(method) ?? 0);
    const tracker = pollTracker;
    if (tracker && method === 'getSignaturesForAddress') {
      const position = tracker.listings % tracker.addresses;
      tracker.listings++;
      if (position === 0) {
        tracker.polls.push(performance.now());
        tracker.onPoll(tracker.polls.length, 'start');
      }
      if (position === tracker.addresses - 1) tracker.onPoll(tracker.polls.length, 'listed');
    }
    // After the hook: a resetCalls() in onPoll counts this call in the new window.
    return set(method, (calls.get(method) ?? 0) + step);
  };
}

const waitFor = async (predicate, timeoutMs, what) => {
  const deadline = performance.now() + timeoutMs;
  while (!predicate()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
};

let chain;
let mints;
let buyer;
const arrivals = new Map();
const receiver = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const at = performance.now();
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (body.event === 'transaction.settled' && !arrivals.has(body.transaction_code)) {
        arrivals.set(body.transaction_code, at);
      }
    } catch {
      // Not a webhook of ours.
    }
    response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
});

/** Pays checkout `checkout` in full with its reference, as a Solana Pay wallet does. */
const pay = (merchant, checkout) =>
  chain.payToken({
    payer: buyer,
    recipient: merchant,
    mint: mints.usdc,
    amount: checkout.baseUnits,
    references: [checkout.reference],
  });

/** Part 1: RPC calls per poll with `size` open checkouts for one merchant wallet. */
async function callsAt(size) {
  const merchant = (await chain.newWallet(1_000_000_000n)).address;
  const dataDir = temporaryDirectory();
  progress(`${thousands(size)} checkouts: opening ${PAYMENTS} through the API…`);
  const setup = await startServerChild(liveOptions(dataDir, CALLS_POLL_MS));
  const paid = await openCheckouts(setup, PAYMENTS, merchant, `calls-${size}`);
  await setup.stop();
  const insertStart = performance.now();
  const watched = insertOpenCheckouts(dataDir, paid[0].code, size - PAYMENTS);
  progress(
    `  wrote ${thousands(size - PAYMENTS)} more into SQLite in ${(performance.now() - insertStart).toFixed(0)} ms: ${thousands(watched)} open; starting the server…`,
  );
  if (watched !== size) throw new Error(`${watched} checkouts watched, not ${size}`);

  const window = { first: WARMUP_POLLS + 1, last: WARMUP_POLLS + POLLS };
  let calls;
  let paying;
  let payingDoneAt;
  let finalizedAt;
  const tracker = trackPolls(2, (poll, phase) => {
    if (phase === 'start' && poll === window.first) chain.rpc.resetCalls();
    if (phase === 'start' && poll === window.last + 1) calls = new Map(chain.rpc.calls);
    if (phase === 'listed' && poll === window.first + PAY_AT - 1) {
      paying = (async () => {
        for (const checkout of paid) await pay(merchant, checkout);
        payingDoneAt = tracker.polls.length;
      })();
    }
    // Synchronously, before this call is answered: the poll lists the payments finalized.
    if (phase === 'start' && poll === window.first + FINALIZE_AT - 1) {
      chain.finalize();
      finalizedAt = poll;
    }
  });
  const server = await startServerChild(liveOptions(dataDir, CALLS_POLL_MS));
  try {
    await waitFor(() => tracker.polls.length >= WARMUP_POLLS, 30_000, 'the first polls');
    const quiet = await solanaHealth(server);
    if (quiet.walletsWatched !== 1 || quiet.addressesRead !== 2) {
      throw new Error(`expected 1 wallet and 2 addresses, health says ${JSON.stringify(quiet)}`);
    }
    progress(
      `  watching: ${quiet.walletsWatched} wallet, ${quiet.addressesRead} addresses, callsLastPoll ${quiet.callsLastPoll} at rest; counting ${POLLS} polls…`,
    );
    await waitFor(() => calls !== undefined, 60_000 + POLLS * CALLS_POLL_MS * 20, `${POLLS} polls`);
    await paying;
    if (payingDoneAt !== window.first + PAY_AT - 1) {
      throw new Error(`the payments landed during poll ${payingDoneAt}, not ${window.first + PAY_AT - 1}`);
    }
    const after = await solanaHealth(server);
    await allInStatus(
      server,
      paid.map((checkout) => checkout.code),
      'settled',
      10_000,
    );
    const starts = tracker.polls.slice(window.first - 1, window.last + 1);
    const period = (starts.at(-1) - starts[0]) / (starts.length - 1);
    const total = [...calls.values()].reduce((sum, count) => sum + count, 0);
    progress(
      `  ${total} calls in ${POLLS} polls (${PAYMENTS} payments at poll ${PAY_AT}, finalized at ${finalizedAt - WARMUP_POLLS}), all ${PAYMENTS} settled; mean poll period ${period.toFixed(0)} ms`,
    );
    return { size, quiet, after, calls, total, period };
  } finally {
    pollTracker = undefined;
    await server.stop();
  }
}

/** Part 2: finality to webhook for WEBHOOKS checkouts at poll interval `pollIntervalMs`. */
async function webhooksAt(pollIntervalMs, receiverUrl) {
  const merchant = (await chain.newWallet(1_000_000_000n)).address;
  const tracker = trackPolls(2);
  const server = await startServerChild(liveOptions(temporaryDirectory(), pollIntervalMs));
  try {
    progress(`webhooks at poll interval ${pollIntervalMs} ms: opening ${WEBHOOKS} checkouts…`);
    const checkouts = await openCheckouts(
      server,
      WEBHOOKS,
      merchant,
      `webhook-${pollIntervalMs}`,
      (index) => `${receiverUrl}/webhook/${pollIntervalMs}/${index}`,
    );
    progress(`  paying all ${WEBHOOKS}, each with its reference…`);
    const payStart = performance.now();
    for (const checkout of checkouts) await pay(merchant, checkout);
    const payMs = performance.now() - payStart;
    const codes = checkouts.map((checkout) => checkout.code);
    await allInStatus(server, codes, 'processing', 10 * pollIntervalMs + 30_000);
    progress(`  paid in ${payMs.toFixed(0)} ms; all ${WEBHOOKS} processing; finalizing…`);
    // Finality half an interval after a poll starts, the average wait, not just after one (where the
    // status checks above leave it): every run waits alike, so runs compare.
    const seen = tracker.polls.length;
    await waitFor(() => tracker.polls.length > seen, 3 * pollIntervalMs + 10_000, 'a poll');
    await sleep(pollIntervalMs / 2 - (performance.now() - tracker.polls.at(-1)));
    const pollsBefore = tracker.polls.length;
    const finalizedAt = performance.now();
    chain.finalize();
    const deadline = finalizedAt + 3 * pollIntervalMs + 30_000;
    const arrived = () => codes.filter((code) => arrivals.has(code)).length;
    while (arrived() < WEBHOOKS && performance.now() < deadline) await sleep(5);
    if (arrived() < WEBHOOKS) throw new Error(`only ${arrived()} of ${WEBHOOKS} settlement webhooks arrived`);
    const nextPoll = tracker.polls[pollsBefore];
    const delays = codes.map((code) => arrivals.get(code) - finalizedAt).sort((a, b) => a - b);
    const afterPoll = codes.map((code) => arrivals.get(code) - nextPoll).sort((a, b) => a - b);
    await allInStatus(server, codes, 'settled', 10_000);
    progress(
      `  ${WEBHOOKS} settlement webhooks; the first poll after finality started ${(nextPoll - finalizedAt).toFixed(0)} ms after it`,
    );
    return { pollIntervalMs, delays, afterPoll, waitForPoll: nextPoll - finalizedAt };
  } finally {
    pollTracker = undefined;
    await server.stop();
  }
}

try {
  const cpuList = cpus();
  console.log(
    `Solana benchmark: ${process.arch} Node ${process.version}, ${cpuList.length} × ${cpuList[0]?.model ?? 'unknown CPU'}`,
  );
  console.log(
    'The Solana test chain (litesvm behind a loopback JSON-RPC endpoint) in the bench process, the server in a child process (SQLite in a temp dir); commitment finalized.',
  );
  progress('bundling test/solana/solana-test-chain.ts, starting the chain, creating the mints…');
  const { startSolanaTestChain } = await importSolanaTestChain(temporaryDirectory());
  chain = await startSolanaTestChain();
  mints = { usdc: await chain.createMint({ decimals: 6 }), usdt: await chain.createMint({ decimals: 6 }) };
  buyer = await chain.newWallet(1_000_000_000_000n);
  await chain.mintTo(mints.usdc, buyer.address, 1_000_000_000_000_000n);
  chain.finalize();
  hookCallCounter();
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${receiver.address().port}`;

  const sizes = [];
  for (const size of SIZES) sizes.push(await callsAt(size));
  const webhookRuns = [];
  for (const pollIntervalMs of WEBHOOK_POLL_MS)
    webhookRuns.push(await webhooksAt(pollIntervalMs, receiverUrl));

  console.log(
    `\nRPC calls per poll, one merchant wallet (USDC: the wallet and its token account are read), poll interval ${CALLS_POLL_MS} ms. Counted by the endpoint over ${POLLS} polls: ${PAYMENTS} payments land after the listing of poll ${PAY_AT} and the cluster finalizes them as poll ${FINALIZE_AT} starts.`,
  );
  const methods = [...new Set(sizes.flatMap((run) => [...run.calls.keys()]))].sort();
  console.log(
    `\n| open checkouts | callsLastPoll at rest | ${methods.join(' | ')} | calls in ${POLLS} polls | calls / poll | mean poll period ms |`,
  );
  console.log(`|---:|---:|${methods.map(() => '---:|').join('')}---:|---:|---:|`);
  for (const run of sizes) {
    console.log(
      `| ${thousands(run.size)} | ${run.quiet.callsLastPoll} | ${methods.map((method) => run.calls.get(method) ?? 0).join(' | ')} | ${run.total} | ${(run.total / POLLS).toFixed(2)} | ${run.period.toFixed(0)} |`,
    );
  }
  const smallest = sizes[0];
  const largest = sizes.at(-1);
  if (sizes.length > 1) {
    console.log(
      `\n${thousands(largest.size)} / ${thousands(smallest.size)} checkouts: calls per poll ×${(largest.total / smallest.total).toFixed(2)}, callsLastPoll at rest ×${(largest.quiet.callsLastPoll / smallest.quiet.callsLastPoll).toFixed(2)}${methods.map((method) => `, ${method} ×${((largest.calls.get(method) ?? 0) / (smallest.calls.get(method) || 1)).toFixed(2)}`).join('')} (goal: ×1.00); mean poll period ×${(largest.period / smallest.period).toFixed(2)} (the interval plus the poll's own time, its database reads included).`,
    );
  }
  console.log(
    `Health after the window: rpcCalls ${sizes.map((run) => `${run.after.rpcCalls} (${thousands(run.size)})`).join(', ')}; transactionsExamined ${sizes.map((run) => run.after.transactionsExamined).join(', ')}.`,
  );

  console.log(
    `\nFinality to webhook: ${WEBHOOKS} checkouts paid (each its own transaction and slot) and processing at confirmed; delay from chain.finalize() to each settlement webhook's arrival on loopback.`,
  );
  console.log(
    '\n| poll interval ms | webhooks | median ms | p95 ms | max ms | wait for the next poll ms | median after that poll ms | max after that poll ms |',
  );
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const { pollIntervalMs, delays, afterPoll, waitForPoll } of webhookRuns) {
    console.log(
      `| ${pollIntervalMs} | ${delays.length} | ${percentile(delays, 50).toFixed(0)} | ${percentile(delays, 95).toFixed(0)} | ${delays.at(-1).toFixed(0)} | ${waitForPoll.toFixed(0)} | ${percentile(afterPoll, 50).toFixed(0)} | ${afterPoll.at(-1).toFixed(0)} |`,
    );
  }
  console.log(
    "\nThe delay is the wait for the watcher's next poll (finality comes half an interval after a poll starts: the average wait; at worst a whole interval) plus that poll: one getSignatureStatuses for up to 256 payments, then each checkout settled and its webhook sent.",
  );
  console.log(`\nTotal ${elapsed()}.`);
} finally {
  pollTracker = undefined;
  await stopServerChildren();
  receiver.close();
  await chain?.stop();
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
}
