// Webhook delivery under kill -9 (not run in CI). Starts the built server (packages/server/dist/cli.js)
// as a child process, pays N sandbox checkouts while killing the server with SIGKILL several times
// and restarting it on the same --data-dir, then counts per transaction_code how many webhooks were
// lost (settled, never received) and duplicated (received more than once).
//
//   npx turbo run build && node bench/kill-nine.mjs [checkouts=300] [kills=5]
//
// Duplicates are expected to be rare, not impossible: delivery is at-least-once (docs/api.md).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CHECKOUTS = Number(process.argv[2] ?? 300);
const KILLS = Number(process.argv[3] ?? 5);
const CLI = new URL('../packages/server/dist/cli.js', import.meta.url).pathname;
// A lease is the 8 s webhook timeout plus 2 s; after the last restart allow for one lease and then some.
const SETTLE_WAIT_MS = 20_000;

const log = (message) => process.stdout.write(`[${new Date().toISOString().slice(11, 23)}] ${message}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The receiver answers after a short random delay, so deliveries are in flight when the kills come.
const received = new Map();
const receiver = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk) => {
    body += chunk;
  });
  request.on('end', () => {
    try {
      const code = JSON.parse(body).transaction_code;
      received.set(code, (received.get(code) ?? 0) + 1);
    } catch {
      received.set('(unparsable)', (received.get('(unparsable)') ?? 0) + 1);
    }
    setTimeout(() => response.writeHead(200).end('ok'), Math.random() * 40);
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const webhookUrl = `http://127.0.0.1:${receiver.address().port}/hook`;

const port = await new Promise((resolve) => {
  const probe = createNetServer().listen(0, '127.0.0.1', () => {
    const { port: free } = probe.address();
    probe.close(() => resolve(free));
  });
});
const base = `http://127.0.0.1:${port}/api`;
const dataDir = mkdtempSync(join(tmpdir(), 'cryptocheckout-kill-nine-'));

let child = null;
async function startChild() {
  child = spawn(
    process.execPath,
    [CLI, '--port', String(port), '--data-dir', dataDir, '--log-level', 'warn'],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, CRYPTOCHECKOUT_LOG_FORMAT: 'json' },
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited: ${stderr}`);
    try {
      const response = await fetch(`${base}/health`);
      if (response.ok) return;
    } catch {}
    await sleep(50);
  }
}

async function api(method, path, body) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, json: await response.json() };
}

/** Retries through restarts: a request the killed server never answered is sent again. */
async function persistently(method, path, body) {
  for (;;) {
    try {
      return await api(method, path, body);
    } catch {
      await sleep(100);
    }
  }
}

await startChild();
log(`server on ${base}, data dir ${dataDir}, receiver ${webhookUrl}`);

const codes = [];
for (let index = 0; index < CHECKOUTS; index += 1) {
  const { status, json } = await persistently('POST', '/checkout', {
    fiat_amount: '25.00',
    fiat_currency: 'EUR',
    external_reference: `kill-nine-${index}`,
    success_url: 'https://shop.example/thanks',
    cancel_url: 'https://shop.example/cart',
    webhook_url: webhookUrl,
    customer: {
      wallet_address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
      crypto_currency: 'USDC',
      crypto_currency_network: 'POLYGON',
    },
  });
  if (status !== 201) throw new Error(`checkout failed: ${status} ${JSON.stringify(json)}`);
  codes.push(json.data.transaction_code);
}
log(`${codes.length} checkouts created`);

// Payments run 8 at a time while a killer SIGKILLs and restarts the server.
let paid = 0;
let kills = 0;
const queue = [...codes];
const payers = Array.from({ length: 8 }, async () => {
  for (let code = queue.shift(); code; code = queue.shift()) {
    // A 409 means an earlier try settled it before the kill: settled is what counts.
    await persistently('POST', '/sandbox/pay', { transaction_code: code, payment_method: 'usdc_polygon' });
    paid += 1;
    if (paid % 50 === 0) log(`${paid}/${codes.length} paid, ${sumOf(received)} webhooks received`);
  }
});
// Kills land while payments and deliveries are under way (deliveries trail the payments).
const killer = (async () => {
  for (let kill = 1; kill <= KILLS; kill += 1) {
    await sleep(300 + Math.random() * 500);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    kills += 1;
    log(`kill -9 #${kill} after ${paid} payments, ${sumOf(received)} webhooks received; restarting`);
    await startChild();
  }
})();
await Promise.all(payers);
await killer;
log(`all ${codes.length} paid; waiting for the outbox to drain (up to ${SETTLE_WAIT_MS / 1000} s)`);

const settled = [];
for (const code of codes) {
  const { json } = await persistently('GET', `/transaction?transaction_code=${code}`);
  if (json.data?.status === 'settled' || json.data?.status === 'settled_late') settled.push(code);
}
const deadline = Date.now() + SETTLE_WAIT_MS;
while (Date.now() < deadline && settled.some((code) => !received.has(code))) await sleep(250);
// Late duplicates from expired leases would arrive within a lease; give them a moment more.
await sleep(1000);

const lost = settled.filter((code) => !received.has(code));
const duplicated = [...received].filter(([, count]) => count > 1);
const unexpected = [...received.keys()].filter((code) => !codes.includes(code));
log('result');
process.stdout.write(
  `${JSON.stringify(
    {
      checkouts: codes.length,
      settled: settled.length,
      kills,
      webhooks_received: sumOf(received),
      lost: lost.length,
      duplicated_transactions: duplicated.length,
      extra_copies: duplicated.reduce((sum, [, count]) => sum + count - 1, 0),
      unexpected_codes: unexpected.length,
      lost_codes: lost.slice(0, 10),
      duplicated_codes: duplicated.slice(0, 10),
    },
    null,
    2,
  )}\n`,
);

child.kill('SIGTERM');
await new Promise((resolve) => child.once('exit', resolve));
receiver.close();
rmSync(dataDir, { recursive: true, force: true });

function sumOf(map) {
  let total = 0;
  for (const count of map.values()) total += count;
  return total;
}
