import { getAsset } from '@cryptocheckout/core';

/** A payment rail the buyer can choose on the hosted page. Bounds are in USD. */
export interface Rail {
  slug: string;
  name: string;
  kind: 'crypto' | 'fiat';
  /** Crypto asset symbol; fiat rails charge in the order's own currency. */
  asset: string | null;
  network: string | null;
  minUsd: string;
  maxUsd: string;
}

const crypto = (
  slug: string,
  name: string,
  asset: string,
  network: string,
  minUsd: string,
  maxUsd: string,
): Rail => ({
  slug,
  name,
  kind: 'crypto',
  asset,
  network,
  minUsd,
  maxUsd,
});

/**
 * Every rail the service offers, in display order. Minimums keep payments above what network fees
 * make sensible (Ethereum L1, Bitcoin dust); maximums cap sandbox-sized risk per checkout.
 */
export const RAILS: readonly Rail[] = [
  crypto('usdc_polygon', 'USDC on Polygon', 'USDC', 'POLYGON', '0.50', '100000.00'),
  crypto('usdt_polygon', 'USDT on Polygon', 'USDT', 'POLYGON', '0.50', '100000.00'),
  crypto('usdc_base', 'USDC on Base', 'USDC', 'BASE', '0.50', '100000.00'),
  crypto('usdc_arbitrum', 'USDC on Arbitrum', 'USDC', 'ARBITRUM', '0.50', '100000.00'),
  crypto('usdc_solana', 'USDC on Solana', 'USDC', 'SOLANA', '0.50', '100000.00'),
  crypto('usdt_solana', 'USDT on Solana', 'USDT', 'SOLANA', '0.50', '100000.00'),
  crypto('usdt_tron', 'USDT on TRON', 'USDT', 'TRON', '1.00', '100000.00'),
  crypto('usdc_ethereum', 'USDC on Ethereum', 'USDC', 'ETHEREUM', '10.00', '1000000.00'),
  crypto('usdt_ethereum', 'USDT on Ethereum', 'USDT', 'ETHEREUM', '10.00', '1000000.00'),
  crypto('eth_ethereum', 'Ether', 'ETH', 'ETHEREUM', '10.00', '1000000.00'),
  crypto('btc_bitcoin', 'Bitcoin', 'BTC', 'BITCOIN', '5.00', '1000000.00'),
  crypto('sol_solana', 'Solana', 'SOL', 'SOLANA', '1.00', '100000.00'),
  {
    slug: 'card',
    name: 'Card',
    kind: 'fiat',
    asset: null,
    network: null,
    minUsd: '1.00',
    maxUsd: '10000.00',
  },
  {
    slug: 'bank_transfer',
    name: 'Bank transfer',
    kind: 'fiat',
    asset: null,
    network: null,
    minUsd: '20.00',
    maxUsd: '1000000.00',
  },
];

/** Finds a rail by slug. */
export function findRail(slug: string): Rail | undefined {
  return RAILS.find((rail) => rail.slug === slug);
}

/**
 * Decimals a crypto amount is quoted with: the asset's own decimals, capped at 8 so amounts stay
 * readable (0.00039063 BTC, 0.01106531 ETH).
 */
export function quoteDecimals(rail: Rail): number {
  if (rail.kind !== 'crypto' || !rail.asset || !rail.network) return 2;
  const asset = getAsset(rail.network, rail.asset);
  return Math.min(asset?.decimals ?? 8, 8);
}
