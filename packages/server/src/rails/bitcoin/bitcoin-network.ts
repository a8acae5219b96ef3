import { compareDecimals, parseDecimal } from '@cryptocheckout/core';
import type { BitcoinChain } from './bitcoin-keys.js';

/** The chains a Bitcoin Core node reports in `getblockchaininfo.chain`. */
export const BITCOIN_CHAINS: readonly BitcoinChain[] = ['main', 'test', 'testnet4', 'signet', 'regtest'];

/** How many confirmations a payment needs, by the checkout's amount (BTCPay's speed policy, docs/bitcoin.md). */
export interface ConfirmationPolicy {
  /** Under `largeFromUsd`: default 1. */
  confirmations: number;
  /** From this order amount (USD) on, `largeConfirmations` apply: default 1000. */
  largeFromUsd: string;
  /** Default 3. */
  largeConfirmations: number;
}

/** Everything the Bitcoin watcher needs. */
export interface BitcoinNetworkConfig {
  network: 'BITCOIN';
  /** The node's JSON-RPC URL without credentials. */
  rpcUrl: string;
  /** `user:password` from the URL, sent as HTTP Basic authentication. */
  credentials: string | undefined;
  /** Bitcoin Core's cookie file, read on each connection when the URL has no credentials. */
  cookieFile: string | undefined;
  /** The chain the node must be on: `main` unless the operator says otherwise. */
  chain: BitcoinChain;
  policy: ConfirmationPolicy;
  /** Unpaid addresses in a row after which wallet software stops looking (Electrum's and BIP44's 20). */
  gapLimit: number;
  /** Time between polls (ms): the mempool is read each time, blocks when the tip moved. */
  pollIntervalMs: number;
}

/** Bitcoin's part of the live-mode settings, as the CLI and `startServer` take them. */
export interface BitcoinOptions {
  rpcUrl: string;
  cookieFile?: string;
  /** Default `main`. */
  chain?: string;
  /** Confirmations under the large-payment threshold (default 1). */
  confirmations?: number;
  /** `USD=confirmations` from which more confirmations apply (default `1000=3`). */
  largePayment?: string;
  /** Default 20. */
  gapLimit?: number;
  pollIntervalMs?: number;
}

/**
 * Checks and completes the Bitcoin settings.
 * @throws Error naming the setting and the fix.
 */
export function resolveBitcoinNetwork(options: BitcoinOptions): BitcoinNetworkConfig {
  let url: URL;
  try {
    url = new URL(options.rpcUrl);
  } catch {
    url = new URL('invalid:');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(
      `--rpc-url BITCOIN: "${redacted(options.rpcUrl)}" is not an http(s) URL of a Bitcoin Core node (http://user:password@127.0.0.1:8332).`,
    );
  }
  const credentials =
    url.username || url.password
      ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`
      : undefined;
  url.username = '';
  url.password = '';
  const chain = (options.chain ?? 'main').toLowerCase() as BitcoinChain;
  if (!BITCOIN_CHAINS.includes(chain)) {
    throw new Error(`--bitcoin-chain must be one of ${BITCOIN_CHAINS.join(', ')}, not "${options.chain}".`);
  }
  const confirmations = options.confirmations ?? 1;
  requireConfirmations('--bitcoin-confirmations', confirmations);
  const [largeFromUsd, largeConfirmationsText] = (options.largePayment ?? '1000=3').split('=');
  const largeConfirmations = Number(largeConfirmationsText);
  let threshold: string;
  try {
    threshold = parseDecimal(largeFromUsd ?? '');
  } catch {
    threshold = '';
  }
  if (threshold === '' || compareDecimals(threshold, '0') <= 0 || largeConfirmationsText === undefined) {
    throw new Error(
      `--bitcoin-large-payment must be USD=confirmations, e.g. 1000=3 (orders of 1000 USD and more wait for 3 confirmations), not "${options.largePayment}".`,
    );
  }
  requireConfirmations('--bitcoin-large-payment confirmations', largeConfirmations);
  const gapLimit = options.gapLimit ?? 20;
  if (!Number.isInteger(gapLimit) || gapLimit < 1 || gapLimit > 100_000) {
    throw new Error(`--bitcoin-gap-limit must be a whole number from 1 to 100000, not ${gapLimit}.`);
  }
  return {
    network: 'BITCOIN',
    rpcUrl: url.toString(),
    credentials,
    cookieFile: options.cookieFile,
    chain,
    policy: { confirmations, largeFromUsd: threshold, largeConfirmations },
    gapLimit,
    pollIntervalMs: options.pollIntervalMs ?? 5000,
  };
}

/** The confirmations a payment to a checkout of `amountInUsd` needs. */
export function confirmationsFor(policy: ConfirmationPolicy, amountInUsd: string): number {
  return compareDecimals(amountInUsd, policy.largeFromUsd) >= 0
    ? Math.max(policy.confirmations, policy.largeConfirmations)
    : policy.confirmations;
}

/** The explorer page of a transaction; null off mainnet (a test node's transactions are nowhere public). */
export function bitcoinExplorerUrl(config: BitcoinNetworkConfig, txid: string): string | null {
  return config.chain === 'main' && /^[0-9a-f]{64}$/.test(txid) ? `https://mempool.space/tx/${txid}` : null;
}

function requireConfirmations(name: string, value: number): void {
  // Zero would count a payment the buyer can still replace (RBF) or double-spend.
  if (!Number.isInteger(value) || value < 1 || value > 100) {
    throw new Error(
      `${name} must be a whole number from 1 to 100 (an unconfirmed payment can still be replaced), not ${value}.`,
    );
  }
}

/** A URL with its password hidden, for messages. */
export function redacted(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@');
}
