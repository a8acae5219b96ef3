#!/usr/bin/env node
// Flood benchmark of direct live mode's exact amounts (docs/live-mode.md "Floods and limits"): a flood
// of checkout + payment-instruction requests for one wallet and one price, then a genuine buyer's
// request for the same price from another loopback address. Three runs, each on a fresh server (the
// reference server as built, in a child process, SQLite in a temp dir; ganache in this process):
//   one address     the flood from 127.0.0.1, default limits (10 new holds a minute per address, 20 per price);
//   many addresses  the same flood spread over 127.0.0.10–127.0.0.249, default limits;
//   no limits       the flood from 127.0.0.1 with both limits off: every request takes an amount, so the
//                   first tag tier (1–9 999) fills and the second (10 000–99 999) takes the rest.
// Prints requests/s, answers by status, tags held by tier, and the genuine buyer's answer; no pass/fail.
// Knobs (defaults): BENCH_FLOOD_REQUESTS (10100), BENCH_FLOOD_CONCURRENCY (16),
// BENCH_FLOOD_RUNS (one,many,unlimited).
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { importLocalChain } from './local-chain-import.mjs';
import { startServerChild, stopServerChildren } from './server-children.mjs';

const environment = process.env;
const REQUESTS = Number(environment.BENCH_FLOOD_REQUESTS ?? 10_100);
const CONCURRENCY = Number(environment.BENCH_FLOOD_CONCURRENCY ?? 16);
const RUNS = (environment.BENCH_FLOOD_RUNS ?? 'one,many,unlimited').split(',');
const MERCHANT_WALLET = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const GENUINE_BUYER = '127.0.0.2';
const MANY_ADDRESSES = Array.from({ length: 240 }, (_, index) => `127.0.0.${10 + index}`);

