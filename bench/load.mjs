#!/usr/bin/env node
// Load benchmark: the reference server against a bare node:http server returning a fixed JSON body,
// side by side in one run, for GET /api/transaction and POST /api/checkout. Prints requests/s, p99
// latency and each as a ratio to the bare server. Targets: lookups ≥ 50 %, checkouts ≥ 25 %.
// The bare server's fixed bodies are copies of the server's own answers (same bytes on the wire),
// so the ratio measures the work behind an answer, not the size of it.
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const here = fileURLToPath(new URL('.', import.meta.url));

function startChild(script, args) {
  return new Promise((resolve, reject) => {
    const child = fork(join(here, script), args, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    child.once('message', (message) => resolve({ child, url: message.url }));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

function run(title, options) {
  return new Promise((resolve, reject) => {
    process.stdout.write(`  running ${title} for ${seconds}s…\n`);
    autocannon({ duration: seconds, connections, ...options }, (error, result) => {
      if (error) return reject(error);
      if (result.non2xx > 0 || result.errors > 0) {
        return reject(new Error(`${title}: ${result.non2xx} non-2xx answers, ${result.errors} errors`));
      }
      resolve({ title, rps: result.requests.average, p99: result.latency.p99 });
    });
  });
}

const dataDir = mkdtempSync(join(tmpdir(), 'cryptocheckout-bench-'));
const server = await startChild('server-child.mjs', [dataDir]);
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
let bare;
try {
  const created = await (
    await fetch(`${server.url}/api/checkout`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: checkoutBody,
    })
  ).json();
  const code = created.data.transaction_code;
  const lookupBody = await (await fetch(`${server.url}/api/transaction?transaction_code=${code}`)).text();
  bare = await startChild('bare-child.mjs', [lookupBody, JSON.stringify(created)]);
  console.log(
    `Load benchmark: ${connections} connections, ${seconds}s per run, ${process.arch} Node ${process.version}`,
  );
  const results = [];
  results.push(await run('bare GET', { url: `${bare.url}/` }));
  results.push(
    await run('server GET /api/transaction', {
      url: `${server.url}/api/transaction?transaction_code=${code}`,
    }),
  );
  results.push(
    await run('bare POST', {
      url: `${bare.url}/`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: checkoutBody,
    }),
  );
  results.push(
    await run('server POST /api/checkout', {
      url: `${server.url}/api/checkout`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: checkoutBody,
    }),
  );
  const [bareGet, lookup, barePost, checkout] = results;
  console.log('\n| run | requests/s | p99 ms | ratio to bare | target |');
  console.log('|---|---:|---:|---:|---:|');
  const row = (r, base, target) =>
    console.log(
      `| ${r.title} | ${r.rps.toFixed(0)} | ${r.p99} | ${base ? `${((r.rps / base.rps) * 100).toFixed(0)} %` : '—'} | ${target ?? ''} |`,
    );
  row(bareGet);
  row(lookup, bareGet, '≥ 50 %');
  row(barePost);
  row(checkout, barePost, '≥ 25 %');
} finally {
  server.child.kill('SIGTERM');
  bare?.child.kill('SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
}
