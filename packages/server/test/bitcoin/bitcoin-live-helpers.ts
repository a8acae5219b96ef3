import { type CryptoPaymentLink, decimalToScaled } from '@cryptocheckout/core';
import { expect } from 'vitest';
import type { ServerOptions } from '../../src/index.js';
import type { BitcoinWatcherHealth } from '../../src/rails/bitcoin/bitcoin-watcher.js';
import type { LiveRailOptions } from '../../src/rails/evm/evm-networks.js';
import { eventually, type TestServer } from '../helpers.js';
import type { BitcoinTestNode } from './bitcoin-test-node.js';

/** BIP84's published account key ("abandon … about"): a key anyone can check the addresses of. */
export const MERCHANT_ZPUB =
  'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
/** A plain mainnet taproot address (BIP86's published receive address 0), entered alone. */
export const MERCHANT_ADDRESS = 'bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr';

/** Live-mode options pointing the server at the loopback node, on regtest. */
export function bitcoinLiveOptions(
  node: BitcoinTestNode,
  live: Partial<LiveRailOptions> = {},
  options: ServerOptions = {},
): ServerOptions {
  return {
    mode: 'live',
    // These suites test the chain, not prices: the dated table keeps amounts fixed (docs/rates.md).
    rates: { source: 'static', fixedPricesInLiveMode: true },
    live: { rpcUrls: { BITCOIN: node.url }, bitcoinChain: 'regtest', pollIntervalMs: 25, ...live },
    webhooks: { allowPrivateTargets: true },
    newHoldLimits: { perClientPerMinute: 0, perPricePerMinute: 0 },
    ...options,
  };
}

/** The checkout body of a live order paid in BTC to `wallet`. */
export function bitcoinCheckoutBody(wallet: string, overrides: Record<string, unknown> = {}) {
  return {
    fiat_amount: '25.00',
    fiat_currency: 'EUR',
    external_reference: 'bitcoin-order',
    customer: { wallet_address: wallet, crypto_currency: 'BTC', crypto_currency_network: 'BITCOIN' },
    ...overrides,
  };
}

/** Creates a checkout paid to `wallet` in BTC and asks for its instructions; `sats` is the amount asked. */
export async function openBitcoinCheckout(
  server: TestServer,
  wallet: string,
  overrides: Record<string, unknown> = {},
) {
  const created = await server.client.createCheckout(bitcoinCheckoutBody(wallet, overrides));
  const link = await linkOf(server, created.transaction_code);
  return { code: created.transaction_code, link, sats: decimalToScaled(link.amount, 8) };
}

/** The BTC payment link of a checkout. */
export async function linkOf(server: TestServer, code: string): Promise<CryptoPaymentLink> {
  return (await server.client.getPaymentLink({
    transaction_code: code,
    payment_method: 'btc_bitcoin',
  })) as CryptoPaymentLink;
}

/** Waits until checkout `code` is in `status`; returns it then. */
export function waitForBitcoinStatus(server: TestServer, code: string, status: string) {
  return eventually(async () => {
    const transaction = await server.client.getTransaction(code);
    expect(transaction.status).toBe(status);
    return transaction;
  });
}

/** The BITCOIN watcher's part of `GET /api/health`. */
export async function bitcoinHealth(server: TestServer): Promise<BitcoinWatcherHealth> {
  const body = (await (await fetch(`${server.url}/api/health`)).json()) as {
    data: { networks: { BITCOIN: BitcoinWatcherHealth } };
  };
  return body.data.networks.BITCOIN;
}

/** Waits until the watcher scanned the node's tip and read its mempool since `since` polls. */
export async function waitForBitcoinScan(server: TestServer, node: BitcoinTestNode): Promise<void> {
  const tip = node.tipHeight();
  const before = (await bitcoinHealth(server)).rpcCalls;
  await eventually(async () => {
    const health = await bitcoinHealth(server);
    if (health.scannedHeight === null || health.scannedHeight < tip) {
      throw new Error(`watcher at ${health.scannedHeight}, tip ${tip}`);
    }
    // At least one whole poll after the tip was reached (getbestblockhash, getrawmempool).
    if (health.rpcCalls < before + 4) throw new Error('no full poll yet');
  });
}

/** A USD figure of the API (a JSON number of whole cents) as integer cents, for comparing money exactly. */
export function cents(usd: number): bigint {
  return decimalToScaled(String(usd), 2);
}
