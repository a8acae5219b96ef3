import { join } from 'node:path';
import { type CryptoPaymentLink, decimalToScaled, type Transaction } from '@cryptocheckout/core';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import type { ServerOptions } from '../../src/index.js';
import { EVENT_DEADLINE_MS, eventually, type TestServer } from '../helpers.js';
import type { LocalChain } from './local-chain.js';

/** A merchant wallet nobody else pays in these tests (lowercase hex is what logs carry). */
export const MERCHANT_WALLET = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' as const;

/** Live-mode options pointing the server at the local chain, with its USDC at `usdc`. */
export function liveOptions(chain: LocalChain, usdc: string, confirmations = 3): ServerOptions {
  return {
    mode: 'live',
    // These suites test chains, not prices: the dated table keeps amounts fixed (docs/rates.md).
    rates: { source: 'static', fixedPricesInLiveMode: true },
    live: {
      rpcUrls: { POLYGON: chain.rpcUrl },
      tokens: { 'POLYGON:USDC': usdc },
      confirmations: { POLYGON: confirmations },
      pollIntervalMs: 25,
    },
    webhooks: { allowPrivateTargets: true },
    // The suites open many checkouts from one loopback client within a minute; the door limits
    // on new amount holds have their own suite (flood-limits.test.ts).
    newHoldLimits: { perClientPerMinute: 0, perPricePerMinute: 0 },
  };
}

/** The checkout body of a live order paid in USDC on Polygon to {@link MERCHANT_WALLET}. */
export function liveCheckoutBody(overrides: Record<string, unknown> = {}) {
  return {
    fiat_amount: '25.00',
    fiat_currency: 'EUR',
    external_reference: 'live-order',
    customer: {
      wallet_address: MERCHANT_WALLET,
      crypto_currency: 'USDC',
      crypto_currency_network: 'POLYGON',
    },
    ...overrides,
  };
}

interface PolygonHealth {
  head: string | null;
  scannedTo: string | null;
  lastError: string | null;
  consecutiveFailures: number;
  reorganisations: number;
}

/** The POLYGON watcher's part of `GET /api/health`. */
export async function watcherHealth(apiBase: string): Promise<PolygonHealth> {
  const body = (await (await fetch(`${apiBase}/health`)).json()) as {
    data: { networks: { POLYGON: PolygonHealth } };
  };
  return body.data.networks.POLYGON;
}

/** Waits until the watcher has scanned the chain's current head, so what it saw can be asserted. */
export async function waitForScan(
  apiBase: string,
  chain: LocalChain,
  timeoutMs = EVENT_DEADLINE_MS,
): Promise<void> {
  const head = await chain.head();
  await eventually(async () => {
    const health = await watcherHealth(apiBase);
    if (health.scannedTo === null || BigInt(health.scannedTo) < head) {
      throw new Error(`watcher at ${health.scannedTo}, head ${head}`);
    }
  }, timeoutMs);
}

/** The chain transfers the server stored, on `network` when given (read-only, straight from its SQLite file). */
export function storedTransfers(dataDir: string, network?: string) {
  const db = new Database(join(dataDir, 'cryptocheckout.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare(
        `SELECT tx_hash, log_index, asset, amount, to_address, transaction_code, payment_id, unmatched_reason, confirmed
         FROM chain_transfers WHERE ? IS NULL OR network = ? ORDER BY recorded_at, log_index`,
      )
      .all(network ?? null, network ?? null) as Array<{
      tx_hash: string;
      log_index: number;
      asset: string;
      amount: string;
      to_address: string;
      transaction_code: string | null;
      payment_id: string | null;
      unmatched_reason: string | null;
      confirmed: number;
    }>;
  } finally {
    db.close();
  }
}

/** Creates a live checkout on `server` and asks for its USDC-on-Polygon instructions. */
export async function openLiveCheckout(server: TestServer, overrides: Record<string, unknown> = {}) {
  const created = await server.client.createCheckout(liveCheckoutBody(overrides));
  const link = (await server.client.getPaymentLink({
    transaction_code: created.transaction_code,
    payment_method: 'usdc_polygon',
  })) as CryptoPaymentLink;
  return { code: created.transaction_code, link, baseUnits: decimalToScaled(link.amount, 6) };
}

/** Waits until checkout `code` on `server` is in `status`; returns it then. */
export function waitForStatus(
  server: TestServer,
  code: string,
  status: string,
  timeoutMs = EVENT_DEADLINE_MS,
): Promise<Transaction> {
  return eventually(async () => {
    const transaction = await server.client.getTransaction(code);
    expect(transaction.status).toBe(status);
    return transaction;
  }, timeoutMs);
}
