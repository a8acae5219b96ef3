import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCheckoutClient } from '@cryptocheckout/core';
import { type RunningServer, type ServerOptions, startServer } from '../src/index.js';

/** How long a wait for an event lasts before it fails; set once for every suite in vitest.shared.ts. */
export const EVENT_DEADLINE_MS = Number(process.env.CRYPTOCHECKOUT_TEST_DEADLINE_MS);
if (!(EVENT_DEADLINE_MS > 0)) {
  throw new Error(
    "CRYPTOCHECKOUT_TEST_DEADLINE_MS is not set: run the tests with the repository's vitest config (npm test).",
  );
}

/** A clock tests move by hand. */
export function manualClock(start = '2026-11-01T10:00:00.000Z') {
  let now = Date.parse(start);
  return {
    now: () => new Date(now),
    advanceMinutes(minutes: number) {
      now += minutes * 60_000;
    },
    advanceSeconds(seconds: number) {
      now += seconds * 1000;
    },
  };
}

export interface TestServer extends RunningServer {
  dataDir: string;
  client: ReturnType<typeof createCheckoutClient>;
  post(
    path: string,
    body: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; json: any; headers: Headers }>;
  get(path: string): Promise<{ status: number; json: any; headers: Headers }>;
  restart(overrides?: ServerOptions): Promise<TestServer>;
  dispose(): Promise<void>;
}

/** Starts a real server on loopback with its own data directory. */
export async function startTestServer(options: ServerOptions = {}, dataDir?: string): Promise<TestServer> {
  const directory = dataDir ?? mkdtempSync(join(tmpdir(), 'cryptocheckout-server-'));
  const server = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir: directory,
    logLevel: 'silent',
    ...options,
  });
  const request = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: response.status, json, headers: response.headers };
  };
  const testServer: TestServer = Object.assign(Object.create(null), server, {
    dataDir: directory,
    client: createCheckoutClient({ baseUrl: `${server.url}/api` }),
    post: (path: string, body: unknown, headers?: Record<string, string>) =>
      request('POST', path, body, headers),
    get: (path: string) => request('GET', path),
    close: () => server.close(),
    restart: async (overrides: ServerOptions = {}) => {
      await server.close();
      return startTestServer({ ...options, ...overrides }, directory);
    },
    dispose: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  });
  return testServer;
}

export interface ReceivedWebhook {
  body: string;
  headers: IncomingHttpHeaders;
}

/** A real HTTP receiver for webhooks; `respond` decides each reply. */
export async function startWebhookReceiver(
  respond: (index: number) => { status: number; delayMs?: number } = () => ({ status: 200 }),
) {
  const received: ReceivedWebhook[] = [];
  const waiters: Array<() => void> = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const index = received.length;
      received.push({ body, headers: request.headers });
      for (const wake of waiters.splice(0)) wake();
      const { status, delayMs = 0 } = respond(index);
      setTimeout(() => {
        response.writeHead(status, { 'content-type': 'text/plain' });
        response.end('ok');
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`;
  return {
    url,
    received,
    /** Resolves once `count` webhooks arrived, or rejects after `timeoutMs`. */
    async waitFor(count: number, timeoutMs = EVENT_DEADLINE_MS) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} webhooks, got ${received.length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export const POLYGON_WALLET = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';

/** A valid checkout body; override any field. */
export function checkoutBody(overrides: Record<string, unknown> = {}) {
  return {
    fiat_amount: '25.00',
    fiat_currency: 'EUR',
    external_reference: 'order-1001',
    success_url: 'https://shop.example/checkout/order-received/1001',
    cancel_url: 'https://shop.example/cart',
    customer: { wallet_address: POLYGON_WALLET, crypto_currency: 'USDC', crypto_currency_network: 'POLYGON' },
    ...overrides,
  };
}

/** Waits until `check` passes or the time runs out (for background work such as the sweep). */
export async function eventually<T>(check: () => Promise<T> | T, timeoutMs = EVENT_DEADLINE_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
