import { describe, expect, it } from 'vitest';
import { checkoutBody, eventually, startTestServer, startWebhookReceiver } from './helpers.js';

describe('restart durability', () => {
  it('keeps checkouts across a restart: looked up, paid and webhooked after it', async () => {
    const receiver = await startWebhookReceiver();
    let server = await startTestServer();
    try {
      const created = await server.client.createCheckout(checkoutBody({ webhook_url: receiver.url }));
      const link = await server.client.getPaymentLink({
        transaction_code: created.transaction_code,
        payment_method: 'btc_bitcoin',
      });
      server = await server.restart();
      const after = await server.client.getTransaction(created.transaction_code);
      expect(after).toMatchObject({
        status: 'pending',
        amount_in_usd: 27.11,
        external_reference: 'order-1001',
      });
      const linkAfter = await server.client.getPaymentLink({
        transaction_code: created.transaction_code,
        payment_method: 'btc_bitcoin',
      });
      expect(linkAfter).toEqual(link);
      await server.post('/api/sandbox/pay', {
        transaction_code: created.transaction_code,
        payment_method: 'btc_bitcoin',
      });
      await receiver.waitFor(1);
      expect(JSON.parse(receiver.received[0]!.body)).toMatchObject({
        transaction_code: created.transaction_code,
        received_usd: 27.11,
      });
    } finally {
      await server.dispose();
      await receiver.close();
    }
  });

  it('sends after a restart a webhook that a crash left in the outbox', async () => {
    const receiver = await startWebhookReceiver();
    let server = await startTestServer();
    try {
      const created = await server.client.createCheckout(checkoutBody({ webhook_url: receiver.url }));
      // The process "dies" right after settling: the outbox never gets to send.
      await server.outbox.stop();
      await server.post('/api/sandbox/pay', {
        transaction_code: created.transaction_code,
        payment_method: 'usdc_polygon',
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(receiver.received).toHaveLength(0);
      server = await server.restart();
      await receiver.waitFor(1);
      expect(JSON.parse(receiver.received[0]!.body)).toMatchObject({
        event: 'transaction.settled',
        transaction_code: created.transaction_code,
      });
      await eventually(async () => {
        const deliveries = await server.get(
          `/api/sandbox/webhooks?transaction_code=${created.transaction_code}`,
        );
        expect(deliveries.json.data.deliveries[0].state).toBe('delivered');
      });
    } finally {
      await server.dispose();
      await receiver.close();
    }
  });
});
