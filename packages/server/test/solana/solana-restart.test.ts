/**
 * Solana live mode survives kill -9: the server runs as its own process (the CLI, bundled from the
 * current sources) on a data directory it keeps across restarts, watching the SVM test chain. A
 * payment seen at `confirmed` before the kill and finalized while the server is down is counted once
 * after the restart; payments made while it is down are found then.
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
import type { KeyPairSigner } from '@solana/kit';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually, startWebhookReceiver } from '../helpers.js';
import { type ServerProcess, startServerProcess } from '../server-process.js';
import {
  createStablecoinMints,
  type SolanaMints,
  solanaCheckoutBody,
  storedSolanaTransfers,
  transferRequestOf,
} from './solana-live-helpers.js';
import { type SolanaTestChain, startSolanaTestChain } from './solana-test-chain.js';

let chain: SolanaTestChain;
let mints: SolanaMints;
let buyer: KeyPairSigner;
let merchant: string;
let dataDir: string;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
const processes: ServerProcess[] = [];

beforeAll(async () => {
  chain = await startSolanaTestChain();
  mints = await createStablecoinMints(chain);
  buyer = await chain.newWallet(100_000_000_000n);
  await chain.mintTo(mints.usdc, buyer.address, 1_000_000_000_000n);
  merchant = (await chain.newWallet(1_000_000_000n)).address;
  receiver = await startWebhookReceiver();
  dataDir = mkdtempSync(join(tmpdir(), 'cryptocheckout-solana-restart-'));
});
afterAll(async () => {
  for (const process of processes) await process.stop('SIGKILL');
  await receiver?.close();
  await chain?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** The CLI in live mode watching the test chain, on the suite's data directory. */
async function startLive(): Promise<ServerProcess> {
  const started = await startServerProcess([
    ...['--mode', 'live', '--data-dir', dataDir],
    // A chain suite: fixed prices, asked for twice (docs/rates.md).
    ...['--rates', 'static', '--i-know-prices-are-fixed'],
    ...['--rpc-url', `SOLANA=${chain.rpcUrl}`],
    ...['--token', `SOLANA:USDC=${mints.usdc}`, '--token', `SOLANA:USDT=${mints.usdt}`],
    ...['--poll-interval-ms', '25', '--allow-private-webhooks'],
  ]);
  processes.push(started);
  return started;
}

interface Opened {
  code: string;
  link: CryptoPaymentLink;
  reference: string;
}

async function open(server: ServerProcess, externalReference: string): Promise<Opened> {
  const client = createCheckoutClient({ baseUrl: server.apiBase });
  const created = await client.createCheckout(
    solanaCheckoutBody(merchant, 'USDC', {
      external_reference: externalReference,
      webhook_url: receiver.url,
    }),
  );
  const link = (await client.getPaymentLink({
    transaction_code: created.transaction_code,
    payment_method: 'usdc_solana',
  })) as CryptoPaymentLink;
  return { code: created.transaction_code, link, reference: transferRequestOf(link).reference };
}

/** Pays the whole checkout in USDC with its reference, as a Solana Pay wallet does. */
const pay = (checkout: Opened) =>
  chain.payToken({
    payer: buyer,
    recipient: merchant,
    mint: mints.usdc,
    amount: decimalToScaled(checkout.link.amount, 6),
    references: [checkout.reference],
  });

function waitForStatus(server: ServerProcess, code: string, status: string): Promise<Transaction> {
  const client = createCheckoutClient({ baseUrl: server.apiBase });
  return eventually(async () => {
    const transaction = await client.getTransaction(code);
    expect(transaction.status).toBe(status);
    return transaction;
  });
}

async function rpcCalls(server: ServerProcess): Promise<number> {
  const body = (await (await fetch(`${server.apiBase}/health`)).json()) as {
    data: { networks: { SOLANA: { rpcCalls: number } } };
  };
  return body.data.networks.SOLANA.rpcCalls;
}

const settledWebhooksOf = (code: string) =>
  receiver.received
    .map((webhook) => JSON.parse(webhook.body) as { transaction_code: string; event: string })
    .filter((body) => body.transaction_code === code);

/** The webhook deliveries the server queued per checkout (read-only, from its SQLite file). */
function outboxRows(): Array<{ transaction_code: string; state: string }> {
  const db = new Database(join(dataDir, 'cryptocheckout.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT transaction_code, state FROM webhook_outbox').all() as Array<{
      transaction_code: string;
      state: string;
    }>;
  } finally {
    db.close();
  }
}

