import { afterEach, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../src/index.js';
import {
  checkoutBody,
  eventually,
  startTestServer,
  startWebhookReceiver,
  type TestServer,
} from './helpers.js';

let server: TestServer | undefined;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>> | undefined;
afterEach(async () => {
  await server?.dispose();
  await receiver?.close();
  server = undefined;
  receiver = undefined;
});

async function settle(target: TestServer, webhookUrl: string) {
  const created = await target.client.createCheckout(checkoutBody({ webhook_url: webhookUrl }));
  await target.post('/api/sandbox/pay', {
    transaction_code: created.transaction_code,
    payment_method: 'usdc_polygon',
  });
  return created.transaction_code;
}

async function deliveries(target: TestServer, code: string) {
  return (await target.get(`/api/sandbox/webhooks?transaction_code=${code}`)).json.data.deliveries;
}

describe('webhook delivery', () => {
  it('makes one attempt by default and records the failure', async () => {
    receiver = await startWebhookReceiver(() => ({ status: 500 }));
    server = await startTestServer();
    const code = await settle(server, receiver.url);
    const [delivery] = await eventually(async () => {
      const list = await deliveries(server!, code);
      expect(list[0].state).toBe('failed');
      return list;
    });
    expect(delivery.attempts).toEqual([expect.objectContaining({ http_status: 500, error: 'HTTP 500' })]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toHaveLength(1);
  });

  it('records a timeout when the receiver does not answer in time', async () => {
    receiver = await startWebhookReceiver(() => ({ status: 200, delayMs: 1000 }));
    server = await startTestServer({ webhooks: { timeoutMs: 150 } });
    const code = await settle(server, receiver.url);
    const [delivery] = await eventually(async () => {
      const list = await deliveries(server!, code);
      expect(list[0].state).toBe('failed');
      return list;
    });
    expect(delivery.attempts[0]).toMatchObject({ http_status: null, error: 'no answer within 150 ms' });
  });

  it('retries with backoff when retries are switched on', async () => {
    receiver = await startWebhookReceiver((index) => ({ status: index < 2 ? 503 : 204 }));
    server = await startTestServer({ webhooks: { retries: 3, retryBaseDelayMs: 40 }, sweepIntervalMs: 20 });
    const code = await settle(server, receiver.url);
    const [delivery] = await eventually(async () => {
      const list = await deliveries(server!, code);
      expect(list[0].state).toBe('delivered');
      return list;
    });
    expect(delivery.attempts.map((attempt: { http_status: number }) => attempt.http_status)).toEqual([
      503, 503, 204,
    ]);
    const times = delivery.attempts.map((attempt: { attempted_at: string }) =>
      Date.parse(attempt.attempted_at),
    );
    // Each wait is at least its scheduled delay, 40 ms then 80 ms (a busy machine only adds to them).
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(40);
    expect(times[2] - times[1]).toBeGreaterThanOrEqual(80);
    expect(receiver.received.map((webhook) => webhook.body)).toEqual(
      Array(3).fill(receiver.received[0]!.body),
    );
  });

  it('signs webhooks with HMAC when a secret is configured', async () => {
    receiver = await startWebhookReceiver();
    server = await startTestServer({ webhooks: { signingSecret: 'whsec_test' } });
    await settle(server, receiver.url);
    const [webhook] = await receiver.waitFor(1);
    const header = webhook!.headers['x-cryptocheckout-signature'] as string;
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const now = Math.floor(Date.now() / 1000);
    expect(verifyWebhookSignature('whsec_test', webhook!.body, header, now)).toBe(true);
    expect(verifyWebhookSignature('other-secret', webhook!.body, header, now)).toBe(false);
    expect(verifyWebhookSignature('whsec_test', webhook!.body.replace('27.11', '99.99'), header, now)).toBe(
      false,
    );
    expect(verifyWebhookSignature('whsec_test', webhook!.body, header, now + 3600)).toBe(false);
  });
});

describe('live mode', () => {
  it('turns the sandbox controls off and refuses private webhook targets', async () => {
    server = await startTestServer({
      mode: 'live',
      rates: { source: 'static', fixedPricesInLiveMode: true },
    });
    const sandbox = await server.post('/api/sandbox/pay', {
      transaction_code: '00000000-0000-4000-8000-000000000000',
      payment_method: 'card',
    });
    expect(sandbox.status).toBe(404);
    for (const url of [
      'http://127.0.0.1:9/hook',
      'http://localhost/hook',
      'http://10.1.2.3/hook',
      'http://[::1]/hook',
      'http://169.254.169.254/latest',
    ]) {
      const response = await server.post('/api/checkout', checkoutBody({ webhook_url: url }));
      expect(response.status, url).toBe(400);
      expect(response.json.error.field).toBe('webhook_url');
    }
    // Without a live rail provider no rail takes payments, and the options say so.
    const created = await server.client.createCheckout(checkoutBody());
    expect(created.payment_options.every((option) => option.available === false)).toBe(true);
  });

  it('allows loopback webhook targets in sandbox mode so local shops work', async () => {
    server = await startTestServer();
    const response = await server.post(
      '/api/checkout',
      checkoutBody({ webhook_url: 'http://127.0.0.1:9/hook' }),
    );
    expect(response.status).toBe(201);
  });
});
