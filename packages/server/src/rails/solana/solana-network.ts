import { getNetwork, validateWalletAddress } from '@cryptocheckout/core';

/** What a payment must reach before it counts as final on Solana (docs/solana.md "Finality"). */
export type SolanaCommitment = 'confirmed' | 'finalized';

/** Assets live mode takes on Solana: the two stablecoins as SPL tokens, and SOL itself. */
export const SOLANA_LIVE_ASSETS = ['USDC', 'USDT', 'SOL'] as const;

/** Solana mainnet-beta's genesis hash: the endpoint must report it while the mints are mainnet's. */
export const MAINNET_GENESIS_HASH = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d';

/** An asset the Solana watcher follows; `mint` is absent for SOL (lamports). */
export interface SolanaAsset {
  asset: string;
  decimals: number;
  mint?: string;
}

/** Everything the Solana watcher needs. */
export interface SolanaNetworkConfig {
  network: 'SOLANA';
  rpcUrl: string;
  commitment: SolanaCommitment;
  assets: SolanaAsset[];
  /** Whether a mint was configured in place of mainnet's: the genesis check and explorer links are off. */
  customMints: boolean;
  /** Time between polls when caught up (ms). */
  pollIntervalMs: number;
}

/** Solana's part of the live-mode settings, as the CLI and `startServer` take them. */
export interface SolanaOptions {
  rpcUrl: string;
  /** Default `finalized`. */
  commitment?: string;
  /** Mints per asset (`USDC`, `USDT`) in place of mainnet's: devnet, a test validator. */
  mints?: Partial<Record<string, string>>;
  pollIntervalMs?: number;
}

/**
 * Checks and completes the Solana settings: an http(s) URL, a known commitment, mints that are
 * Solana addresses of assets live mode takes.
 * @throws Error naming the setting and the fix.
 */
export function resolveSolanaNetwork(options: SolanaOptions): SolanaNetworkConfig {
  const { rpcUrl } = options;
  if (!rpcUrl || !/^https?:\/\/\S+$/.test(rpcUrl)) {
    throw new Error(`--rpc-url SOLANA: "${rpcUrl ?? ''}" is not an http(s) JSON-RPC URL.`);
  }
  const commitment = (options.commitment ?? 'finalized').toLowerCase();
  if (commitment !== 'confirmed' && commitment !== 'finalized') {
    throw new Error(
      `--solana-commitment must be "finalized" (the default: a payment counts once the cluster finalized it) or "confirmed" (faster, may still be dropped), not "${options.commitment}".`,
    );
  }
  const mints = new Map<string, string>();
  for (const [key, mint] of Object.entries(options.mints ?? {})) {
    const asset = key.toUpperCase();
    if (asset !== 'USDC' && asset !== 'USDT') {
      throw new Error(`--token SOLANA:${key}: Solana mints can be set for USDC and USDT (SOL has none).`);
    }
    if (!mint || !validateWalletAddress('SOLANA', mint).valid) {
      throw new Error(
        `--token SOLANA:${key}: "${mint ?? ''}" is not a Solana mint address (base58, 32 to 44 characters).`,
      );
    }
    mints.set(asset, mint);
  }
  const pollIntervalMs = options.pollIntervalMs ?? 2000;
  const assets = SOLANA_LIVE_ASSETS.map((asset) => {
    const catalogue = getNetwork('SOLANA')!.assets.find((each) => each.symbol === asset)!;
    const mint = mints.get(asset) ?? catalogue.contract;
    return { asset, decimals: catalogue.decimals, ...(mint ? { mint } : {}) };
  });
  return {
    network: 'SOLANA',
    rpcUrl,
    commitment,
    assets,
    customMints: mints.size > 0,
    pollIntervalMs,
  };
}

/** The explorer page of a Solana transaction; null when the mints are not mainnet's (a devnet, a test validator). */
export function solanaExplorerUrl(config: SolanaNetworkConfig, signature: string): string | null {
  if (config.customMints) return null;
  return /^[1-9A-HJ-NP-Za-km-z]{64,90}$/.test(signature)
    ? `https://explorer.solana.com/tx/${signature}`
    : null;
}
