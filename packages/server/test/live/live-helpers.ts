import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { ServerOptions } from '../../src/index.js';
import { EVENT_DEADLINE_MS, eventually } from '../helpers.js';
import type { LocalChain } from './local-chain.js';

/** A merchant wallet nobody else pays in these tests (lowercase hex is what logs carry). */
export const MERCHANT_WALLET = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' as const;

/** Live-mode options pointing the server at the local chain, with its USDC at `usdc`. */
export function liveOptions(chain: LocalChain, usdc: string, confirmations = 3): ServerOptions {
  return {
    mode: 'live',
    live: {
      rpcUrls: { POLYGON: chain.rpcUrl },
      tokens: { 'POLYGON:USDC': usdc },
      confirmations: { POLYGON: confirmations },
      pollIntervalMs: 25,
    },
    webhooks: { allowPrivateTargets: true },
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

/** The chain transfers the server stored (read-only, straight from its SQLite file). */
export function storedTransfers(dataDir: string) {
  const db = new Database(join(dataDir, 'cryptocheckout.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare(
        'SELECT tx_hash, log_index, amount, transaction_code, payment_id, unmatched_reason, confirmed FROM chain_transfers',
      )
      .all() as Array<{
      tx_hash: string;
      log_index: number;
      amount: string;
      transaction_code: string | null;
      payment_id: string | null;
      unmatched_reason: string | null;
      confirmed: number;
    }>;
  } finally {
    db.close();
  }
}
