// Deposit-mode figures of bench/watcher.mjs, which runs them after the direct-mode ones (alone with
// BENCH_PART=deposits npm run bench:watcher). docs/deposit-mode.md.
//   watching  a backlog of blocks holding transfers of the watched token, most of them to unrelated
//             addresses and a few paying deposit-mode checkouts at their deposit addresses, mined while the
//             server is down; then the time the watcher takes from start to the head with 1,000, 10,000
//             and 100,000 deposit addresses on file: blocks/s and JSON-RPC requests per block (eth_getLogs
//             and the rest, counted at the local chain's proxy). Up to 1,000 addresses the node is asked
//             for them by recipient (100 a call); above that, for every transfer of the token, matched by
//             the server. Only the paid checkouts are opened through the API; the other addresses are
//             real CREATE2 deposit addresses written straight into the server's SQLite file
//             (deposit_forwarders rows of made-up checkout codes: no transfer goes to them, so no
//             transactions row is needed). The forwarder runs too: paid deposits confirmed during the
//             catch-up are signed into a forward (not mined: the bench mines nothing meanwhile);
//   gas       DepositFactory.forwardBatch on a ganache of its own (Shanghai, 30 M block gas limit), as the
//             sweeper sends it: gas per transaction and per checkout at batch sizes 1, 10 and 50, for the
//             first forward of an address (deploys its clone) and for a later one, with an OpenZeppelin
//             ERC-20 (USDC-like) and a token whose transfer returns no bool (USDT-like), both from
//             packages/contracts/test/TestTokens.sol; a plain transfer of each for scale. The merchant
//             holds some of each token already, as a merchant who was paid before does.
// Knobs (defaults): BENCH_DEPOSIT_ADDRESSES (1000,10000,100000), BENCH_DEPOSIT_BLOCKS (2000),
// BENCH_DEPOSIT_UNRELATED (1000: transfers to unrelated addresses; more than the blocks puts several in a
// block, as on a busy chain), BENCH_DEPOSIT_PAID (20: checkouts paid at their deposit address),
// BENCH_FORWARD_BATCHES (1,10,50).
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkoutSalt, compiledContracts, depositAddress } from '@cryptocheckout/contracts';
import { decimalToScaled } from '@cryptocheckout/core';
import Database from 'better-sqlite3';
import ganache from 'ganache';
import {
  createPublicClient,
  custom,
  encodeDeployData,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  keccak256,
  parseEventLogs,
  toHex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { compileContracts } from '../packages/contracts/scripts/solidity.mjs';

const environment = process.env;
const listOf = (value, fallback) => (value ?? fallback).split(',').map((each) => Number(each.trim()));
const ADDRESS_COUNTS = listOf(environment.BENCH_DEPOSIT_ADDRESSES, '1000,10000,100000');
const BLOCKS = Number(environment.BENCH_DEPOSIT_BLOCKS ?? 2000);
const UNRELATED = Number(environment.BENCH_DEPOSIT_UNRELATED ?? 1000);
const PAID = Number(environment.BENCH_DEPOSIT_PAID ?? 20);
const BATCH_SIZES = listOf(environment.BENCH_FORWARD_BATCHES, '1,10,50');
/** transfer-logs.ts MAX_FILTERED_RECIPIENTS: above it the node is asked for every transfer. */
const MAX_FILTERED_RECIPIENTS = 1000;
const RECIPIENTS_PER_CALL = 100;
const MAX_BLOCK_RANGE = 500;

/** Checks the knobs before anything runs; throws naming the knob and the fix. */
export function checkDepositKnobs() {
  if (!ADDRESS_COUNTS.every((count) => Number.isInteger(count) && count >= PAID)) {
    throw new Error(
      `BENCH_DEPOSIT_ADDRESSES must be whole numbers of at least BENCH_DEPOSIT_PAID (${PAID}), e.g. 1000,10000.`,
    );
  }
  if (!(Number.isInteger(PAID) && PAID >= 1 && Number.isInteger(UNRELATED) && UNRELATED >= 0)) {
    throw new Error('BENCH_DEPOSIT_PAID must be a whole number ≥ 1, BENCH_DEPOSIT_UNRELATED one ≥ 0.');
  }
  // The local chain gives each transfer 100,000 gas; ganache's blocks hold 6.7 M.
  if (!(Number.isInteger(BLOCKS) && BLOCKS >= 1 && PAID + UNRELATED <= 60 * BLOCKS)) {
    throw new Error(
      'BENCH_DEPOSIT_BLOCKS must be a whole number ≥ 1, with at most 60 transfers a block (BENCH_DEPOSIT_PAID + BENCH_DEPOSIT_UNRELATED).',
    );
  }
  if (!BATCH_SIZES.every((size) => Number.isInteger(size) && size >= 1 && size <= 200)) {
    throw new Error('BENCH_FORWARD_BATCHES must be whole numbers from 1 to 200, e.g. 1,10,50.');
  }
}

const keyOf = (name) => keccak256(toHex(`cryptocheckout bench ${name}`));
const SWEEPER_KEY = keyOf('deposit sweeper');
const SWEEPER = privateKeyToAccount(SWEEPER_KEY).address;

/** A checkout code shaped like the server's (a UUID), the same for the same index in every run. */
function madeUpCode(index) {
  const hex = keccak256(toHex(`cryptocheckout bench deposit checkout ${index}`)).slice(2);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Opens a deposit-mode checkout paid in USDC on Polygon to `wallet`; its deposit address and amount. */
async function openDepositCheckout(harness, server, wallet, reference) {
  const created = await harness.api(server, 'POST', '/checkout', {
    fiat_amount: '25.00',
    fiat_currency: 'EUR',
    external_reference: reference,
    customer: { wallet_address: wallet, crypto_currency: 'USDC', crypto_currency_network: 'POLYGON' },
  });
  const code = created.transaction_code;
  const link = await harness.api(
    server,
    'GET',
    `/payment_link?transaction_code=${code}&payment_method=usdc_polygon`,
  );
  if (getAddress(link.address) === getAddress(wallet)) {
    throw new Error(`checkout ${code} was not given a deposit address: is deposit mode on?`);
  }
  return { code, address: getAddress(link.address), baseUnits: decimalToScaled(link.amount, 6) };
}

/** Writes deposit_forwarders rows as the server writes them (evm-rail-provider.ts paymentRequest). */
function writeForwarders(dataDir, rows) {
  const db = new Database(join(dataDir, 'cryptocheckout.sqlite'), { fileMustExist: true });
  try {
    const insert = db.prepare(
      `INSERT INTO deposit_forwarders
         (network, address, transaction_code, payment_method, merchant, salt, factory, created_at)
       VALUES ('POLYGON', ?, ?, 'usdc_polygon', ?, ?, ?, ?)`,
    );
    const createdAt = new Date().toISOString();
    db.transaction(() => {
      for (const row of rows) {
        insert.run(row.address, row.code, row.merchant, row.salt, row.factory, createdAt);
      }
    })();
    return db.prepare(`SELECT count(*) AS count FROM deposit_forwarders`).get().count;
  } finally {
    db.close();
  }
}

/** What the server stored of the deposits and forwards, read from its SQLite file after it stopped. */
function storedDeposits(dataDir) {
  const db = new Database(join(dataDir, 'cryptocheckout.sqlite'), { readonly: true, fileMustExist: true });
  try {
    const transfers = db
      .prepare(
        `SELECT count(*) AS stored,
                coalesce(sum(deposit = 1 AND payment_id IS NOT NULL AND unmatched_reason IS NULL), 0) AS counted,
                coalesce(sum(confirmed), 0) AS confirmed
           FROM chain_transfers`,
      )
      .get();
    const forwards = db
      .prepare(
        `SELECT count(*) AS forwards, coalesce(sum(json_array_length(items)), 0) AS carried FROM forwards`,
      )
      .get();
    return { ...transfers, ...forwards };
  } finally {
    db.close();
  }
}

/**
 * The watching figures: one backlog, caught up from a copy of the same database with each count of
 * deposit addresses on file.
 */
async function watchingFigures(harness) {
  const { chain, usdc, progress, seconds, cpuMs } = harness;
  progress('deposit mode: deploying the DepositFactory, funding the sweeper…');
  const factory = await chain.deployContract(compiledContracts().DepositFactory);
  await chain.fund(SWEEPER, 10n ** 21n, { mine: true });
  const depositLive = { depositFactories: { POLYGON: factory }, sweeperKey: SWEEPER_KEY };

  const templateDir = harness.temporaryDirectory();
  const first = await harness.startServerChild(harness.liveOptions(templateDir, depositLive));
  progress(`opening ${PAID} deposit-mode checkouts through the API…`);
  const paid = [];
  for (let index = 0; index < PAID; index++) {
    const wallet = harness.wallets[index % harness.wallets.length];
    paid.push(await openDepositCheckout(harness, first, wallet, `deposit-${index}`));
  }
  await harness.scannedTo(first, await chain.head(), 30_000);
  await first.stop();

  const largest = Math.max(...ADDRESS_COUNTS) - PAID;
  progress(`computing ${largest} more deposit addresses (CREATE2, as the server does)…`);
  const made = [];
  for (let index = 0; index < largest; index++) {
    const code = madeUpCode(index);
    const merchant = harness.wallets[index % harness.wallets.length];
    const salt = checkoutSalt(code);
    made.push({
      code,
      salt,
      merchant: merchant.toLowerCase(),
      factory: factory.toLowerCase(),
      address: depositAddress({ factory, merchant, salt }).toLowerCase(),
    });
    if ((index + 1) % 20_000 === 0) progress(`  ${index + 1}/${largest} addresses`);
  }

  const transfers = UNRELATED + PAID;
  const paidAt = new Map(paid.map((checkout, each) => [Math.floor((each * transfers) / PAID), checkout]));
  const backlogFrom = await chain.head();
  progress(
    `mining the deposit backlog: ${BLOCKS} blocks, ${transfers} USDC transfers (${PAID} to deposit addresses, ${UNRELATED} to unrelated addresses)…`,
  );
  const backlogStart = performance.now();
  const reportEvery = Math.max(200, Math.ceil(transfers / 2000) * 200);
  for (let index = 0; index < transfers; index++) {
    const checkout = paidAt.get(index);
    if (checkout) await chain.transfer(usdc, checkout.address, checkout.baseUnits);
    else {
      const stranger = getAddress(keccak256(toHex(`cryptocheckout bench stranger ${index}`)).slice(0, 42));
      await chain.transfer(usdc, stranger, 1_000_000n + BigInt(index));
    }
    // Spread evenly: transfer i lands in backlog block ⌊i·BLOCKS/transfers⌋, several to a block when
    // there are more transfers than blocks; blocks without one are mined empty.
    const blockOf = (each) => Math.floor((each * BLOCKS) / transfers);
    const next = index + 1 < transfers ? blockOf(index + 1) : BLOCKS;
    if (next > blockOf(index)) await chain.mine(next - blockOf(index));
    if ((index + 1) % reportEvery === 0 || index + 1 === transfers) {
      progress(
        `  deposit backlog ${index + 1}/${transfers} transfers, ${(await chain.head()) - backlogFrom} blocks`,
      );
    }
  }
  const head = await chain.head();
  progress(`deposit backlog mined in ${seconds(performance.now() - backlogStart)} s`);

  const runs = [];
  for (const count of ADDRESS_COUNTS) {
    const dataDir = harness.temporaryDirectory();
    cpSync(templateDir, dataDir, { recursive: true });
    progress(`writing ${count - PAID} deposit addresses into a copy of the server's database…`);
    const onFile = writeForwarders(dataDir, made.slice(0, count - PAID));
    progress(`catch-up with ${onFile} deposit addresses on file…`);
    const requestsBefore = chain.requestsSeen;
    const server = await harness.startServerChild(
      harness.liveOptions(dataDir, {
        ...depositLive,
        maxBlockRange: MAX_BLOCK_RANGE,
        pollIntervalMs: harness.catchUpPollMs,
      }),
    );
    const benchCpuBefore = process.cpuUsage();
    let lastReport = performance.now();
    const health = await harness.scannedTo(server, head, 600_000, (partWay) => {
      if (performance.now() - lastReport < 2000) return;
      lastReport = performance.now();
      const at =
        partWay.scannedTo === null ? 'first range under way' : `at block ${partWay.scannedTo} of ${head}`;
      progress(`  ${at}, ${partWay.transfersSeen} transfers recorded`);
    });
    const ms = Date.now() - server.startedAt;
    const requests = chain.requestsSeen - requestsBefore;
    const benchCpu = cpuMs(process.cpuUsage(benchCpuBefore));
    const serverCpu = cpuMs(await server.cpu()) - cpuMs(server.startCpu);
    await server.stop();
    runs.push({ count: onFile, ms, requests, health, serverCpu, benchCpu, stored: storedDeposits(dataDir) });
  }

  console.log(
    `\nDeposit mode, catch-up: ${head - backlogFrom} blocks mined while the server was down, ${transfers} USDC transfers (${PAID} paying checkouts at their deposit addresses, ${UNRELATED} to unrelated addresses, ${(transfers / BLOCKS).toFixed(2)} transfers a block); maxBlockRange ${MAX_BLOCK_RANGE}, ${harness.confirmations} confirmations; timed from server start to the head.`,
  );
  console.log(
    '\n| deposit addresses | logs asked for | time s | blocks/s | RPC requests | RPC requests / block | eth_getLogs | other requests | transfers recorded | CPU s server · ganache | deposits counted · confirmed · carried by a signed forward |',
  );
  console.log('|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---|');
  for (const { count, ms, requests, health, serverCpu, benchCpu, stored } of runs) {
    const asked =
      count <= MAX_FILTERED_RECIPIENTS
        ? `by recipient (${Math.ceil(count / RECIPIENTS_PER_CALL)} call${count > RECIPIENTS_PER_CALL ? 's' : ''} a range)`
        : 'every transfer (1 call a range)';
    console.log(
      `| ${count} | ${asked} | ${seconds(ms)} | ${((health.blocksScanned * 1000) / ms).toFixed(0)} | ${requests} | ${(requests / health.blocksScanned).toFixed(2)} | ${health.logCalls} | ${requests - health.logCalls} | ${health.transfersSeen} | ${seconds(serverCpu)} · ${seconds(benchCpu)} | ${stored.counted} · ${stored.confirmed} · ${stored.carried} |`,
    );
  }
  console.log(
    `\nOther requests: the head, the block headers at the ends of each range and of every block holding a log the node returned (with every transfer asked for, each block with a transfer of the token), the chain id, and the forwarder's (token balances, gas estimate, fees, sweeper balance and nonces, sending, receipts). Transfers recorded: those to a deposit address on file. Carried: deposits in the forward signed during the catch-up; one forward is in flight at a time and the bench mines nothing meanwhile, so deposits confirmed later wait for the next one.`,
  );
}

/** A ganache of its own for the gas figures, mining each transaction as it comes. */
function gasChain() {
  const names = ['deployer', 'buyer', 'sweeper'];
  const keys = Object.fromEntries(names.map((name) => [name, keyOf(`gas ${name}`)]));
  const provider = ganache.provider({
    logging: { quiet: true },
    chain: { chainId: 137, hardfork: 'shanghai' },
    // Polygon's block gas limit; ganache's default (6.7 M) holds no 50-deposit first forward.
    miner: { blockGasLimit: 30_000_000 },
    wallet: { accounts: names.map((name) => ({ secretKey: keys[name], balance: toHex(10n ** 24n) })) },
  });
  const client = createPublicClient({ transport: custom(provider) });
  const accounts = Object.fromEntries(names.map((name) => [name, privateKeyToAccount(keys[name])]));
  const nonces = new Map();
  /**
   * Signs and sends with fixed gas and fees, the nonce counted here: viem's wallet client spends
   * about a second before each send, which made this part take minutes.
   */
  const send = async (from, transaction) => {
    const nonce = nonces.get(from.address) ?? (await client.getTransactionCount({ address: from.address }));
    nonces.set(from.address, nonce + 1);
    const signed = await from.signTransaction({
      chainId: 137,
      type: 'eip1559',
      nonce,
      maxFeePerGas: 100_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
      gas: 25_000_000n,
      value: 0n,
      ...transaction,
    });
    // Ganache mines a transaction before answering its send, so the receipt is there at once.
    const hash = await provider.request({ method: 'eth_sendRawTransaction', params: [signed] });
    const receipt = await client.getTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
    return receipt;
  };
  return {
    client,
    accounts,
    async deploy(artifact, from) {
      const data = encodeDeployData({ abi: artifact.abi, bytecode: artifact.bytecode });
      return getAddress((await send(from, { data })).contractAddress);
    },
    send(from, { address, abi, functionName, args }) {
      return send(from, { to: address, data: encodeFunctionData({ abi, functionName, args }) });
    },
    close: () => provider.disconnect(),
  };
}

/** Gas of forwardBatch, first and later forward, per token and batch size. */
async function gasFigures(harness) {
  const { progress } = harness;
  progress('forward gas: compiling TestTokens.sol, starting a ganache of its own…');
  const { DepositFactory } = compiledContracts();
  const testTokens = compileContracts(
    fileURLToPath(new URL('../packages/contracts/test/', import.meta.url)),
    ['TestTokens.sol'],
  );
  const chain = gasChain();
  const { deployer, buyer, sweeper } = chain.accounts;
  const merchant = getAddress(keccak256(toHex('cryptocheckout bench gas merchant')).slice(0, 42));
  const balanceOf = (token, holder) =>
    chain.client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [holder] });
  const rows = [];
  try {
    const factory = await chain.deploy(DepositFactory, deployer);
    const tokens = [
      { name: 'USDC-like (OpenZeppelin ERC-20)', artifact: testTokens.StandardToken },
      { name: 'USDT-like (no bool returned)', artifact: testTokens.NoBoolToken },
    ];
    const amount = 1_000_000n;
    const transfer = (token, to) =>
      chain.send(buyer, {
        address: token.address,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [to, amount],
      });
    for (const token of tokens) {
      token.address = await chain.deploy(token.artifact, buyer);
      // A merchant paid before: its balance slot is not zero (a first payment would cost 15,000 gas more).
      await transfer(token, merchant);
      // For scale: a plain transfer between two wallets that hold the token already.
      token.plainGas = (await transfer(token, merchant)).gasUsed;
      for (const size of BATCH_SIZES) {
        progress(`  ${token.name}: batch of ${size}…`);
        const items = Array.from({ length: size }, (_, index) => {
          const salt = checkoutSalt(`gas ${token.name} ${size} ${index}`);
          return {
            merchant,
            salt,
            token: token.address,
            address: depositAddress({ factory, merchant, salt }),
          };
        });
        const row = { token: token.name, size, plainGas: token.plainGas };
        for (const round of ['first', 'later']) {
          for (const item of items) await transfer(token, item.address);
          const before = await balanceOf(token.address, merchant);
          const receipt = await chain.send(sweeper, {
            address: factory,
            abi: DepositFactory.abi,
            functionName: 'forwardBatch',
            args: [
              items.map(({ merchant: wallet, salt, token: contract }) => ({
                merchant: wallet,
                salt,
                token: contract,
              })),
            ],
          });
          const failed = parseEventLogs({
            abi: DepositFactory.abi,
            logs: receipt.logs,
            eventName: 'ForwardFailed',
          });
          const moved = (await balanceOf(token.address, merchant)) - before;
          if (failed.length > 0 || moved !== amount * BigInt(size)) {
            throw new Error(`forwardBatch of ${size} ${token.name} moved ${moved}, ${failed.length} failed`);
          }
          row[round] = receipt.gasUsed;
        }
        rows.push(row);
      }
    }
  } finally {
    await chain.close();
  }

  console.log(
    `\nForward gas: DepositFactory.forwardBatch sent by the sweeper, each deposit 1 token (10^6 base units) at its own address; "first" deploys the address's forwarder clone and forwards, "later" forwards from a deployed one. Gas used as the receipt reports it (21,000 base and calldata included).`,
  );
  console.log(
    '\n| token | batch size | first forward: gas / tx | gas / checkout | later forward: gas / tx | gas / checkout | plain transfer gas |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  const perCheckout = (gas, size) => (Number(gas) / size).toFixed(0);
  for (const { token, size, first, later, plainGas } of rows) {
    console.log(
      `| ${token} | ${size} | ${first} | ${perCheckout(first, size)} | ${later} | ${perCheckout(later, size)} | ${plainGas} |`,
    );
  }
}

/**
 * Runs the deposit-mode figures on `harness` (the chain, the token and the helpers of bench/watcher.mjs)
 * and prints them.
 */
export async function depositBenchmarks(harness) {
  checkDepositKnobs();
  await watchingFigures(harness);
  await gasFigures(harness);
}
