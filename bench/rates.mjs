#!/usr/bin/env node
// Rates benchmark: POST /api/checkout (EUR, so every order is converted) on the reference server
// priced from the embedded static table and from live market sources (the five sources on a
// loopback stand-in serving their published formats, read at their own rhythm). Runs alternate
// static and live (3 rounds) so a busy machine hurts both alike; prints requests/s, p99 and
// live / static.
// Goal (issue "Live prices"): live ≥ 0.95 of static.
import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const GOAL = 0.95;
const here = fileURLToPath(new URL('.', import.meta.url));
const fixtures = join(here, '../packages/server/test/fixtures/rates');
const fixture = (name) => readFileSync(join(fixtures, name), 'utf8');

/** The fixture answers with today's times: what the public sources would say now. */
function answer(path) {
  const now = new Date();
  const seconds = Math.floor(now.getTime() / 1000);
  if (path.startsWith('/ecb'))
    return fixture('ecb-eurofxref-daily.xml').replace(
      /time='[^']*'/,
      `time='${now.toISOString().slice(0, 10)}'`,
    );
  if (path.startsWith('/exchangerate-api')) {
    return JSON.stringify({
      ...JSON.parse(fixture('exchangerate-api-latest-usd.json')),
      time_last_update_unix: seconds,
      time_next_update_unix: seconds + 86_400,
    });
  }
  if (path.startsWith('/kraken')) return fixture('kraken-ticker.json');
  if (path.startsWith('/coinbase'))
    return JSON.stringify({
      ...JSON.parse(fixture('coinbase-product-ticker.json')),
      time: now.toISOString(),
    });
  if (path.startsWith('/bitstamp')) {
    return JSON.stringify(
      JSON.parse(fixture('bitstamp-tickers.json')).map((ticker) => ({
        ...ticker,
        timestamp: String(seconds),
      })),
    );
  }
  return undefined;
}

const sourceServer = createServer((request, response) => {
  const body = answer(request.url ?? '/');
  if (body === undefined) response.writeHead(404).end();
  else response.writeHead(200).end(body);
});
await new Promise((resolve) => sourceServer.listen(0, '127.0.0.1', resolve));
const sourcesUrl = `http://127.0.0.1:${sourceServer.address().port}`;
const names = ['ecb', 'exchangerate-api', 'kraken', 'coinbase', 'bitstamp'];
const liveRates = {
  source: 'live',
  sourceUrls: Object.fromEntries(names.map((name) => [name, `${sourcesUrl}/${name}`])),
};

const directories = [];
const children = [];
function startServerChild(options) {
  const directory = mkdtempSync(join(tmpdir(), 'cryptocheckout-bench-'));
  directories.push(directory);
  return new Promise((resolve, reject) => {
    const child = fork(join(here, 'server-child.mjs'), [directory, JSON.stringify(options)], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    children.push(child);
    child.once('message', (message) => resolve({ child, url: message.url }));
    child.once('exit', (code) => reject(new Error(`server child exited with ${code}`)));
  });
}

const body = JSON.stringify({
  fiat_amount: '25.00',
  fiat_currency: 'EUR',
  external_reference: 'bench-order',
  customer: {
    wallet_address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
    crypto_currency: 'USDC',
    crypto_currency_network: 'POLYGON',
  },
});

function load(url, duration) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `${url}/api/checkout`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        duration,
        connections,
      },
      (error, result) => {
        if (error) return reject(error);
        if (result.non2xx > 0 || result.errors > 0) {
          return reject(new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`));
        }
        resolve({ rps: result.requests.average, p99: result.latency.p99 });
      },
    );
  });
}

try {
  const staticServer = await startServerChild({});
  const liveServer = await startServerChild({ rates: liveRates });
  // Wait until the live server prices EUR from its sources.
  for (let attempt = 0; ; attempt++) {
    const created = await fetch(`${liveServer.url}/api/checkout`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    const json = await created.json();
    if (created.status === 201 && json.data) {
      const rate = (
        await (
          await fetch(`${liveServer.url}/api/transaction?transaction_code=${json.data.transaction_code}`)
        ).json()
      ).data.rate;
      console.log(`Live server prices 1 EUR = ${rate.usd_per_unit} USD from ${rate.sources.join(', ')}`);
      break;
    }
    if (attempt > 100) throw new Error(`the live server never priced EUR: ${JSON.stringify(json)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  console.log(
    `Rates benchmark: POST /api/checkout in EUR, ${connections} connections, ${rounds} rounds of ${seconds}s per server after ${warmupSeconds}s of warm-up, ${process.arch} Node ${process.version}`,
  );
  const results = { static: [], live: [] };
  for (let round = 1; round <= rounds; round++) {
    for (const [name, server] of [
      ['static', staticServer],
      ['live', liveServer],
    ]) {
      process.stdout.write(
        `  round ${round}/${rounds}, ${name} table: warm-up ${warmupSeconds}s, then ${seconds}s…\n`,
      );
      if (warmupSeconds > 0) await load(server.url, warmupSeconds);
      results[name].push(await load(server.url, seconds));
    }
  }
  const mean = (runs) => runs.reduce((sum, run) => sum + run.rps, 0) / runs.length;
  const ratio = mean(results.live) / mean(results.static);
  console.log('\n| prices | req/s per round | mean req/s | p99 ms per round |');
  console.log('|---|---|---:|---|');
  for (const name of ['static', 'live']) {
    console.log(
      `| ${name} | ${results[name].map((run) => run.rps.toFixed(0)).join(' · ')} | ${mean(results[name]).toFixed(0)} | ${results[name].map((run) => run.p99).join(' · ')} |`,
    );
  }
  console.log(`\nlive / static = ${ratio.toFixed(3)} (goal ≥ ${GOAL}) ${ratio >= GOAL ? '✓' : '✗'}`);
} finally {
  for (const child of children) child.kill('SIGTERM');
  sourceServer.close();
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
}
