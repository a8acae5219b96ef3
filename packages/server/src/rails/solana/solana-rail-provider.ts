import { getNetwork } from '@cryptocheckout/core';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { LiveRailRepository } from '../../db/live-rail-repository.js';
import type { DatabaseSchema } from '../../db/schema.js';
import { SolanaRepository } from '../../db/solana-repository.js';
import type { Rail } from '../catalog.js';
import {
  FIAT_NOT_IN_LIVE_MODE,
  type PaymentRailProvider,
  type RailAvailability,
  RailUnavailable,
  walletMismatch,
} from '../payment-rail-provider.js';
import { checkoutReference } from './solana-addresses.js';
import type { SolanaNetworkConfig } from './solana-network.js';
import { SolanaRpc } from './solana-rpc.js';
import { SolanaWatcher } from './solana-watcher.js';

/** The SPL Token and Token-2022 programs: an account they own is a token account. */
const TOKEN_PROGRAMS: ReadonlySet<string> = new Set([
  'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
  'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb',
]);

/** How long the wallet check waits for the endpoint before letting the checkout through (ms). */
const WALLET_CHECK_TIMEOUT_MS = 2000;

const TOKEN_ACCOUNT_REASON =
  "Not offered: the shop's Solana address is a token account, not a wallet; payments sent to it could not be reached. The shop must enter its wallet address.";

/**
 * Live mode on Solana, non-custodial: the buyer's wallet pays the merchant's own wallet (SOL) or its
 * associated token account (USDC, USDT) by a Solana Pay transfer request that carries the
 * checkout's reference key, so any amount counts and no amount pool is needed (docs/solana.md).
 */
export function solanaRailProvider(dependencies: {
  db: Kysely<DatabaseSchema>;
  config: SolanaNetworkConfig;
  clock: () => Date;
  logger: Logger;
}): PaymentRailProvider & { watcher(): SolanaWatcher | undefined } {
  const { config, clock, logger } = dependencies;
  const references = new SolanaRepository(dependencies.db);
  const transfers = new LiveRailRepository(dependencies.db);
  let watcher: SolanaWatcher | undefined;
  // Asked while a checkout is created: a slow endpoint must not hold the shop's request for long.
  const rpc = new SolanaRpc(config.rpcUrl, WALLET_CHECK_TIMEOUT_MS);
  /** Merchant addresses known to be token accounts, not wallets (an account's owner program never changes). */
  const tokenAccounts = new Set<string>();
  const checkedWallets = new Set<string>();

  /**
   * Refuses a token account entered as the merchant's wallet: a token sent to a Solana Pay request for
   * it lands in a token account the token account owns, which ordinary wallets cannot reach. An
   * address not reachable now is let through; the watcher reports the endpoint.
   */
  const checkWallet = async (address: string): Promise<void> => {
    if (checkedWallets.has(address)) return;
    let owner: string | null;
    try {
      owner = await rpc.getAccountOwner(address);
    } catch {
      return;
    }
    if (owner !== null && TOKEN_PROGRAMS.has(owner)) tokenAccounts.add(address);
    // An address with no account yet may still become one; a system or program account stays what it is.
    if (owner !== null) checkedWallets.add(address);
  };
  const assetOf = (rail: Rail) =>
    rail.network === 'SOLANA' ? config.assets.find((asset) => asset.asset === rail.asset) : undefined;

  const availability = (rail: Rail, wallet?: Parameters<typeof walletMismatch>[1]): RailAvailability => {
    const mismatch = walletMismatch(rail, wallet);
    if (mismatch) return mismatch;
    if (wallet && tokenAccounts.has(wallet.address))
      return { available: false, reason: TOKEN_ACCOUNT_REASON };
    if (rail.kind === 'fiat') return FIAT_NOT_IN_LIVE_MODE;
    if (!assetOf(rail)) {
      const networkName = getNetwork(rail.network ?? '')?.name ?? rail.network;
      return {
        available: false,
        reason: `Not offered: this server does not watch ${rail.asset} on ${networkName}.`,
      };
    }
    if (watcher?.usable === false) {
      return { available: false, reason: 'Not offered right now: Solana cannot be watched.' };
    }
    return { available: true };
  };

  return {
    availability,
    async paymentRequest({ transactionCode, rail, wallet, dueAmount, holdUntil }) {
      if (!assetOf(rail) || !availability(rail, wallet).available) {
        throw new Error(`${rail.slug} is not payable for this transaction in live mode.`);
      }
      await checkWallet(wallet.address);
      if (tokenAccounts.has(wallet.address)) throw new RailUnavailable(TOKEN_ACCOUNT_REASON);
      const reference = checkoutReference(transactionCode, rail.slug);
      // Stored before the buyer sees it: the watcher knows the reference before any wallet can use it.
      await references.saveReference({
        reference,
        transaction_code: transactionCode,
        payment_method: rail.slug,
        wallet_address: wallet.address,
        created_at: clock().toISOString(),
        monitor_until: holdUntil,
      });
      // Any amount counts against the reference; the page asks for what is still due.
      return { address: wallet.address, amount: dueAmount, reference };
    },
    tokenOverride(rail) {
      const mint = assetOf(rail)?.mint;
      return config.customMints && mint ? { contract: mint } : undefined;
    },
    async inspectWallet(wallet) {
      if (wallet.network.toUpperCase() === 'SOLANA') await checkWallet(wallet.address);
    },
    async isTokenAccount(network, address) {
      if (network !== 'SOLANA') return false;
      await checkWallet(address);
      return tokenAccounts.has(address);
    },
    paysOutByForward: () => false,
    sharesAmountPool: () => false,
    fiatRedirectUrl() {
      throw new Error('Fiat rails are not offered in live mode.');
    },
    async start(sink, refunds) {
      watcher = new SolanaWatcher(config, references, transfers, sink, clock, logger, refunds);
      watcher.start();
    },
    async stop() {
      await watcher?.stop();
    },
    health() {
      return watcher ? { SOLANA: watcher.health() } : {};
    },
    watcher: () => watcher,
  };
}
