import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CheckoutRequest, createCheckoutClient } from '@cryptocheckout/core';
import { type RunningServer, type ServerOptions, startServer } from '@cryptocheckout/server';

/** How long a wait for an event lasts before it fails; set once for every suite in vitest.shared.ts. */
export const EVENT_DEADLINE_MS = Number(process.env.CRYPTOCHECKOUT_TEST_DEADLINE_MS);
if (!(EVENT_DEADLINE_MS > 0)) {
  throw new Error(
    "CRYPTOCHECKOUT_TEST_DEADLINE_MS is not set: run the tests with the repository's vitest config (npm test).",
  );
}

/**
 * The reference server, started in-process for the dashboard's tests: the operator API they read
 * is the real one, with its own SQLite file in a temporary folder. Data is made through the public
 * API (checkouts, sandbox payments), as a shop and a buyer would.
 */

/** The operator token the test servers start with. */
export const OPERATOR_TOKEN = 'dashboard-test-operator-token-0123456789';

/** A polygon address the sandbox accepts as the merchant's wallet. */
const MERCHANT_WALLET = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';

/** What the dashboard sent, seen on its way to the server. */
export interface RecordedRequest {
  method: string;
  /** Path below the origin: `/api/operator/transactions`. */
  path: string;
  query: URLSearchParams;
  authorization: string | undefined;
}

export interface OperatorServer {
  /** Origin of the server; the same after a restart, so an open page keeps reaching it. */
  readonly origin: string;
  /** `<origin>/api/operator` */
  readonly base: string;
  readonly dataDir: string;
  /** Requests made through {@link OperatorServer.fetch}, oldest first. */
  readonly requests: RecordedRequest[];
  /** `globalThis.fetch` that records each request first: hand it to the code under test. */
  readonly fetch: typeof fetch;
  /** Creates a checkout through the public API (USDC on Polygon, 19.90 USD unless told otherwise). */
  createCheckout(overrides?: Partial<CheckoutRequest>): Promise<string>;
  /** Pays a checkout in full through the sandbox, which settles it (and sends its webhook). */
  settle(transactionCode: string): Promise<void>;
  /** Calls the operator API directly with the current token and returns the envelope's `data`. */
  operator<T = unknown>(path: string, method?: 'GET' | 'POST'): Promise<T>;
  /**
   * Stops the server and starts it again on the same port and data, with `options` changed.
   * @throws when the port was taken in between or the options are invalid.
   */
  restart(options?: ServerOptions): Promise<void>;
  /** Stops the server and removes its data. */
  close(): Promise<void>;
}

/**
 * Starts the reference server on 127.0.0.1 (a free port) with a fresh data folder.
 * @throws when the server does not start (invalid options, no free port).
 */
export async function startOperatorServer(options: ServerOptions = {}): Promise<OperatorServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cryptocheckout-dashboard-'));
  let current: ServerOptions = {
    host: '127.0.0.1',
    port: 0,
    dataDir,
    logLevel: 'silent',
    operatorToken: OPERATOR_TOKEN,
    sweepIntervalMs: 100,
    ...options,
  };
  let running: RunningServer;
  try {
    running = await startServer(current);
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const requests: RecordedRequest[] = [];
  const recordingFetch: typeof fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(init?.headers);
    requests.push({
      method: init?.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      authorization: headers.get('authorization') ?? undefined,
    });
    return globalThis.fetch(input, init);
  };
  const client = () => createCheckoutClient({ baseUrl: `${running.url}/api` });
  const server: OperatorServer = {
    get origin() {
      return running.url;
    },
    get base() {
      return `${running.url}/api/operator`;
    },
    dataDir,
    requests,
    fetch: recordingFetch,
    async createCheckout(overrides = {}) {
      const created = await client().createCheckout({
        fiat_amount: '19.90',
        fiat_currency: 'USD',
        external_reference: 'ORD-1',
        customer: {
          wallet_address: MERCHANT_WALLET,
          crypto_currency: 'USDC',
          crypto_currency_network: 'POLYGON',
        },
        ...overrides,
      });
      return created.transaction_code;
    },
    async settle(transactionCode) {
      const response = await fetch(`${running.url}/api/sandbox/pay`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ transaction_code: transactionCode, payment_method: 'usdc_polygon' }),
      });
      if (!response.ok)
        throw new Error(`sandbox payment answered ${response.status}: ${await response.text()}`);
    },
    async operator<T>(path: string, method: 'GET' | 'POST' = 'GET') {
      const response = await fetch(`${running.url}/api/operator${path}`, {
        method,
        headers: { authorization: `Bearer ${current.operatorToken}` },
      });
      const envelope = (await response.json()) as { status: string; data: T };
      if (envelope.status !== 'success') throw new Error(`${path} answered ${JSON.stringify(envelope)}`);
      return envelope.data;
    },
    async restart(changes = {}) {
      await running.close();
      // The same port, so a page already open keeps reaching the server.
      current = { ...current, ...changes, port: running.port };
      running = await startServer(current);
    },
    async close() {
      await running.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return server;
}

/** How a webhook receiver answers the next request. */
export interface WebhookAnswer {
  status: number;
  /** Milliseconds to wait before answering. */
  delayMs?: number;
}

export interface WebhookReceiver {
  /** URL to give as a checkout's `webhook_url`. */
  readonly url: string;
  /** Bodies received, oldest first. */
  readonly received: string[];
  /** The answer to every following request; change it to make the shop "fixed". */
  answer: WebhookAnswer;
  /** Stops listening and drops open connections (an answer being delayed is never sent). */
  close(): Promise<void>;
}

/** A shop's webhook endpoint on 127.0.0.1, answering as {@link WebhookReceiver.answer} says. */
export async function startWebhookReceiver(answer: WebhookAnswer): Promise<WebhookReceiver> {
  const received: string[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push(body);
      const { status, delayMs = 0 } = receiver.answer;
      setTimeout(() => response.writeHead(status, { 'content-type': 'text/plain' }).end('ok'), delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const receiver: WebhookReceiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`,
    received,
    answer,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return receiver;
}
