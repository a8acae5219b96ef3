/**
 * Two server nodes on one PostgreSQL database in deposit mode, with the same sweeper key: both
 * watch and record, one at a time sends forwards, and every deposit reaches the merchant once.
 */
import { type CryptoPaymentLink, decimalToScaled } from '@cryptocheckout/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_DEADLINE_MS, eventually, startTestServer, type TestServer } from '../helpers.js';
import { OPERATOR_TOKEN, operatorRequest } from '../operator-helpers.js';
import { findPostgresBin, startPostgresCluster } from '../postgres-cluster.js';
import { deployFactory, depositOptions, sweeperOf } from './deposit-helpers.js';
import { liveCheckoutBody, MERCHANT_WALLET } from './live-helpers.js';
import { type LocalChain, startLocalChain } from './local-chain.js';

const postgresBin = findPostgresBin();
if (!postgresBin && process.env.CI) {
  throw new Error('CI must test PostgreSQL: install the postgresql package (.ci/run does).');
}

describe.skipIf(!postgresBin)('deposit mode, two nodes on PostgreSQL', () => {
  let cluster: Awaited<ReturnType<typeof startPostgresCluster>>;
  let chain: LocalChain;
  let usdc: `0x${string}`;
  const nodes: TestServer[] = [];
  const sweeper = sweeperOf('deposit two nodes');

  beforeAll(async () => {
    cluster = await startPostgresCluster(postgresBin!);
    chain = await startLocalChain();
    usdc = await chain.deployToken('USDC', 6);
    const factory = await deployFactory(chain);
    await chain.fund(sweeper.address, 10n ** 18n, { mine: true });
    const options = {
      operatorToken: OPERATOR_TOKEN,
      databaseUrl: cluster.connectionString,
      ...depositOptions(chain, { 'POLYGON:USDC': usdc }, factory, sweeper.key, 2, { batchSize: 2 }),
    };
    nodes.push(await startTestServer(options));
    nodes.push(await startTestServer(options));
  });
  afterAll(async () => {
    for (const node of nodes) await node.dispose();
    await chain?.close();
    cluster?.stop();
  });

  it('forwards each deposit once, with one node sending at a time', async () => {
    const merchantBefore = await chain.tokenBalance(usdc, MERCHANT_WALLET);
    const checkouts: Array<{ code: string; amount: bigint }> = [];
    for (let index = 0; index < 6; index++) {
      const node = nodes[index % 2]!;
      const created = await node.client.createCheckout(
        liveCheckoutBody({ external_reference: `two-nodes-${index}`, fiat_amount: `${20 + index}.00` }),
      );
      const link = (await node.client.getPaymentLink({
        transaction_code: created.transaction_code,
        payment_method: 'usdc_polygon',
      })) as CryptoPaymentLink;
      const amount = decimalToScaled(link.amount, 6);
      // Part of the deposits arrive in the same block, the rest one block apart.
      await chain.transfer(usdc, link.address as `0x${string}`, amount, { mine: index % 2 === 1 });
      checkouts.push({ code: created.transaction_code, amount });
    }
    const total = checkouts.reduce((sum, checkout) => sum + checkout.amount, 0n);
    const forwardHashes = await eventually(async () => {
      await chain.mine(1);
      const hashes = new Set<string>();
      for (const [index, { code }] of checkouts.entries()) {
        const detail = (await operatorRequest(nodes[(index + 1) % 2]!, `/transactions/${code}`)).json.data;
        expect(detail.transaction).toMatchObject({ status: 'settled', payout_dispatched: true });
        expect(detail.chain_transfers).toHaveLength(1);
        expect(detail.chain_transfers[0].forward.state).toBe('confirmed');
        hashes.add(detail.chain_transfers[0].forward.tx_hash);
      }
      return hashes;
    }, EVENT_DEADLINE_MS);
    expect(await chain.tokenBalance(usdc, MERCHANT_WALLET)).toBe(merchantBefore + total);
    // The forwards as stored: one per sweeper nonce, 0, 1, 2, … with none failed (two nodes sending
    // at once would reuse a nonce), and each deposit carried by exactly one of them.
    const pg = (await import('pg')).default;
    const database = new pg.Client({ connectionString: cluster.connectionString });
    await database.connect();
    const forwards = (
      await database.query<{ nonce: string; state: string; tx_hash: string; items: string }>(
        'SELECT nonce, state, tx_hash, items FROM forwards ORDER BY nonce',
      )
    ).rows;
    await database.end();
    expect(forwards.map((forward) => Number(forward.nonce))).toEqual(forwards.map((_, index) => index));
    expect(forwards.every((forward) => forward.state === 'confirmed')).toBe(true);
    expect(new Set(forwards.map((forward) => forward.tx_hash))).toEqual(forwardHashes);
    const carried = forwards.flatMap((forward) =>
      (JSON.parse(forward.items) as Array<{ transfers: Array<{ transactionCode: string }> }>).flatMap(
        (item) => item.transfers.map((transfer) => transfer.transactionCode),
      ),
    );
    expect(carried.sort()).toEqual(checkouts.map((checkout) => checkout.code).sort());
    const sending = await Promise.all(
      nodes.map(async (node) => {
        const health = (await (await fetch(`${node.url}/api/health`)).json()) as {
          data: { networks: { POLYGON: { forwarding: { sending: boolean } } } };
        };
        return health.data.networks.POLYGON.forwarding.sending;
      }),
    );
    expect(sending.filter(Boolean)).toHaveLength(1);
  });
});
