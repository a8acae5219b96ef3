import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxService, type SandboxServiceOptions, startSandboxService } from '../src/index.js';

// The helpers against the real reference server: a checkout is opened over the public API, then
// paid, looked up and its webhook inspected through the helpers.

const WALLET = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
let now = Date.parse('2030-01-02T03:04:05Z');
let service: SandboxService;
let hook: { url: string; bodies: string[]; close: () => Promise<void> };

beforeAll(async () => {
  const { createServer } = await import('node:http');
  const bodies: string[] = [];
  const receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    request.on('end', () => {
      bodies.push(body);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"success"}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  hook = {
    url: `http://127.0.0.1:${address.port}/hook`,
    bodies,
    close: () => new Promise((resolve) => receiver.close(() => resolve())),
  };
  service = await startSandboxService({ clock: () => new Date(now), sweepIntervalMs: 50 });
});

afterAll(async () => {
  await service?.close();
  await hook?.close();
});

async function openCheckout(reference: string): Promise<string> {
  const response = await fetch(`${service.url}/api/checkout`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      fiat_amount: '25.00',
      fiat_currency: 'EUR',
      external_reference: reference,
      success_url: 'https://shop.example.com/thanks',
      cancel_url: 'https://shop.example.com/cart',
      webhook_url: hook.url,
      customer: { wallet_address: WALLET, crypto_currency: 'USDC', crypto_currency_network: 'POLYGON' },
    }),
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { data: { transaction_code: string } }).data.transaction_code;
}

describe('startSandboxService', () => {
  it('runs the reference server in sandbox mode on loopback, with its data in a temporary folder', () => {
    expect(service.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(service.url).toBe(service.server.url);
    expect(service.server.config.mode).toBe('sandbox');
    expect(service.server.config.sweepIntervalMs).toBe(50);
    expect(existsSync(service.dataDir)).toBe(true);
  });

  it('looks a transaction up, pays it and builds the settled webhook body from the lookup', async () => {
    const code = await openCheckout('order-1');
    const pending = await service.transaction(code);
    expect(pending).toMatchObject({
      transaction_code: code,
      status: 'pending',
      external_reference: 'order-1',
    });
    // A settlement claim before any payment: the lookup still says nothing was received.
    expect(await service.settledWebhookBody(code)).toMatchObject({
      received_usd: 0,
      payout_dispatched: false,
    });
    expect(
      await service.settledWebhookBody(code, (tx) => ({
        received_usd: tx.amount_in_usd,
        payout_dispatched: true,
      })),
    ).toMatchObject({ received_usd: pending.amount_in_usd, payout_dispatched: true });

    const partly = await service.pay(code, 'partial');
    expect(partly.status).toBe('underpaid');
    const paid = await service.pay(code);
    expect(paid).toMatchObject({ status: 'settled', payment_method: 'usdc_polygon' });
    expect(await service.transaction(code)).toMatchObject({ status: 'settled', payout_dispatched: true });

    expect(await service.settledWebhookBody(code, { received_usd: 1000 })).toEqual({
      event: 'transaction.settled',
      transaction_code: code,
      external_reference: 'order-1',
      fiat_amount: 25,
      fiat_currency: 'EUR',
      received_usd: 1000,
      wallet_address: WALLET,
      wallet_currency: 'USDC',
      wallet_network: 'POLYGON',
      payout_dispatched: true,
      timestamp: Math.floor(now / 1000),
    });
    now += 60_000;
    expect((await service.settledWebhookBody(code)).timestamp).toBe(Math.floor(now / 1000));
  });

  it('lists the webhook deliveries of a transaction, and their body is what the helper builds', async () => {
    const code = await openCheckout('order-2');
    expect(await service.deliveries(code)).toEqual([]);
    await service.pay(code, 'full');
    await expect
      .poll(async () => (await service.deliveries(code))[0]?.attempts.length ?? 0)
      .toBeGreaterThan(0);
    const [delivery] = await service.deliveries(code);
    expect(delivery).toMatchObject({ transaction_code: code, url: hook.url, state: 'delivered' });
    expect(delivery?.attempts[0]?.http_status).toBe(200);
    expect(hook.bodies).toContain(delivery?.body);
    const sent = JSON.parse(delivery?.body ?? '{}') as Record<string, unknown>;
    expect(await service.settledWebhookBody(code, { timestamp: sent.timestamp })).toEqual(sent);
  });

  it('names the call and carries the answer when the server refuses it', async () => {
    const unknown = '3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f';
    await expect(service.transaction(unknown)).rejects.toThrow(
      /GET \/api\/transaction for .* answered 404: .*not_found/,
    );
    await expect(service.pay(unknown, 'over')).rejects.toThrow(/sandbox over payment of .* answered 404/);
    await expect(service.pay('not a code')).rejects.toThrow(/answered 400: .*transaction_code/);
  });

  it('keeps sandbox mode and its own folder whatever it is given, and removes the folder on close', async () => {
    // Untyped callers could still pass them; the sandbox routes and a disposable folder are the point.
    const other = await startSandboxService({ mode: 'live', dataDir: '.' } as SandboxServiceOptions);
    expect(other.server.config.mode).toBe('sandbox');
    expect(other.dataDir).not.toBe('.');
    expect(existsSync(other.dataDir)).toBe(true);
    await Promise.all([other.close(), other.close()]);
    expect(existsSync(other.dataDir)).toBe(false);
    await expect(fetch(`${other.url}/api/transaction?transaction_code=x`)).rejects.toThrow();
  });
});
