/**
 * Two server nodes on one PostgreSQL database, both watching the same Solana test chain at the same
 * time: each finds every transfer, but a transfer is recorded and counted once, each checkout settles
 * once and one webhook goes out per checkout.
 */
import { type CryptoPaymentLink, decimalToScaled } from '@cryptocheckout/core';
import type { KeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestServer, startWebhookReceiver, type TestServer } from '../helpers.js';
import { findPostgresBin, startPostgresCluster } from '../postgres-cluster.js';
import {
  createStablecoinMints,
  openSolanaCheckout,
  type SolanaMints,
  solanaHealth,
  solanaLiveOptions,
} from './solana-live-helpers.js';
import { type SolanaTestChain, startSolanaTestChain } from './solana-test-chain.js';

const postgresBin = findPostgresBin();
if (!postgresBin && process.env.CI) {
  throw new Error('CI must test PostgreSQL: install the postgresql package (.ci/run does).');
}

/** How a checkout is paid: at once; half, then the rest once the half is final; two halves before either is final. */
type Plan = 'whole' | 'part-then-top-up' | 'two-halves';

interface Checkout {
  code: string;
  asset: 'USDC' | 'USDT' | 'SOL';
  merchant: string;
  plan: Plan;
  link: CryptoPaymentLink;
  reference: string;
  /** The node that created it; the other one is asked about it. */
  node: TestServer;
  signatures: string[];
  /** Base units sent, all payments together. */
  sent: bigint;
}

