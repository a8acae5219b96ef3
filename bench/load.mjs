#!/usr/bin/env node
// Load benchmark, side by side in one run, for GET /api/transaction and POST /api/checkout:
//   bare           node:http answering fixed JSON bodies (copies of the server's own answers);
//   bare + SQLite  node:http doing the same SQLite work: parse the body, INSERT one row or SELECT one
//                  by primary key on the server's schema, answer JSON — the floor any server on this
//                  storage pays;
//   server         the reference server as built.
// Prints requests/s and p99 latency of each, and the server's ratio to "bare + SQLite". Goals: lookups
// ≥ 0.9, creation ≥ 0.8. Each target gets a short warm-up first, so the JIT has compiled the hot paths.
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const here = fileURLToPath(new URL('.', import.meta.url));
const GOALS = { lookup: 0.9, creation: 0.8 };

function startChild(script, args) {
  return new Promise((resolve, reject) => {
    const child = fork(join(here, script), args, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    child.once('message', (message) => resolve({ child, url: message.url }));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

function load(title, duration, options) {
  return new Promise((resolve, reject) => {
    autocannon({ duration, connections, ...options }, (error, result) => {
      if (error) return reject(error);
      if (result.non2xx > 0 || result.errors > 0) {
        return reject(new Error(`${title}: ${result.non2xx} non-2xx answers, ${result.errors} errors`));
      }
      resolve({ rps: result.requests.average, p99: result.latency.p99 });
    });
  });
}

async function measure(title, options) {
  process.stdout.write(`  ${title}: warm-up ${warmupSeconds}s, then ${seconds}s…\n`);
  if (warmupSeconds > 0) await load(title, warmupSeconds, options);
  return load(title, seconds, options);
}

const directories = [];
const temporaryDirectory = () => {
  const directory = mkdtempSync(join(tmpdir(), 'cryptocheckout-bench-'));
  directories.push(directory);
  return directory;
};
const children = [];
const checkoutBody = JSON.stringify({
  fiat_amount: '25.00',
  fiat_currency: 'EUR',
  external_reference: 'bench-order',
  customer: {
    wallet_address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
    crypto_currency: 'USDC',
    crypto_currency_network: 'POLYGON',
  },
});
const post = { method: 'POST', headers: { 'content-type': 'application/json' }, body: checkoutBody };

try {
  const server = await startChild('server-child.mjs', [temporaryDirectory()]);
  children.push(server.child);
  const created = await (await fetch(`${server.url}/api/checkout`, post)).json();
  const code = created.data.transaction_code;
  const lookupPath = `/api/transaction?transaction_code=${code}`;
  const lookupBody = await (await fetch(`${server.url}${lookupPath}`)).text();
  const bare = await startChild('bare-child.mjs', [lookupBody, JSON.stringify(created)]);
  children.push(bare.child);
  const bareSqlite = await startChild('bare-sqlite-child.mjs', [
    temporaryDirectory(),
    lookupBody,
    JSON.stringify(created),
  ]);
  children.push(bareSqlite.child);
  console.log(
    `Load benchmark: ${connections} connections, ${seconds}s per run after ${warmupSeconds}s of warm-up, ${process.arch} Node ${process.version}`,
  );
  const rows = [];
  for (const [endpoint, options, goal] of [
    ['GET /api/transaction', { path: lookupPath }, GOALS.lookup],
    ['POST /api/checkout', { path: '/api/checkout', ...post }, GOALS.creation],
  ]) {
    const { path, ...request } = options;
    const bareResult = await measure(`bare ${request.method ?? 'GET'}`, { url: bare.url + path, ...request });
    const floor = await measure(`bare + SQLite ${endpoint}`, { url: bareSqlite.url + path, ...request });
    const ours = await measure(`server ${endpoint}`, { url: server.url + path, ...request });
    rows.push({ endpoint, bareResult, floor, ours, goal });
  }
  console.log(
    '\n| endpoint | bare req/s | bare + SQLite req/s | server req/s | server / bare + SQLite | goal | p99 ms bare · + SQLite · server |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---|');
  let met = true;
  for (const { endpoint, bareResult, floor, ours, goal } of rows) {
    const ratio = ours.rps / floor.rps;
    met &&= ratio >= goal;
    console.log(
      `| ${endpoint} | ${bareResult.rps.toFixed(0)} | ${floor.rps.toFixed(0)} | ${ours.rps.toFixed(0)} | ${ratio.toFixed(2)} | ≥ ${goal} ${ratio >= goal ? '✓' : '✗'} | ${bareResult.p99} · ${floor.p99} · ${ours.p99} |`,
    );
  }
  console.log(met ? '\nBoth ratios meet their goals.' : '\nA ratio is below its goal.');
} finally {
  for (const child of children) child.kill('SIGTERM');
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
}