const benchStart = performance.now();
const progress = (line) =>
  process.stdout.write(`  [${((performance.now() - benchStart) / 1000).toFixed(1)} s] ${line}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const directories = [];
const temporaryDirectory = () => {
  const directory = mkdtempSync(join(tmpdir(), 'cryptocheckout-bench-flood-'));
  directories.push(directory);
  return directory;
};

/** One kept-alive agent per local address, so each request leaves from the address it names. */
const agents = new Map();
function agentFor(localAddress) {
  let agent = agents.get(localAddress);
  if (!agent) {
    agent = new Agent({ keepAlive: true, localAddress });
    agents.set(localAddress, agent);
  }
  return agent;
}

/** A request from `localAddress`: { status, headers, json }. */
function call(server, localAddress, method, path, body) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const outgoing = httpRequest(
      `${server.url}/api${path}`,
      {
        method,
        localAddress,
        agent: agentFor(localAddress),
        headers: payload ? { 'content-type': 'application/json' } : {},
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => {
          text += chunk;
        });
        response.on('end', () =>
          resolve({ status: response.statusCode, headers: response.headers, json: JSON.parse(text) }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

/** Opens a checkout of 25.00 EUR to the merchant's wallet and asks for its USDC-on-Polygon instructions. */
async function checkoutAndInstructions(server, localAddress) {
  const created = await call(server, localAddress, 'POST', '/checkout', {
    fiat_amount: '25.00',
    fiat_currency: 'EUR',
    external_reference: 'flood',
    customer: {
      wallet_address: MERCHANT_WALLET,
      crypto_currency: 'USDC',
      crypto_currency_network: 'POLYGON',
    },
  });
  if (created.status !== 201) return created;
  const code = created.json.data.transaction_code;
  return call(
    server,
    localAddress,
    'GET',
    `/payment_link?transaction_code=${code}&payment_method=usdc_polygon`,
  );
}

/** Sends REQUESTS checkout + instruction pairs, CONCURRENCY at a time, from `addresses` in turn. */
async function flood(server, addresses) {
  const statuses = new Map();
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    for (;;) {
      const index = next++;
      if (index >= REQUESTS) return;
      const answer = await checkoutAndInstructions(server, addresses[index % addresses.length]);
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      if ((index + 1) % 1000 === 0) progress(`  ${index + 1}/${REQUESTS} pairs sent`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { statuses, seconds: (performance.now() - started) / 1000 };
}

/** The base-unit amounts the server holds, read from its SQLite file once it stopped. */
function heldAmounts(dataDir) {
  const db = new Database(join(dataDir, 'cryptocheckout.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare('SELECT amount_base_units FROM amount_holds')
      .all()
      .map((row) => BigInt(row.amount_base_units));
  } finally {
    db.close();
  }
}

const describeAnswer = (answer) =>
  answer.status === 200
    ? `200, pay ${answer.json.data.amount} ${answer.json.data.asset}`
    : `${answer.status} ${answer.json.error.code}${answer.headers['retry-after'] ? ` (Retry-After ${answer.headers['retry-after']})` : ''}: ${answer.json.error.message}`;

const results = [];
try {
  const cpuList = cpus();
  console.log(
    `Flood benchmark: ${process.arch} Node ${process.version}, ${cpuList.length} × ${cpuList[0]?.model ?? 'unknown CPU'}`,
  );
  console.log(
    `${REQUESTS} checkout + payment_link pairs for one wallet and one price (25.00 EUR in USDC on Polygon), ${CONCURRENCY} at a time; runs: ${RUNS.join(', ')}.`,
  );
  progress('bundling test/live/local-chain.ts, starting ganache, deploying the token…');
  const { startLocalChain } = await importLocalChain(temporaryDirectory());
  const chain = await startLocalChain();
  const usdc = await chain.deployToken('USDC', 6);

  for (const run of RUNS) {
    const addresses = run === 'many' ? MANY_ADDRESSES : ['127.0.0.1'];
    const dataDir = temporaryDirectory();
    const server = await startServerChild({
      port: 0,
      dataDir,
      logLevel: 'silent',
      mode: 'live',
      rates: { source: 'static', fixedPricesInLiveMode: true },
      live: {
        rpcUrls: { POLYGON: chain.rpcUrl },
        tokens: { 'POLYGON:USDC': usdc },
        confirmations: { POLYGON: 3 },
      },
      ...(run === 'unlimited' ? { newHoldLimits: { perClientPerMinute: 0, perPricePerMinute: 0 } } : {}),
    });
    progress(
      `run "${run}": flooding from ${addresses.length === 1 ? addresses[0] : `${addresses.length} addresses`}…`,
    );
    const { statuses, seconds } = await flood(server, addresses);
    progress(`run "${run}": the genuine buyer asks from ${GENUINE_BUYER}…`);
    const genuine = await checkoutAndInstructions(server, GENUINE_BUYER);
    const answers = [describeAnswer(genuine)];
    if (genuine.status === 429) {
      // The buyer's page would wait as told and ask again.
      await sleep(Number(genuine.headers['retry-after']) * 1000);
      const retried = await checkoutAndInstructions(server, GENUINE_BUYER);
      answers.push(`after Retry-After: ${describeAnswer(retried)}`);
    }
    await server.stop();
    const held = heldAmounts(dataDir);
    // Every hold is of the one price, and tag 1 is always taken first: the smallest is due + 1.
    const due = held.reduce((smallest, each) => (each < smallest ? each : smallest), held[0] ?? 0n) - 1n;
    const firstTier = held.filter((each) => each - due <= 9_999n).length;
    results.push({
      run,
      addresses: addresses.length,
      seconds,
      statuses,
      held: held.length,
      firstTier,
      secondTier: held.length - firstTier,
      answers,
    });
  }
  await chain.close();

  console.log('\nResults');
  for (const result of results) {
    const byStatus = [...result.statuses]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${count} × ${status}`)
      .join(', ');
    console.log(`  ${result.run} (${result.addresses} address${result.addresses === 1 ? '' : 'es'}):`);
    console.log(
      `    ${REQUESTS} pairs in ${result.seconds.toFixed(1)} s: ${(REQUESTS / result.seconds).toFixed(0)} pairs/s, ${((2 * REQUESTS) / result.seconds).toFixed(0)} requests/s`,
    );
    console.log(`    instruction answers: ${byStatus} (429: ${result.statuses.get(429) ?? 0})`);
    console.log(
      `    amounts held: ${result.held} (tags 1–9 999: ${result.firstTier}, tags 10 000–99 999: ${result.secondTier})`,
    );
    for (const answer of result.answers) console.log(`    genuine buyer: ${answer}`);
  }
} finally {
  await stopServerChildren('SIGKILL');
  for (const agent of agents.values()) agent.destroy();
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
}
