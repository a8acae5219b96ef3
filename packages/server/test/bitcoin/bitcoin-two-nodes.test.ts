/**
 * Two server nodes on one PostgreSQL database, both watching the same loopback Bitcoin Core node
 * (docs/bitcoin.md "several server nodes"): checkouts opened on both at once never share an address
 * (table `bitcoin_wallets` hands each index out once), every paying output is recorded and counted
 * once, each checkout settles once with one webhook, and a reorganisation seen by both leaves one
 * consistent result.
 */
import { decimalToScaled, type Transaction } from '@cryptocheckout/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressOfScript, parseBitcoinReceiver } from '../../src/rails/bitcoin/bitcoin-keys.js';
import { eventually, startTestServer, startWebhookReceiver, type TestServer } from '../helpers.js';
import { findPostgresBin, startPostgresCluster } from '../postgres-cluster.js';
import {
  bitcoinHealth,
  bitcoinLiveOptions,
  cents,
  MERCHANT_ZPUB,
  openBitcoinCheckout,
} from './bitcoin-live-helpers.js';
import {
  type BitcoinTestNode,
  type Buyer,
  type PaymentOutput,
  startBitcoinTestNode,
} from './bitcoin-test-node.js';

const postgresBin = findPostgresBin();
if (!postgresBin && process.env.CI) {
  throw new Error('CI must test PostgreSQL: install the postgresql package (.ci/run does).');
}

/** Checkouts opened at once, alternately on both nodes. */
const CHECKOUTS = 20;
/** Outputs per paying transaction: several checkouts paid by one transaction. */
const OUTPUTS_PER_TRANSACTION = 4;

interface Checkout {
  code: string;
  address: string;
  sats: bigint;
  /** The node that created it; the other one is asked about it. */
  node: TestServer;
  /** `txid:output` of every output that paid it. */
  outputs: string[];
  /** Sats sent to it, all outputs together. */
  sent: bigint;
}

