/** Address format shared by every network of a family; one validator serves the whole family. */
export type NetworkFamily = 'evm' | 'tron' | 'solana' | 'bitcoin';

/** An asset a network settles. `contract` is the token contract (EVM, TRON) or mint (Solana); absent for the native coin. */
export interface AssetOnNetwork {
  readonly symbol: string;
  readonly name: string;
  readonly decimals: number;
  readonly contract?: string;
}

/** Every network id the service accepts, uppercase, as sent in `crypto_currency_network`. */
export const NETWORK_IDS = [
  'POLYGON',
  'ETHEREUM',
  'BASE',
  'ARBITRUM',
  'BSC',
  'TRON',
  'SOLANA',
  'BITCOIN',
] as const;

export type NetworkId = (typeof NETWORK_IDS)[number];

export interface NetworkInfo {
  readonly id: NetworkId;
  /** Human name for screens, e.g. "Polygon PoS". */
  readonly name: string;
  readonly family: NetworkFamily;
  /** EVM chain id (EIP-155); only EVM networks have one. */
  readonly chainId?: number;
  /** Symbol of the coin that pays the network's fees; always one of `assets`. */
  readonly nativeAsset: string;
  readonly assets: readonly AssetOnNetwork[];
}

const usdc = (decimals: number, contract: string): AssetOnNetwork => ({
  symbol: 'USDC',
  name: 'USD Coin',
  decimals,
  contract,
});
const usdt = (decimals: number, contract: string): AssetOnNetwork => ({
  symbol: 'USDT',
  name: 'Tether USD',
  decimals,
  contract,
});
const ether: AssetOnNetwork = { symbol: 'ETH', name: 'Ether', decimals: 18 };

// Mainnet contracts only. On Polygon, Base and Arbitrum the listed USDC is Circle's native issue,
// not the older bridged USDC.e / USDbC, so payouts land in the token wallets show as "USDC".
const CATALOG: readonly NetworkInfo[] = [
  {
    id: 'POLYGON',
    name: 'Polygon PoS',
    family: 'evm',
    chainId: 137,
    nativeAsset: 'POL',
    assets: [
      usdc(6, '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359'),
      usdt(6, '0xc2132D05D31c914a87C6611C10748AEb04B58e8F'),
      { symbol: 'POL', name: 'POL', decimals: 18 },
    ],
  },
  {
    id: 'ETHEREUM',
    name: 'Ethereum',
    family: 'evm',
    chainId: 1,
    nativeAsset: 'ETH',
    assets: [
      usdc(6, '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'),
      usdt(6, '0xdAC17F958D2ee523a2206206994597C13D831ec7'),
      ether,
    ],
  },
  {
    id: 'BASE',
    name: 'Base',
    family: 'evm',
    chainId: 8453,
    nativeAsset: 'ETH',
    assets: [usdc(6, '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'), ether],
  },
  {
    id: 'ARBITRUM',
    name: 'Arbitrum One',
    family: 'evm',
    chainId: 42161,
    nativeAsset: 'ETH',
    assets: [
      usdc(6, '0xaf88d065e77c8cC2239327C5EDb3A432268e5831'),
      usdt(6, '0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9'),
      ether,
    ],
  },
  {
    id: 'BSC',
    name: 'BNB Smart Chain',
    family: 'evm',
    chainId: 56,
    nativeAsset: 'BNB',
    // Both stablecoins on BNB Smart Chain are Binance-Peg tokens with 18 decimals, not 6.
    assets: [
      usdt(18, '0x55d398326f99059fF775485246999027B3197955'),
      usdc(18, '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d'),
      { symbol: 'BNB', name: 'BNB', decimals: 18 },
    ],
  },
  {
    id: 'TRON',
    name: 'TRON',
    family: 'tron',
    nativeAsset: 'TRX',
    assets: [usdt(6, 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'), { symbol: 'TRX', name: 'TRX', decimals: 6 }],
  },
  {
    id: 'SOLANA',
    name: 'Solana',
    family: 'solana',
    nativeAsset: 'SOL',
    assets: [
      usdc(6, 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'),
      usdt(6, 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB'),
      { symbol: 'SOL', name: 'Solana', decimals: 9 },
    ],
  },
  {
    id: 'BITCOIN',
    name: 'Bitcoin',
    family: 'bitcoin',
    nativeAsset: 'BTC',
    assets: [{ symbol: 'BTC', name: 'Bitcoin', decimals: 8 }],
  },
];

// Frozen because the catalog is module-level state shared by every caller in the process.
for (const network of CATALOG) {
  for (const asset of network.assets) Object.freeze(asset);
  Object.freeze(network.assets);
  Object.freeze(network);
}

/** The network catalog, in display order. */
export const NETWORKS: readonly NetworkInfo[] = Object.freeze(CATALOG);

const NETWORKS_BY_ID: ReadonlyMap<string, NetworkInfo> = new Map(CATALOG.map((n) => [n.id, n]));

/** Looks a network up by its exact uppercase id ("POLYGON"); other spellings are not matched. */
export function getNetwork(id: string): NetworkInfo | undefined {
  return NETWORKS_BY_ID.get(id);
}

/** The asset `symbol` (exact, uppercase) as settled on `network`, or undefined when that network does not offer it. */
export function getAsset(network: string, symbol: string): AssetOnNetwork | undefined {
  return getNetwork(network)?.assets.find((asset) => asset.symbol === symbol);
}

/** Whether `network` settles the asset `symbol`. */
export function isAssetOnNetwork(symbol: string, network: string): boolean {
  return getAsset(network, symbol) !== undefined;
}

/** The settlement a new merchant starts with. */
export const DEFAULT_SETTLEMENT = { crypto_currency: 'USDC', crypto_currency_network: 'POLYGON' } as const;

/** The settlement asset the service recommends to merchants. */
export const RECOMMENDED_ASSET = 'USDC';