describe.skipIf(!postgresBin)('Solana live mode, two nodes on PostgreSQL', () => {
  let cluster: Awaited<ReturnType<typeof startPostgresCluster>>;
  let chain: SolanaTestChain;
  let mints: SolanaMints;
  let buyer: KeyPairSigner;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  const nodes: TestServer[] = [];

  beforeAll(async () => {
    cluster = await startPostgresCluster(postgresBin!);
    chain = await startSolanaTestChain();
    mints = await createStablecoinMints(chain);
    buyer = await chain.newWallet(100_000_000_000n);
    await chain.mintTo(mints.usdc, buyer.address, 1_000_000_000_000n);
    await chain.mintTo(mints.usdt, buyer.address, 1_000_000_000_000n);
    receiver = await startWebhookReceiver();
    const options = { ...solanaLiveOptions(chain, mints), databaseUrl: cluster.connectionString };
    nodes.push(await startTestServer(options));
    nodes.push(await startTestServer(options));
  });
  afterAll(async () => {
    for (const node of nodes) await node.dispose();
    await receiver?.close();
    await chain?.stop();
    cluster?.stop();
  });

  const decimalsOf = (asset: Checkout['asset']) => (asset === 'SOL' ? 9 : 6);

  /** Pays `amount` base units of the checkout's asset with its reference. */
  async function pay(checkout: Checkout, amount: bigint): Promise<void> {
    const common = { payer: buyer, recipient: checkout.merchant, references: [checkout.reference] };
    const signature =
      checkout.asset === 'SOL'
        ? await chain.paySol({ ...common, lamports: amount })
        : await chain.payToken({
            ...common,
            mint: checkout.asset === 'USDC' ? mints.usdc : mints.usdt,
            amount,
          });
    checkout.signatures.push(signature);
    checkout.sent += amount;
  }

  const otherNode = (checkout: Checkout) => (checkout.node === nodes[0] ? nodes[1]! : nodes[0]!);

  const waitFor = (checkout: Checkout, status: string) =>
    eventually(async () => {
      const transaction = await otherNode(checkout).client.getTransaction(checkout.code);
      expect(transaction.status, `${checkout.asset} paid ${checkout.plan}`).toBe(status);
      return transaction;
    });

  const webhookCodes = () =>
    receiver.received.map(
      (webhook) => (JSON.parse(webhook.body) as { transaction_code: string }).transaction_code,
    );

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

  it('counts every payment once and settles each checkout once, with one webhook each', async () => {
    const merchants = [
      (await chain.newWallet(1_000_000_000n)).address,
      (await chain.newWallet(1_000_000_000n)).address,
    ];
    const plans: Array<[Checkout['asset'], Plan]> = [
      ['USDC', 'whole'],
      ['USDC', 'part-then-top-up'],
      ['USDC', 'two-halves'],
      ['USDT', 'whole'],
      ['USDC', 'part-then-top-up'],
      ['SOL', 'whole'],
      ['USDT', 'part-then-top-up'],
      ['USDC', 'two-halves'],
    ];
    const checkouts: Checkout[] = [];
    for (const [index, [asset, plan]] of plans.entries()) {
      const node = nodes[index % 2]!;
      // A SOL merchant is paid in SOL only: its own wallet.
      const merchant =
        asset === 'SOL'
          ? (await chain.newWallet(1_000_000_000n)).address
          : merchants[Math.floor(index / 2) % 2]!;
      const opened = await openSolanaCheckout(node, merchant, asset, {
        external_reference: `two-nodes-${index}`,
        fiat_amount: `${20 + index}.00`,
        webhook_url: receiver.url,
      });
      checkouts.push({
        code: opened.code,
        asset,
        merchant,
        plan,
        link: opened.link,
        reference: opened.request.reference,
        node,
        signatures: [],
        sent: 0n,
      });
    }
    // Keeps both merchants' wallets watched to the end, and must stay untouched.
    const unpaid = await Promise.all(
      merchants.map((merchant, index) =>
        openSolanaCheckout(nodes[index]!, merchant, 'USDC', {
          external_reference: `two-nodes-unpaid-${index}`,
        }),
      ),
    );

    // Everything but the top-ups, back to back while both nodes poll; then the cluster finalizes it.
    for (const checkout of checkouts) {
      const due = decimalToScaled(checkout.link.amount, decimalsOf(checkout.asset));
      if (checkout.plan === 'whole') await pay(checkout, due);
      else if (checkout.plan === 'part-then-top-up') await pay(checkout, due / 2n);
      else {
        await pay(checkout, due / 2n);
        await pay(checkout, due - due / 2n);
      }
    }
    chain.finalize();
    for (const checkout of checkouts) {
      await waitFor(checkout, checkout.plan === 'part-then-top-up' ? 'underpaid' : 'settled');
    }

    // The top-ups, for what the other node says is still due, with the same reference.
    for (const checkout of checkouts.filter((each) => each.plan === 'part-then-top-up')) {
      const rest = (await otherNode(checkout).client.getPaymentLink({
        transaction_code: checkout.code,
        payment_method: `${checkout.asset.toLowerCase()}_solana`,
      })) as CryptoPaymentLink;
      expect(rest.uri).toContain(`reference=${checkout.reference}`);
      const due = decimalToScaled(rest.amount, decimalsOf(checkout.asset));
      // What is still due covers the rest of the price: the half already paid counted once, not twice.
      expect(due + checkout.sent).toBeGreaterThanOrEqual(
        decimalToScaled(checkout.link.amount, decimalsOf(checkout.asset)),
      );
      await pay(checkout, due);
    }
    chain.finalize();
    for (const checkout of checkouts) {
      const settled = await waitFor(checkout, 'settled');
      expect(decimalToScaled(settled.received_usd.toFixed(2), 2)).toBeGreaterThanOrEqual(
        decimalToScaled(settled.amount_in_usd.toFixed(2), 2),
      );
      expect(settled.payments.map((payment) => payment.tx_id).sort()).toEqual(
        [...checkout.signatures].sort(),
      );
      const paid = settled.payments.reduce(
        (sum, payment) => sum + decimalToScaled(payment.amount, decimalsOf(checkout.asset)),
        0n,
      );
      expect(paid).toBe(checkout.sent);
      expect(checkout.sent).toBeGreaterThanOrEqual(
        decimalToScaled(checkout.link.amount, decimalsOf(checkout.asset)),
      );
    }
    const codes = checkouts.map((checkout) => checkout.code).sort();
    await eventually(() => expect(webhookCodes().sort()).toEqual(codes));

    // Both nodes keep passing over the same signatures for a while: nothing more may happen.
    const callsBefore = await Promise.all(nodes.map(async (node) => (await solanaHealth(node)).rpcCalls));
    await eventually(async () => {
      for (const [index, node] of nodes.entries()) {
        const health = await solanaHealth(node);
        expect(health.walletsWatched).toBeGreaterThanOrEqual(2);
        expect(health.rpcCalls).toBeGreaterThan(callsBefore[index]! + 20);
      }
    });
    expect(webhookCodes().sort()).toEqual(codes);
    for (const checkout of checkouts) {
      for (const node of nodes) {
        const transaction = await node.client.getTransaction(checkout.code);
        expect(transaction.status).toBe('settled');
        expect(transaction.payments).toHaveLength(checkout.signatures.length);
      }
    }
    for (const { code } of unpaid) {
      expect(await nodes[0]!.client.getTransaction(code)).toMatchObject({ status: 'pending', payments: [] });
    }

    // The shared database: one counted, final row per signature; one payment per row; one delivery per checkout.
    const signatures = checkouts.flatMap((checkout) => checkout.signatures);
    expect(new Set(signatures).size).toBe(signatures.length);
    const transfers = await query<{
      tx_hash: string;
      transaction_code: string;
      payment_id: string | null;
      confirmed: number;
    }>(
      "SELECT tx_hash, transaction_code, payment_id, confirmed FROM chain_transfers WHERE network = 'SOLANA'",
    );
    expect(transfers.map((row) => row.tx_hash).sort()).toEqual([...signatures].sort());
    for (const checkout of checkouts) {
      for (const signature of checkout.signatures) {
        expect(transfers.find((row) => row.tx_hash === signature)).toMatchObject({
          transaction_code: checkout.code,
          payment_id: expect.any(String),
          confirmed: 1,
        });
      }
    }
    const payments = await query<{ transaction_code: string }>('SELECT transaction_code FROM payments');
    expect(payments).toHaveLength(signatures.length);
    expect(new Set(transfers.map((row) => row.payment_id)).size).toBe(signatures.length);
    // Each checkout's one delivery, marked delivered once the receiver answered.
    await eventually(async () => {
      const deliveries = await query<{ transaction_code: string; state: string }>(
        'SELECT transaction_code, state FROM webhook_outbox',
      );
      expect(deliveries.map((row) => row.transaction_code).sort()).toEqual(codes);
      expect(deliveries.every((row) => row.state === 'delivered')).toBe(true);
    });
  });
});
