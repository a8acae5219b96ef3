import type { CryptoPaymentLink } from '@cryptocheckout/core';
import { expect } from 'vitest';
import type { ServerOptions } from '../../src/index.js';
import type { SolanaWatcherHealth } from '../../src/rails/solana/solana-watcher.js';
import type { TestServer } from '../helpers.js';
import { storedTransfers } from '../live/live-helpers.js';
import type { SolanaTestChain } from './solana-test-chain.js';

/** The test chain's own USDC and USDT mints (6 decimals, like mainnet's). */
export interface SolanaMints {
  usdc: string;
  usdt: string;
}

/** Creates the stablecoin mints on the test chain. */
export async function createStablecoinMints(chain: SolanaTestChain): Promise<SolanaMints> {
  return { usdc: await chain.createMint({ decimals: 6 }), usdt: await chain.createMint({ decimals: 6 }) };
}

/** Live-mode options pointing the server at the Solana test chain with its own mints. */
export function solanaLiveOptions(
  chain: SolanaTestChain,
  mints: SolanaMints,
  extra: { commitment?: string } = {},
): ServerOptions {
  return {
    mode: 'live',
    // These suites test the chain, not prices: the dated table keeps amounts fixed (docs/rates.md).
    rates: { source: 'static', fixedPricesInLiveMode: true },
    live: {
      rpcUrls: { SOLANA: chain.rpcUrl },
      tokens: { 'SOLANA:USDC': mints.usdc, 'SOLANA:USDT': mints.usdt },
      pollIntervalMs: 25,
      ...(extra.commitment ? { solanaCommitment: extra.commitment } : {}),
    },
    webhooks: { allowPrivateTargets: true },
  };
}

/** The checkout body of a live order paid in `asset` on Solana to `wallet`. */
export function solanaCheckoutBody(wallet: string, asset = 'USDC', overrides: Record<string, unknown> = {}) {
  return {
    fiat_amount: '25.00',
    fiat_currency: 'EUR',
    external_reference: 'solana-order',
    customer: { wallet_address: wallet, crypto_currency: asset, crypto_currency_network: 'SOLANA' },
    ...overrides,
  };
}

/** The Solana Pay request of a payment link, read back from its URI. */
export function transferRequestOf(link: CryptoPaymentLink) {
  const url = new URL(link.uri);
  expect(url.protocol).toBe('solana:');
  return {
    recipient: url.pathname,
    amount: url.searchParams.get('amount')!,
    splToken: url.searchParams.get('spl-token'),
    reference: url.searchParams.get('reference')!,
    label: url.searchParams.get('label'),
    message: url.searchParams.get('message'),
  };
}

/** Creates a checkout paid to `wallet` in `asset` and asks for its Solana Pay instructions. */
export async function openSolanaCheckout(
  server: TestServer,
  wallet: string,
  asset = 'USDC',
  overrides: Record<string, unknown> = {},
) {
  const created = await server.client.createCheckout(solanaCheckoutBody(wallet, asset, overrides));
  const link = (await server.client.getPaymentLink({
    transaction_code: created.transaction_code,
    payment_method: `${asset.toLowerCase()}_solana`,
  })) as CryptoPaymentLink;
  return { code: created.transaction_code, link, request: transferRequestOf(link) };
}

/** Waits until checkout `code` is in `status`; returns it then. */
export { waitForStatus as waitForSolanaStatus } from '../live/live-helpers.js';

/** The Solana watcher's part of `GET /api/health`. */
export async function solanaHealth(server: TestServer): Promise<SolanaWatcherHealth> {
  const body = (await (await fetch(`${server.url}/api/health`)).json()) as {
    data: { networks: { SOLANA: SolanaWatcherHealth } };
  };
  return body.data.networks.SOLANA;
}

/** The Solana transfers the server stored (read-only, from its SQLite file). */
export const storedSolanaTransfers = (dataDir: string) => storedTransfers(dataDir, 'SOLANA');
