import { getNetwork } from '@cryptocheckout/core';
import type { ForwarderOptions } from './forwarder.js';

/** Networks live mode can watch: EVM chains whose USDC/USDT transfers are ERC-20 `Transfer` logs. */
export const LIVE_NETWORKS = ['POLYGON', 'ETHEREUM', 'BASE', 'ARBITRUM'] as const;
export type LiveNetwork = (typeof LIVE_NETWORKS)[number];

/** Assets live mode accepts: the stablecoins merchants settle in (docs/live-mode.md). */
export const LIVE_ASSETS = ['USDC', 'USDT'] as const;

/**
 * Blocks on top of (and including) a transfer's block before it counts as final, per network.
 * Depth-based, chosen so a reorganisation that deep has not been seen on that chain in normal
 * operation; docs/live-mode.md "Confirmations" gives the reasoning and the time each takes.
 */
export const DEFAULT_CONFIRMATIONS: Record<LiveNetwork, number> = {
  ETHEREUM: 12,
  POLYGON: 64,
  BASE: 30,
  ARBITRUM: 30,
};

/** Public block explorers of the networks' own chains (mainnet chain ids only). */
const EXPLORERS: Record<LiveNetwork, string> = {
  ETHEREUM: 'https://etherscan.io/tx/',
  POLYGON: 'https://polygonscan.com/tx/',
  BASE: 'https://basescan.org/tx/',
  ARBITRUM: 'https://arbiscan.io/tx/',
};

/**
 * The explorer page of a transaction on a watched network, or null when the network is watched on
 * another chain (a testnet or a local chain) whose explorer the server does not know.
 */
export function explorerTransactionUrl(network: EvmNetworkConfig, txHash: string): string | null {
  if (network.chainId !== getNetwork(network.network)?.chainId) return null;
  return /^0x[0-9a-f]{64}$/i.test(txHash) ? `${EXPLORERS[network.network]}${txHash}` : null;
}

/** A token the watcher follows: `contract` is lowercase hex, as logs carry it. */
export interface WatchedToken {
  asset: string;
  contract: string;
  decimals: number;
}

/** Everything one network's watcher needs. */
export interface EvmNetworkConfig {
  network: LiveNetwork;
  rpcUrl: string;
  /** The chain id the RPC endpoint must report (EIP-155). */
  chainId: number;
  confirmations: number;
  tokens: WatchedToken[];
  /** Most blocks asked for in one `eth_getLogs` call. */
  maxBlockRange: number;
  /** Time between scans when the watcher has caught up (ms). */
  pollIntervalMs: number;
  /**
   * Deposit mode: the DepositFactory whose CREATE2 forwarders are the checkouts' deposit addresses
   * (lowercase hex); absent in direct mode (docs/deposit-mode.md).
   */
  depositFactory?: string;
}

/** Live-mode settings as the CLI and `startServer` take them. */
export interface LiveRailOptions {
  /** JSON-RPC URL per network, e.g. `{ POLYGON: 'https://polygon-rpc.example' }`. */
  rpcUrls: Partial<Record<string, string>>;
  /** Confirmations per network, overriding {@link DEFAULT_CONFIRMATIONS}. */
  confirmations?: Partial<Record<string, number>>;
  /** Token contracts per `NETWORK:ASSET`, overriding the audited defaults (a test chain, a testnet). */
  tokens?: Partial<Record<string, string>>;
  /** Chain id per network, when the RPC is a testnet or a local chain with another id. */
  chainIds?: Partial<Record<string, number>>;
  /** Time between scans (default 2000 ms). */
  pollIntervalMs?: number;
  /** Blocks per `eth_getLogs` call (default 500; many public endpoints allow no more). */
  maxBlockRange?: number;
  /** Deposit mode per network: the DepositFactory's address, e.g. `{ POLYGON: '0x…' }`. */
  depositFactories?: Partial<Record<string, string>>;
  /**
   * Deposit mode: the private key (0x and 64 hex digits) of the sweeper, an account that holds only
   * gas and pays for forwards. Required with `depositFactories`; never logged or shown.
   */
  sweeperKey?: string;
  /** How forwards are sent (tests shorten the waits). */
  forwarding?: ForwarderOptions;
  /** Solana: `finalized` (default) or `confirmed`, what a payment must reach to count (docs/solana.md). */
  solanaCommitment?: string;
  /** Bitcoin (docs/bitcoin.md): the chain the node must be on (default `main`). */
  bitcoinChain?: string;
  /** Bitcoin: confirmations a payment needs under the large-payment threshold (default 1). */
  bitcoinConfirmations?: number;
  /** Bitcoin: `USD=confirmations` from which more confirmations apply (default `1000=3`). */
  bitcoinLargePayment?: string;
  /** Bitcoin: unpaid addresses in a row a merchant's wallet software scans (default 20). */
  bitcoinGapLimit?: number;
  /** Bitcoin Core's `.cookie` file, when the RPC URL carries no user and password. */
  bitcoinCookieFile?: string;
}

