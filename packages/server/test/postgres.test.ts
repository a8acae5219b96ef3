import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutBody, startTestServer, startWebhookReceiver, type TestServer } from './helpers.js';
import { findPostgresBin, startPostgresCluster } from './postgres-cluster.js';

const bin = findPostgresBin();
if (!bin && process.env.CI)
  throw new Error('CI must test PostgreSQL: install the postgresql package (.ci/run does).');

describe.skipIf(!bin)('PostgreSQL storage (the same query layer as SQLite)', () => {
  let cluster: Awaited<ReturnType<typeof startPostgresCluster>>;
  beforeAll(async () => {
    cluster = await startPostgresCluster(bin!);
  }, 60_000);
  afterAll(() => cluster?.stop());

  it('runs the lifecycle on two server nodes sharing one database, settling once', async () => {
    const receiver = await startWebhookReceiver();
    const nodes: TestServer[] = [];
    try {
      nodes.push(await startTestServer({ databaseUrl: cluster.connectionString }));
      nodes.push(await startTestServer({ databaseUrl: cluster.connectionString }));
      const [first, second] = nodes as [TestServer, TestServer];
      const created = await first.client.createCheckout(checkoutBody({ webhook_url: receiver.url }));
      expect((await second.client.getTransaction(created.transaction_code)).status).toBe('pending');
      const partial = await second.post('/api/sandbox/pay', {
        transaction_code: created.transaction_code,
        payment_method: 'usdt_tron',
        size: 'partial',
      });
      expect(partial.json.data.status).toBe('underpaid');
      await Promise.all([
        first.post('/api/sandbox/pay', {
          transaction_code: created.transaction_code,
          payment_method: 'usdc_polygon',
          amount_usd: '13.56',
        }),
        ...Array.from({ length: 6 }, (_, index) =>
          (index % 2 ? first : second).client.getTransaction(created.transaction_code),
        ),
      ]);
      const settled = await second.client.getTransaction(created.transaction_code);
      expect(settled).toMatchObject({ status: 'settled', received_usd: 27.11, payout_dispatched: true });
      await receiver.waitFor(1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.received).toHaveLength(1);
      // A restarted node finds everything.
      nodes[0] = await first.restart();
      expect((await nodes[0].client.getTransaction(created.transaction_code)).payments).toHaveLength(2);
    } finally {
      for (const node of nodes) await node.close();
      await receiver.close();
    }
  });
});
