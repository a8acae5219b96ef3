import { addDecimals } from '@cryptocheckout/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkoutBody,
  eventually,
  startTestServer,
  startWebhookReceiver,
  type TestServer,
} from './helpers.js';
import { OPERATOR_TOKEN, operatorRequest, readAllPages } from './operator-helpers.js';
import { findPostgresBin, startPostgresCluster } from './postgres-cluster.js';
import { liveRateOptions, startRateSourceFixtures } from './rate-source-fixtures.js';
import { createRefund } from './refund-helpers.js';

const bin = findPostgresBin();
if (!bin && process.env.CI)
  throw new Error('CI must test PostgreSQL: install the postgresql package (.ci/run does).');

describe.skipIf(!bin)('PostgreSQL storage (the same query layer as SQLite)', () => {
  let cluster: Awaited<ReturnType<typeof startPostgresCluster>>;
  beforeAll(async () => {
    cluster = await startPostgresCluster(bin!);
  });
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

  it('gives the operator one list and one resend across nodes', async () => {
    let answer = 500;
    const receiver = await startWebhookReceiver(() => ({ status: answer }));
    const nodes: TestServer[] = [];
    try {
      const options = { databaseUrl: cluster.connectionString, operatorToken: OPERATOR_TOKEN };
      nodes.push(await startTestServer(options), await startTestServer(options));
      const [first, second] = nodes as [TestServer, TestServer];
      // The cluster is shared with the test above: figures are compared with what was there before.
      const before = (await operatorRequest(first, '/stats?days=1')).json.data.days[0];
      const codes: string[] = [];
      for (let index = 0; index < 120; index++) {
        const node = index % 2 ? first : second;
        const created = await node.client.createCheckout(
          checkoutBody({ external_reference: `pg-${index}`, webhook_url: receiver.url }),
        );
        codes.push(created.transaction_code);
      }
      const paged = await readAllPages(second, '/transactions?q=', 17);
      expect(new Set(paged.codes).size).toBe(paged.codes.length);
      for (const code of codes) expect(paged.codes).toContain(code);

      const code = codes[7]!;
      await second.post('/api/sandbox/pay', { transaction_code: code, payment_method: 'usdc_polygon' });
      const failed = await eventually(async () => {
        const detail = (await operatorRequest(first, `/transactions/${code}`)).json.data;
        expect(detail.deliveries[0].state).toBe('failed');
        return detail;
      });
      answer = 200;
      const resends = await Promise.all(
        [first, second, first, second].map((node) =>
          operatorRequest(node, `/deliveries/${failed.deliveries[0].delivery_id}/resend`, { method: 'POST' }),
        ),
      );
      expect(new Set(resends.map((resend) => resend.json.data.delivery_id)).size).toBe(1);
      expect(resends.filter((resend) => resend.json.data.created)).toHaveLength(1);
      await receiver.waitFor(2);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(receiver.received).toHaveLength(2);
      const today = (await operatorRequest(second, '/stats?days=2')).json.data.days.at(-1);
      expect(today).toMatchObject({
        checkouts: before.checkouts + 120,
        settled: before.settled + 1,
        settled_usd: addDecimals(before.settled_usd, '27.11'),
      });
      const history = (await operatorRequest(second, `/transactions/${code}`)).json.data.history;
      expect(history.map((entry: { status: string }) => entry.status)).toEqual(['pending', 'settled']);
    } finally {
      for (const node of nodes) await node.close();
      await receiver.close();
    }
  });
  it('lets two nodes racing for the last refundable unit create one refund, and keeps a reference to one refund', async () => {
    const nodes: TestServer[] = [];
    try {
      for (let index = 0; index < 2; index++) {
        nodes.push(
          await startTestServer({ databaseUrl: cluster.connectionString, operatorToken: OPERATOR_TOKEN }),
        );
      }
      const [first, second] = nodes as [TestServer, TestServer];
      const created = await first.client.createCheckout(
        checkoutBody({ fiat_amount: '10.00', fiat_currency: 'USD' }),
      );
      const code = created.transaction_code;
      await first.post('/api/sandbox/pay', {
        transaction_code: code,
        payment_method: 'usdc_polygon',
        confirmed: true,
      });
      const race = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          createRefund(index % 2 ? first : second, {
            transaction_code: code,
            amount: '2.5',
            currency: 'USDC',
          }),
        ),
      );
      expect(race.filter((answer) => answer.status === 201)).toHaveLength(4);
      expect(race.filter((answer) => answer.status === 422)).toHaveLength(4);

      const other = await first.client.createCheckout(
        checkoutBody({ fiat_amount: '10.00', fiat_currency: 'USD' }),
      );
      await first.post('/api/sandbox/pay', {
        transaction_code: other.transaction_code,
        payment_method: 'usdc_polygon',
        confirmed: true,
      });
      const body = {
        transaction_code: other.transaction_code,
        amount: '4',
        currency: 'USD',
        reference: 'credit-slip-9',
      };
      const retried = await Promise.all(
        [first, second, first, second].map((node) => createRefund(node, body)),
      );
      expect(new Set(retried.map((answer) => answer.json.data.refund_id)).size).toBe(1);
      expect(retried.filter((answer) => answer.status === 201)).toHaveLength(1);
      expect(
        (await second.get(`/api/refunds?transaction_code=${other.transaction_code}`)).json.data.refundable,
      ).toBe('6');
    } finally {
      for (const node of nodes) await node.close();
    }
  });

  it('quotes one price from two nodes: one reads the sources, the other prices from what it stored', async () => {
    const fixtures = await startRateSourceFixtures();
    fixtures.ecb.eurRates = { USD: '1.25' };
    fixtures.exchangeRateApi.perUsd = { EUR: '0.78125' };
    const nodes: TestServer[] = [];
    try {
      const reading = { databaseUrl: cluster.connectionString, rates: liveRateOptions(fixtures) };
      nodes.push(await startTestServer(reading));
      // The second node's sources point at a closed port: all it knows comes through the database.
      const nowhere = Object.fromEntries(
        Object.keys(fixtures.sourceUrls).map((name) => [name, 'http://127.0.0.1:9/']),
      );
      nodes.push(
        await startTestServer({
          databaseUrl: cluster.connectionString,
          rates: { ...liveRateOptions(fixtures), sourceUrls: nowhere },
        }),
      );
      const quote = async (node: TestServer) =>
        (await node.get('/api/payment_options?fiat_amount=100&fiat_currency=EUR')).json.data?.amount_in_usd;
      await eventually(async () => {
        expect(await quote(nodes[0]!)).toBe(126.5);
        expect(await quote(nodes[1]!)).toBe(126.5);
      });
      fixtures.ecb.eurRates.USD = '1.35';
      await eventually(async () => {
        expect(await quote(nodes[0]!)).toBe(131.5);
        expect(await quote(nodes[1]!)).toBe(131.5);
      });
    } finally {
      for (const node of nodes) await node.close();
      await fixtures.close();
    }
  });
});
