import { type CryptoPaymentLink, decimalToScaled } from '@cryptocheckout/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually, startTestServer, startWebhookReceiver, type TestServer } from '../helpers.js';
import { liveCheckoutBody, liveOptions, MERCHANT_WALLET, storedTransfers } from './live-helpers.js';
import { type LocalChain, startLocalChain } from './local-chain.js';

let chain: LocalChain;
let usdc: `0x${string}`;
let first: TestServer;
let second: TestServer;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

beforeAll(async () => {
  chain = await startLocalChain();
  usdc = await chain.deployToken('USDC', 6);
  receiver = await startWebhookReceiver();
  first = await startTestServer(liveOptions(chain, usdc, 2));
  // A second node on the same database watches the same chain at the same time.
  second = await startTestServer(liveOptions(chain, usdc, 2), first.dataDir);
});
afterAll(async () => {
  await second?.close();
  await first?.dispose();
  await receiver?.close();
  await chain?.close();
});

it('two server nodes watching one chain record each transfer once and send one webhook per checkout', async () => {
  const checkouts: Array<{ code: string; baseUnits: bigint }> = [];
  for (let index = 0; index < 5; index++) {
    const node = index % 2 === 0 ? first : second;
    const created = await node.client.createCheckout(
      liveCheckoutBody({ external_reference: `node-${index}`, webhook_url: receiver.url }),
    );
    const link = (await node.client.getPaymentLink({
      transaction_code: created.transaction_code,
      payment_method: 'usdc_polygon',
    })) as CryptoPaymentLink;
    checkouts.push({ code: created.transaction_code, baseUnits: decimalToScaled(link.amount, 6) });
  }
  expect(new Set(checkouts.map((checkout) => checkout.baseUnits)).size).toBe(5);
  for (const { baseUnits } of checkouts) await chain.transfer(usdc, MERCHANT_WALLET, baseUnits);
  await chain.mine(2);
  for (const { code } of checkouts) {
    const settled = await eventually(async () => {
      const transaction = await first.client.getTransaction(code);
      expect(transaction.status).toBe('settled');
      return transaction;
    });
    expect(settled.payments).toHaveLength(1);
  }
  await receiver.waitFor(5);
  // Let both watchers pass over the blocks again; nothing more may arrive.
  await chain.mine(2);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const codes = receiver.received.map(
    (webhook) => (JSON.parse(webhook.body) as { transaction_code: string }).transaction_code,
  );
  expect(codes.sort()).toEqual(checkouts.map((checkout) => checkout.code).sort());
  expect(storedTransfers(first.dataDir).filter((transfer) => transfer.payment_id !== null)).toHaveLength(5);
});