describe.skipIf(!postgresBin)('Bitcoin live mode, two nodes on PostgreSQL', () => {
  let cluster: Awaited<ReturnType<typeof startPostgresCluster>>;
  let chain: BitcoinTestNode;
  let buyer: Buyer;
  let reorgBuyer: Buyer;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  const nodes: TestServer[] = [];

  beforeAll(async () => {
    cluster = await startPostgresCluster(postgresBin!);
    chain = await startBitcoinTestNode();
    buyer = chain.newBuyer(100_000_000_000n);
    // Pays the checkout whose payment a reorganisation drops: no other payment spends its change.
    reorgBuyer = chain.newBuyer(10_000_000_000n);
    receiver = await startWebhookReceiver();
    const options = {
      ...bitcoinLiveOptions(chain, { bitcoinConfirmations: 2, bitcoinGapLimit: 100 }),
      databaseUrl: cluster.connectionString,
    };
    nodes.push(await startTestServer(options));
    nodes.push(await startTestServer(options));
  });
  afterAll(async () => {
    for (const node of nodes) await node.dispose();
    await receiver?.close();
    await chain?.close();
    cluster?.stop();
  });

  async function query<T>(sql: string, values: unknown[] = []): Promise<T[]> {
    const pg = (await import('pg')).default;
    const database = new pg.Client({ connectionString: cluster.connectionString });
    await database.connect();
    try {
      return (await database.query(sql, values)).rows as T[];
    } finally {
      await database.end();
    }
  }

  const otherNode = (checkout: Checkout) => (checkout.node === nodes[0] ? nodes[1]! : nodes[0]!);

  const statusOn = (node: TestServer, checkout: Checkout, status: string) =>
    eventually(async () => {
      const transaction = await node.client.getTransaction(checkout.code);
      expect(transaction.status, checkout.code).toBe(status);
      return transaction;
    });

  /** Waits until both nodes say `status`; returns what the node that did not create it says. */
  async function statusOnBoth(checkout: Checkout, status: string): Promise<Transaction> {
    await statusOn(checkout.node, checkout, status);
    return statusOn(otherNode(checkout), checkout, status);
  }

  /** Pays `outputs` in one transaction from `payer`; records each output on its checkout. */
  function pay(payer: Buyer, outputs: Array<{ checkout: Checkout; sats: bigint }>): string {
    const paid: PaymentOutput[] = outputs.map(({ checkout, sats }) => ({ address: checkout.address, sats }));
    const { txid } = chain.pay(payer, paid);
    for (const [index, { checkout, sats }] of outputs.entries()) {
      checkout.outputs.push(`${txid}:${index}`);
      checkout.sent += sats;
    }
    return txid;
  }

  async function open(index: number, node: TestServer): Promise<Checkout> {
    const opened = await openBitcoinCheckout(node, MERCHANT_ZPUB, {
      external_reference: `btc-two-nodes-${index}`,
      fiat_amount: `${20 + index}.00`,
      webhook_url: receiver.url,
    });
    return {
      code: opened.code,
      address: opened.link.address,
      sats: opened.sats,
      node,
      outputs: [],
      sent: 0n,
    };
  }

  /** The BIP84 receive address `index` of the merchant's key, as encoded on regtest. */
  const derived = (index: number) => {
    const key = parseBitcoinReceiver(MERCHANT_ZPUB);
    if (key.kind !== 'extended_key') throw new Error('not a key');
    return addressOfScript(key.scriptAt(index), 'regtest');
  };

  const webhookCodes = () =>
    receiver.received.map(
      (webhook) => (JSON.parse(webhook.body) as { transaction_code: string }).transaction_code,
    );

  /** Waits until both nodes polled the node `count` more times each. */
  async function morePolls(count: number): Promise<void> {
    const before = await Promise.all(nodes.map(async (node) => (await bitcoinHealth(node)).rpcCalls));
    await eventually(async () => {
      for (const [index, node] of nodes.entries()) {
        expect((await bitcoinHealth(node)).rpcCalls).toBeGreaterThan(before[index]! + 2 * count);
      }
    });
  }

  it('hands out distinct addresses, counts every output once, settles each checkout once, and agrees after a reorganisation', async () => {
    // Twenty checkouts opened at the same time, alternately on both nodes.
    const checkouts = await Promise.all(
      Array.from({ length: CHECKOUTS }, (_, index) => open(index, nodes[index % 2]!)),
    );
    const addresses = checkouts.map((checkout) => checkout.address);
    expect(new Set(addresses).size).toBe(CHECKOUTS);
    // Indices 0–19, each handed out once, whichever node asked: the key's first twenty addresses.
    expect([...addresses].sort()).toEqual(
      Array.from({ length: CHECKOUTS }, (_, index) => derived(index)).sort(),
    );
    const scripts = await query<{ address: string; derivation_index: number; transaction_code: string }>(
      'SELECT address, derivation_index, transaction_code FROM bitcoin_scripts ORDER BY derivation_index',
    );
    expect(scripts.map((row) => row.derivation_index)).toEqual(
      Array.from({ length: CHECKOUTS }, (_, index) => index),
    );
    for (const row of scripts) {
      expect(row.address).toBe(derived(row.derivation_index));
      expect(checkouts.find((checkout) => checkout.address === row.address)?.code).toBe(row.transaction_code);
    }
    expect(await query('SELECT next_index FROM bitcoin_wallets')).toEqual([{ next_index: CHECKOUTS }]);

    // Paid four to a transaction, back to back while both nodes poll; the first checkout by two
    // outputs of one transaction (two payments of the same transaction). Each payment's USD value is
    // rounded down to the cent, so two parts of exactly the amount asked can fall a cent short: the
    // second part pays 1000 sats more.
    const first = checkouts[0]!;
    pay(buyer, [
      { checkout: first, sats: first.sats / 2n },
      { checkout: first, sats: first.sats - first.sats / 2n + 1_000n },
      ...checkouts.slice(1, OUTPUTS_PER_TRANSACTION).map((checkout) => ({ checkout, sats: checkout.sats })),
    ]);
    for (let start = OUTPUTS_PER_TRANSACTION; start < CHECKOUTS; start += OUTPUTS_PER_TRANSACTION) {
      pay(
        buyer,
        checkouts
          .slice(start, start + OUTPUTS_PER_TRANSACTION)
          .map((checkout) => ({ checkout, sats: checkout.sats })),
      );
    }
    for (const checkout of checkouts) await statusOnBoth(checkout, 'processing');
    chain.mine(2);
    for (const checkout of checkouts) {
      const settled = await statusOnBoth(checkout, 'settled');
      expect(cents(settled.received_usd)).toBeGreaterThanOrEqual(cents(settled.amount_in_usd));
      expect(settled.payments).toHaveLength(checkout.outputs.length);
      const paid = settled.payments.reduce((sum, payment) => sum + decimalToScaled(payment.amount, 8), 0n);
      expect(paid).toBe(checkout.sent);
      expect(checkout.sent).toBeGreaterThanOrEqual(checkout.sats);
    }

    // A reorganisation: two payments mined in one block; the new branch mines one again, drops the other.
    const kept = await open(CHECKOUTS, nodes[0]!);
    const dropped = await open(CHECKOUTS + 1, nodes[1]!);
    const keptTxid = pay(buyer, [{ checkout: kept, sats: kept.sats }]);
    const droppedTxid = pay(reorgBuyer, [{ checkout: dropped, sats: dropped.sats }]);
    chain.mine(1);
    await eventually(async () => {
      const mined = await query<{ tx_hash: string; block_number: string }>(
        "SELECT tx_hash, block_number FROM chain_transfers WHERE network = 'BITCOIN' AND tx_hash IN ($1, $2)",
        [keptTxid, droppedTxid],
      );
      expect(mined.map((row) => [row.tx_hash, Number(row.block_number)]).sort()).toEqual(
        [
          [keptTxid, chain.tipHeight()],
          [droppedTxid, chain.tipHeight()],
        ].sort(),
      );
    });
    for (const checkout of [kept, dropped]) await statusOnBoth(checkout, 'processing');
    const reorganisationsBefore = await Promise.all(
      nodes.map(async (node) => (await bitcoinHealth(node)).reorganisations),
    );
    chain.reorg(1, { newBlocks: 2, includeInNewBranch: [keptTxid], dropTransactions: [droppedTxid] });
    expect(chain.mempool()).toEqual([]);
    const keptSettled = await statusOnBoth(kept, 'settled');
    expect(keptSettled.payments.map((payment) => payment.tx_id)).toEqual([keptTxid]);
    const back = await statusOnBoth(dropped, 'pending');
    expect(back).toMatchObject({ received_usd: 0, payments: [] });
    // At least one node saw the fork; the other found the shared record already moved to the new branch.
    const reorganisationsAfter = await Promise.all(
      nodes.map(async (node) => (await bitcoinHealth(node)).reorganisations),
    );
    expect(
      reorganisationsAfter.reduce((sum, count, index) => sum + count - reorganisationsBefore[index]!, 0),
    ).toBeGreaterThanOrEqual(1);

    const settledCheckouts = [...checkouts, kept];
    const codes = settledCheckouts.map((checkout) => checkout.code).sort();
    await eventually(() => expect(webhookCodes().sort()).toEqual(codes));

    // Both nodes keep passing over the same blocks and mempool for a while: nothing more may happen.
    await morePolls(20);
    expect(webhookCodes().sort()).toEqual(codes);
    for (const checkout of settledCheckouts) {
      for (const node of nodes) {
        const transaction = await node.client.getTransaction(checkout.code);
        expect(transaction.status).toBe('settled');
        expect(transaction.payments).toHaveLength(checkout.outputs.length);
      }
    }
    for (const node of nodes) {
      expect(await node.client.getTransaction(dropped.code)).toMatchObject({
        status: 'pending',
        payments: [],
      });
      expect((await bitcoinHealth(node)).lastError).toBeNull();
    }

    // The shared database: one counted, final row per paying output (none for the dropped payment),
    // one payment per row, one step to settled and one delivery per checkout.
    const outputs = settledCheckouts.flatMap((checkout) => checkout.outputs);
    expect(new Set(outputs).size).toBe(CHECKOUTS + 2);
    const transfers = await query<{
      tx_hash: string;
      log_index: number;
      transaction_code: string;
      payment_id: string | null;
      unmatched_reason: string | null;
      confirmed: number;
    }>(
      "SELECT tx_hash, log_index, transaction_code, payment_id, unmatched_reason, confirmed FROM chain_transfers WHERE network = 'BITCOIN'",
    );
    expect(transfers.map((row) => `${row.tx_hash}:${row.log_index}`).sort()).toEqual([...outputs].sort());
    for (const checkout of settledCheckouts) {
      for (const output of checkout.outputs) {
        expect(transfers.find((row) => `${row.tx_hash}:${row.log_index}` === output)).toMatchObject({
          transaction_code: checkout.code,
          payment_id: expect.any(String),
          unmatched_reason: null,
          confirmed: 1,
        });
      }
    }
    const payments = await query<{ payment_id: string; transaction_code: string; tx_id: string }>(
      'SELECT payment_id, transaction_code, tx_id FROM payments',
    );
    expect(payments).toHaveLength(outputs.length);
    expect(payments.map((row) => row.payment_id).sort()).toEqual(
      transfers.map((row) => row.payment_id!).sort(),
    );
    expect(payments.some((row) => row.tx_id === droppedTxid)).toBe(false);
    const settledSteps = await query<{ transaction_code: string }>(
      "SELECT transaction_code FROM transaction_events WHERE to_status = 'settled'",
    );
    expect(settledSteps.map((row) => row.transaction_code).sort()).toEqual(codes);
    await eventually(async () => {
      const deliveries = await query<{ transaction_code: string; state: string }>(
        'SELECT transaction_code, state FROM webhook_outbox',
      );
      expect(deliveries.map((row) => row.transaction_code).sort()).toEqual(codes);
      expect(deliveries.every((row) => row.state === 'delivered')).toBe(true);
    });
    const indices = await query<{ derivation_index: number }>(
      'SELECT derivation_index FROM bitcoin_scripts ORDER BY derivation_index',
    );
    expect(indices.map((row) => row.derivation_index)).toEqual(
      Array.from({ length: CHECKOUTS + 2 }, (_, index) => index),
    );
  });
});
