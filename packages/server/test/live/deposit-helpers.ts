import { join } from 'node:path';
import { compiledContracts } from '@cryptocheckout/contracts';
import Database from 'better-sqlite3';
import { keccak256, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { ServerOptions } from '../../src/config.js';
import { liveOptions } from './live-helpers.js';
import type { LocalChain } from './local-chain.js';

/** A sweeper key of its own per test file (`name`), with its address. */
export function sweeperOf(name: string): { key: `0x${string}`; address: `0x${string}` } {
  const key = keccak256(toHex(`cryptocheckout ${name} sweeper`));
  return { key, address: privateKeyToAccount(key).address };
}

/** Deploys the DepositFactory the build compiled on `chain`; its address. */
export function deployFactory(chain: LocalChain): Promise<`0x${string}`> {
  return chain.deployContract(compiledContracts().DepositFactory);
}

/**
 * Server options of live deposit mode on POLYGON: `tokens` watched (`{ 'POLYGON:USDC': 0x… }`),
 * deposits forwarded through `factory` by `sweeperKey`, forwards handed to the node again every 50 ms.
 */
export function depositOptions(
  chain: LocalChain,
  tokens: Record<string, string>,
  factory: string,
  sweeperKey: `0x${string}`,
  confirmations: number,
  forwarding: { bumpAfterMs?: number; batchSize?: number } = {},
): ServerOptions {
  const options = liveOptions(chain, tokens['POLYGON:USDC']!, confirmations);
  return {
    ...options,
    live: {
      ...options.live!,
      tokens,
      depositFactories: { POLYGON: factory },
      sweeperKey,
      forwarding: { resendEveryMs: 50, bumpAfterMs: 60_000, ...forwarding },
    },
  };
}

function readServerDatabase<T>(dataDir: string, read: (db: Database.Database) => T): T {
  const db = new Database(join(dataDir, 'cryptocheckout.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** The states of the forwards carrying deposits to `address`, oldest first, from the server's SQLite file. */
export function forwardStates(dataDir: string, address: string): string[] {
  return readServerDatabase(dataDir, (db) =>
    (
      db.prepare('SELECT state, items FROM forwards ORDER BY created_at').all() as {
        state: string;
        items: string;
      }[]
    )
      .filter((row) => row.items.includes(address.toLowerCase()))
      .map((row) => row.state),
  );
}

/** The signed attempts (transaction hashes) of the forwards carrying deposits to `address`. */
export function forwardAttempts(dataDir: string, address: string): string[] {
  return readServerDatabase(dataDir, (db) =>
    (
      db
        .prepare(
          'SELECT a.tx_hash, f.items FROM forward_attempts a JOIN forwards f ON f.forward_id = a.forward_id ORDER BY a.signed_at',
        )
        .all() as { tx_hash: string; items: string }[]
    )
      .filter((row) => row.items.includes(address.toLowerCase()))
      .map((row) => row.tx_hash),
  );
}

/** One JSON-RPC call to the chain's node, as a server would make it; its result. */
export async function rpcCall(chain: LocalChain, method: string, params: unknown[]): Promise<unknown> {
  const response = await fetch(chain.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await response.json()) as { result: unknown }).result;
}

/** Whether the chain's node holds a transaction (mined or waiting). */
export async function nodeKnows(chain: LocalChain, hash: string): Promise<boolean> {
  return (await rpcCall(chain, 'eth_getTransactionByHash', [hash])) !== null;
}