it('settles once after kill -9 between seen and finalized, and finds the payments made while it was down', async () => {
  let server = await startLive();
  // seen: paid and seen at confirmed before the kill, finalized while the server is down.
  const seen = await open(server, 'restart-seen');
  // downFinal: paid while the server is down and finalized before it is back.
  const downFinal = await open(server, 'restart-down-final');
  // downConfirmed: paid while the server is down, still only confirmed when it is back.
  const downConfirmed = await open(server, 'restart-down-confirmed');
  // unpaid: keeps the merchant's wallet watched, and must stay untouched by the others' payments.
  const unpaid = await open(server, 'restart-unpaid');

  const seenSignature = await pay(seen);
  const processing = await waitForStatus(server, seen.code, 'processing');
  expect(processing.received_usd).toBe(0);
  expect(storedSolanaTransfers(dataDir).filter((row) => row.tx_hash === seenSignature)).toMatchObject([
    { transaction_code: seen.code, confirmed: 0 },
  ]);
  await server.stop('SIGKILL');

  chain.finalize();
  const downFinalSignature = await pay(downFinal);
  chain.finalize();
  const downConfirmedSignature = await pay(downConfirmed);

  server = await startLive();
  const settled = await waitForStatus(server, seen.code, 'settled');
  expect(settled.payments.map((payment) => payment.tx_id)).toEqual([seenSignature]);
  expect(settled.received_usd).toBe(settled.amount_in_usd);
  const foundSettled = await waitForStatus(server, downFinal.code, 'settled');
  expect(foundSettled.payments.map((payment) => payment.tx_id)).toEqual([downFinalSignature]);
  expect(foundSettled.received_usd).toBe(foundSettled.amount_in_usd);
  // Seen for the first time after the restart, at confirmed: processing until the cluster finalizes it.
  const foundProcessing = await waitForStatus(server, downConfirmed.code, 'processing');
  expect(foundProcessing.received_usd).toBe(0);
  chain.finalize();
  const lateSettled = await waitForStatus(server, downConfirmed.code, 'settled');
  expect(lateSettled.payments.map((payment) => payment.tx_id)).toEqual([downConfirmedSignature]);

  const paid = [seen, downFinal, downConfirmed];
  await eventually(() => {
    for (const { code } of paid) expect(settledWebhooksOf(code)).toHaveLength(1);
  });
  // Let the restarted watcher pass over the same signatures several more times: nothing changes.
  const calls = await rpcCalls(server);
  await eventually(async () => expect(await rpcCalls(server)).toBeGreaterThan(calls + 20));
  const client = createCheckoutClient({ baseUrl: server.apiBase });
  for (const { code } of paid) {
    const transaction = await client.getTransaction(code);
    expect(transaction.status).toBe('settled');
    expect(transaction.payments).toHaveLength(1);
    expect(transaction.received_usd).toBe(transaction.amount_in_usd);
  }
  const untouched = await client.getTransaction(unpaid.code);
  expect(untouched).toMatchObject({ status: 'pending', received_usd: 0, payments: [] });
  for (const { code } of paid) {
    expect(settledWebhooksOf(code)).toMatchObject([{ event: 'transaction.settled' }]);
  }
  // One delivery queued per paid checkout across both runs, marked delivered once the receiver answered.
  await eventually(() => {
    const deliveries = outboxRows();
    for (const { code } of paid) {
      expect(deliveries.filter((row) => row.transaction_code === code)).toEqual([
        { transaction_code: code, state: 'delivered' },
      ]);
    }
    expect(deliveries.some((row) => row.transaction_code === unpaid.code)).toBe(false);
  });
  await server.stop();

  // What the data directory holds: one counted, final row per signature.
  const signatures = [seenSignature, downFinalSignature, downConfirmedSignature];
  const rows = storedSolanaTransfers(dataDir).filter((row) => signatures.includes(row.tx_hash));
  expect(rows.map((row) => row.tx_hash).sort()).toEqual([...signatures].sort());
  for (const [index, signature] of signatures.entries()) {
    expect(rows.find((row) => row.tx_hash === signature)).toMatchObject({
      transaction_code: paid[index]!.code,
      confirmed: 1,
      unmatched_reason: null,
      payment_id: expect.any(String),
    });
  }
});
