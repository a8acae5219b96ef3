import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SandboxPaymentRequest, Transaction } from '@cryptocheckout/core';
import type { RunningServer, ServerOptions, WebhookDelivery } from '@cryptocheckout/server';
import { EVENT_DEADLINE_MS } from './deadline.js';

export type { Transaction, WebhookDelivery };

/** How much a sandbox payment sends: the exact amount, less, or more. */
export type SandboxPaymentSize = NonNullable<SandboxPaymentRequest['size']>;

/**
 * What `startServer` takes, minus what the helper decides: sandbox mode and a fresh temporary
 * SQLite directory. `host` (127.0.0.1), `port` (0: a free one), `logLevel` (`silent`) and
 * `webhooks.timeoutMs` have test defaults; everything else (clock, sweepIntervalMs, webhooks,
 * expiryMinutes…) passes through. A webhook waits for its answer as long as a test waits for an
 * event (EVENT_DEADLINE_MS), not the server's 8 s: on a busy machine a WordPress site can take
 * longer than that to answer, and a delivery recorded as timed out would only be retried on the
 * service's clock, which many suites hold still.
 */
export type SandboxServiceOptions = Omit<ServerOptions, 'mode' | 'dataDir' | 'databaseUrl'>;

/** Fields to replace in a webhook body; any value, so tests can forge or break a body too. */
export type WebhookOverrides = Record<string, unknown>;

/** The reference server in sandbox mode, with the calls the plugin suites make around it. */
export interface SandboxService {
  /** Public origin, `http://127.0.0.1:<port>`, without a trailing slash. */
  readonly url: string;
  readonly server: RunningServer;
  /** The temporary data directory; `close()` removes it. */
  readonly dataDir: string;
  /**
   * `POST /api/sandbox/pay`, confirmed at once, and returns the transaction after it.
   * @throws Error carrying the answer when the server does not answer 200.
   */
  pay(code: string, size?: SandboxPaymentSize, paymentMethod?: string): Promise<Transaction>;
  /**
   * `GET /api/transaction?transaction_code=`: the authoritative lookup's `data`.
   * @throws Error carrying the answer when the server does not answer 200.
   */
  transaction(code: string): Promise<Transaction>;
  /**
   * The `transaction.settled` body the service sends, built from the lookup of `code` and stamped
   * with the service's clock. `overrides` replace fields; as a function they are computed from the
   * lookup, e.g. to claim the quoted amount for a transaction nothing has been paid to yet.
   */
  settledWebhookBody(
    code: string,
    overrides?: WebhookOverrides | ((transaction: Transaction) => WebhookOverrides),
  ): Promise<Record<string, unknown>>;
  /**
   * `GET /api/sandbox/webhooks?transaction_code=`: every delivery of `code` with its attempts.
   * @throws Error carrying the answer when the server does not answer 200.
   */
  deliveries(code: string): Promise<WebhookDelivery[]>;
  /** Stops the server (finishing deliveries under way) and removes its data directory. */
  close(): Promise<void>;
}

/**
 * Starts the reference server in sandbox mode on a free loopback port, its SQLite database in a
 * new temporary directory and its logs silent.
 */
export async function startSandboxService(options: SandboxServiceOptions = {}): Promise<SandboxService> {
  // Loaded on first use, so suites that import the test kit without a service do not pay for
  // the server's dependencies (Fastify, SQLite).
  const { startServer } = await import('@cryptocheckout/server');
  const dataDir = mkdtempSync(join(tmpdir(), 'cc-sandbox-service-'));
  let server: RunningServer;
  try {
    server = await startServer({
      host: '127.0.0.1',
      port: 0,
      logLevel: 'silent',
      // PHP runs in the test's own thread and can hold its event loop for seconds; an idle
      // connection the server closed meanwhile would be reused by fetch and reset (ECONNRESET,
      // seen beside two busy processes). The server keeps idle connections a minute instead.
      keepAliveTimeoutMs: 60_000,
      ...options,
      webhooks: { timeoutMs: EVENT_DEADLINE_MS, ...options.webhooks },
      mode: 'sandbox',
      dataDir,
    });
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const clock = options.clock ?? (() => new Date());
  const url = server.url;

  async function data<T>(what: string, response: Response): Promise<T> {
    const text = await response.text();
    if (response.status !== 200) throw new Error(`${what} answered ${response.status}: ${text}`);
    return (JSON.parse(text) as { data: T }).data;
  }

  const transaction = async (code: string) =>
    data<Transaction>(
      `GET /api/transaction for ${code}`,
      await fetch(`${url}/api/transaction?transaction_code=${encodeURIComponent(code)}`),
    );

  let closed: Promise<void> | undefined;

  return {
    url,
    server,
    dataDir,
    transaction,
    async pay(code, size = 'full', paymentMethod = 'usdc_polygon') {
      const response = await fetch(`${url}/api/sandbox/pay`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ transaction_code: code, payment_method: paymentMethod, size }),
      });
      return data<Transaction>(`sandbox ${size} payment of ${code}`, response);
    },
    async settledWebhookBody(code, overrides = {}) {
      const tx = await transaction(code);
      return {
        event: 'transaction.settled',
        transaction_code: code,
        external_reference: tx.external_reference,
        fiat_amount: tx.fiat_amount,
        fiat_currency: tx.fiat_currency,
        received_usd: tx.received_usd,
        wallet_address: tx.wallet_address,
        wallet_currency: tx.wallet_currency,
        wallet_network: tx.wallet_network,
        payout_dispatched: tx.payout_dispatched,
        timestamp: Math.floor(clock().getTime() / 1000),
        ...(typeof overrides === 'function' ? overrides(tx) : overrides),
      };
    },
    async deliveries(code) {
      const response = await fetch(
        `${url}/api/sandbox/webhooks?transaction_code=${encodeURIComponent(code)}`,
      );
      return (await data<{ deliveries: WebhookDelivery[] }>(`webhook deliveries of ${code}`, response))
        .deliveries;
    },
    close() {
      closed ??= server.close().finally(() => rmSync(dataDir, { recursive: true, force: true }));
      return closed;
    },
  };
}