/** The audited default contract of an asset on a live network, from the core catalogue. */
export function defaultTokenContract(network: LiveNetwork, asset: string): WatchedToken | undefined {
  const token = getNetwork(network)?.assets.find((each) => each.symbol === asset);
  if (!token?.contract) return undefined;
  return { asset, contract: token.contract.toLowerCase(), decimals: token.decimals };
}

/** The `--help` and API-document table of default token contracts, one line per network and asset. */
export function defaultTokenTable(): string[] {
  return LIVE_NETWORKS.flatMap((network) =>
    LIVE_ASSETS.flatMap((asset) => {
      const contract = getNetwork(network)?.assets.find((each) => each.symbol === asset)?.contract;
      return contract ? [`${network}:${asset}=${contract}`] : [];
    }),
  );
}

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * Checks and completes live-mode settings: every named network is a live network, URLs are http(s),
 * confirmations 1–10 000, token contracts are addresses of known assets.
 * @throws Error naming the setting and the fix.
 */
export function resolveEvmNetworks(options: LiveRailOptions): EvmNetworkConfig[] {
  const pollIntervalMs = options.pollIntervalMs ?? 2000;
  if (!Number.isFinite(pollIntervalMs) || pollIntervalMs < 10 || pollIntervalMs > 600_000) {
    throw new Error(`--poll-interval-ms must be from 10 to 600000 ms, not ${pollIntervalMs}.`);
  }
  const maxBlockRange = options.maxBlockRange ?? 500;
  if (!Number.isInteger(maxBlockRange) || maxBlockRange < 1 || maxBlockRange > 100_000) {
    throw new Error(`--max-block-range must be a whole number from 1 to 100000, not ${maxBlockRange}.`);
  }
  const leaseMs = options.forwarding?.leaseMs;
  if (leaseMs !== undefined && (!Number.isInteger(leaseMs) || leaseMs < 1000 || leaseMs > 3_600_000)) {
    throw new Error(`--forwarding-lease-ms must be a whole number from 1000 to 3600000 ms, not ${leaseMs}.`);
  }
  // The lease is renewed at every scan: one shorter than two scans could lapse while its node runs.
  if (leaseMs !== undefined && leaseMs < 2 * pollIntervalMs) {
    throw new Error(
      `--forwarding-lease-ms (${leaseMs}) must be at least twice --poll-interval-ms (${pollIntervalMs}): a node renews its lease at every scan.`,
    );
  }
  for (const [label, map] of [
    ['--confirmations', options.confirmations],
    ['--chain-id', options.chainIds],
    ['--deposit-factory', options.depositFactories],
  ] as const) {
    for (const key of Object.keys(map ?? {})) liveNetworkOf(key, label);
  }
  const depositNetworks = Object.keys(options.depositFactories ?? {});
  if (depositNetworks.length > 0 && !options.sweeperKey) {
    throw new Error(
      `--deposit-factory ${depositNetworks.join(', ')} needs the sweeper's key, which pays the gas of forwards: --sweeper-key-file <path> or CRYPTOCHECKOUT_SWEEPER_KEY.`,
    );
  }
  if (options.sweeperKey !== undefined && !/^0x[0-9a-fA-F]{64}$/.test(options.sweeperKey)) {
    // The value is a secret: the message never repeats it.
    throw new Error(
      'The sweeper key is not a private key (0x and 64 hex digits); check --sweeper-key-file or CRYPTOCHECKOUT_SWEEPER_KEY.',
    );
  }
  for (const [network, factory] of Object.entries(options.depositFactories ?? {})) {
    if (!factory || !HEX_ADDRESS.test(factory)) {
      throw new Error(
        `--deposit-factory ${network}: "${factory ?? ''}" is not a contract address (0x and 40 hex digits); deploy one with cryptocheckout-server deploy-factory.`,
      );
    }
    if (lookup(options.rpcUrls, network.toUpperCase()) === undefined) {
      throw new Error(
        `--deposit-factory ${network}: give the network's node too, with --rpc-url ${network.toUpperCase()}=<url>.`,
      );
    }
  }
  const tokenOverrides = new Map<string, string>();
  for (const [key, contract] of Object.entries(options.tokens ?? {})) {
    const [networkName = '', asset = ''] = key.toUpperCase().split(':');
    const network = liveNetworkOf(networkName, '--token');
    if (!(LIVE_ASSETS as readonly string[]).includes(asset)) {
      throw new Error(
        `--token ${key}: the asset must be one of ${LIVE_ASSETS.join(', ')} (e.g. POLYGON:USDC=0x…).`,
      );
    }
    if (!contract || !HEX_ADDRESS.test(contract)) {
      throw new Error(
        `--token ${key}: "${contract ?? ''}" is not a contract address (0x and 40 hex digits).`,
      );
    }
    tokenOverrides.set(`${network}:${asset}`, contract.toLowerCase());
  }
  const seen = new Set<string>();
  return Object.entries(options.rpcUrls).map(([name, rpcUrl]) => {
    const network = liveNetworkOf(name, '--rpc-url');
    if (seen.has(network)) throw new Error(`--rpc-url ${network} is given twice; keep one URL per network.`);
    seen.add(network);
    if (!rpcUrl || !/^https?:\/\/\S+$/.test(rpcUrl)) {
      throw new Error(`--rpc-url ${name}: "${rpcUrl ?? ''}" is not an http(s) JSON-RPC URL.`);
    }
    const confirmations = lookup(options.confirmations, network) ?? DEFAULT_CONFIRMATIONS[network];
    if (!Number.isInteger(confirmations) || confirmations < 1 || confirmations > 10_000) {
      throw new Error(
        `--confirmations ${network}: must be a whole number from 1 to 10000, not ${confirmations}.`,
      );
    }
    const chainId = lookup(options.chainIds, network) ?? getNetwork(network)!.chainId!;
    if (!Number.isInteger(chainId) || chainId < 1) {
      throw new Error(`--chain-id ${network}: must be a positive whole number, not ${chainId}.`);
    }
    const tokens = LIVE_ASSETS.flatMap((asset) => {
      const fallback = defaultTokenContract(network, asset);
      const contract = tokenOverrides.get(`${network}:${asset}`);
      if (contract && fallback) return [{ ...fallback, contract }];
      // A testnet's chain id with mainnet contracts would watch addresses that mean nothing there.
      if (chainId !== getNetwork(network)!.chainId) return [];
      return fallback ? [fallback] : [];
    });
    if (tokens.length === 0) {
      throw new Error(
        `--rpc-url ${network}: chain id ${chainId} is not ${network}'s own, so name its token contracts with --token ${network}:USDC=0x….`,
      );
    }
    const depositFactory = lookup(options.depositFactories, network)?.toLowerCase();
    return {
      network,
      rpcUrl,
      chainId,
      confirmations,
      tokens,
      maxBlockRange,
      pollIntervalMs,
      ...(depositFactory ? { depositFactory } : {}),
    };
  });
}

function liveNetworkOf(name: string, label: string): LiveNetwork {
  const network = name.toUpperCase();
  if (network === 'SOLANA') {
    throw new Error(
      `${label} SOLANA: Solana has no such setting; its payments count at --solana-commitment (finalized by default), see docs/solana.md.`,
    );
  }
  if (!(LIVE_NETWORKS as readonly string[]).includes(network)) {
    throw new Error(
      `${label} ${name}: live mode watches ${LIVE_NETWORKS.join(', ')} and SOLANA (not "${name}").`,
    );
  }
  return network as LiveNetwork;
}

function lookup<T>(map: Partial<Record<string, T>> | undefined, network: string): T | undefined {
  if (!map) return undefined;
  const key = Object.keys(map).find((each) => each.toUpperCase() === network);
  return key === undefined ? undefined : map[key];
}
