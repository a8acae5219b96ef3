import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { BitcoinRepository } from '../../db/bitcoin-repository.js';
import { LiveRailRepository } from '../../db/live-rail-repository.js';
import type { DatabaseSchema } from '../../db/schema.js';
import type { Rail } from '../catalog.js';
import { AmountHolds } from '../evm/amount-holds.js';
import {
  FIAT_NOT_IN_LIVE_MODE,
  type MerchantWallet,
  type PaymentRailProvider,
  type RailAvailability,
  RailUnavailable,
  walletMismatch,
} from '../payment-rail-provider.js';
import { scriptHex } from './bitcoin-blocks.js';
import { addressOfScript, type BitcoinReceiver, parseBitcoinReceiver } from './bitcoin-keys.js';
import type { BitcoinNetworkConfig } from './bitcoin-network.js';
import { BITCOIN_DECIMALS } from './bitcoin-payments.js';
import { BitcoinWatcher } from './bitcoin-watcher.js';

/**
 * Satoshi tags added to a due amount at a plain merchant address: first up to 999 sats (under a
 * dollar at 100 000 USD/BTC), then up to 9 999 only when the first tier is all held.
 */
export const BITCOIN_AMOUNT_TAG_TIERS: readonly { first: bigint; last: bigint }[] = [
  { first: 1n, last: 999n },
  { first: 1_000n, last: 9_999n },
];

/**
 * Live mode on Bitcoin, non-custodial: the buyer pays the merchant's own wallet (docs/bitcoin.md).
 * With an extended public key, each checkout gets the next receive address derived from it, and any
 * amount there is the checkout's; with a plain address, the buyer pays an exact amount carrying a
 * satoshi tag, as EVM direct mode does. The server holds public keys only.
 */
export function bitcoinRailProvider(dependencies: {
  db: Kysely<DatabaseSchema>;
  config: BitcoinNetworkConfig;
  clock: () => Date;
  logger: Logger;
}): PaymentRailProvider & { watcher(): BitcoinWatcher | undefined } {
  const { config, clock, logger } = dependencies;
  const repository = new BitcoinRepository(dependencies.db);
  const transfers = new LiveRailRepository(dependencies.db);
  const holds = new AmountHolds(transfers, clock, BITCOIN_AMOUNT_TAG_TIERS);
  const receivers = new Map<string, BitcoinReceiver>();
  let watcher: BitcoinWatcher | undefined;

  /** The merchant's wallet as parsed (once per text). @throws RailUnavailable naming the problem. */
  const receiverOf = (wallet: MerchantWallet): BitcoinReceiver => {
    let receiver = receivers.get(wallet.address);
    if (!receiver) {
      try {
        receiver = parseBitcoinReceiver(wallet.address);
      } catch (error) {
        throw new RailUnavailable(`The shop's Bitcoin wallet cannot be used: ${(error as Error).message}`);
      }
      receivers.set(wallet.address, receiver);
    }
    return receiver;
  };

  const availability = (rail: Rail, wallet?: MerchantWallet): RailAvailability => {
    const mismatch = walletMismatch(rail, wallet);
    if (mismatch) return mismatch;
    if (rail.kind === 'fiat') return FIAT_NOT_IN_LIVE_MODE;
    if (rail.network !== 'BITCOIN' || rail.asset !== 'BTC') {
      return {
        available: false,
        reason: `Not offered: this server does not watch ${rail.asset} on ${rail.network}.`,
      };
    }
    if (watcher?.usable === false) {
      return { available: false, reason: 'Not offered right now: Bitcoin cannot be watched.' };
    }
    return { available: true };
  };

  return {
    availability,
    async paymentRequest({ transactionCode, rail, wallet, dueAmount, holdUntil }) {
      if (!availability(rail, wallet).available) {
        throw new Error(`${rail.slug} is not payable for this transaction in live mode.`);
      }
      const receiver = receiverOf(wallet);
      const now = clock().toISOString();
      if (receiver.kind === 'address') {
        const amount = await holds.amountFor({
          transactionCode,
          paymentMethod: rail.slug,
          scope: { network: 'BITCOIN', asset: 'BTC', walletAddress: wallet.address },
          decimals: BITCOIN_DECIMALS,
          dueAmount,
          holdUntil,
        });
        const address = addressOfScript(receiver.script, config.chain);
        // Watched before the buyer sees it, until the hold ends.
        await repository.watchAddress(scriptHex(receiver.script), address, wallet.address, holdUntil, now);
        return { address, amount };
      }
      const existing = await repository.derivedFor(transactionCode, rail.slug);
      if (existing) return { address: existing.address, amount: dueAmount };
      const index = await repository.takeIndex(
        { id: receiver.id, wallet: wallet.address, scheme: receiver.scheme },
        now,
      );
      const script = receiver.scriptAt(index);
      const address = addressOfScript(script, config.chain);
      // Stored before the buyer sees it: any amount that reaches it is this checkout's.
      await repository.saveDerived({
        script_hex: scriptHex(script),
        address,
        wallet_id: receiver.id,
        derivation_index: index,
        transaction_code: transactionCode,
        payment_method: rail.slug,
        created_at: now,
        monitor_until: holdUntil,
      });
      return { address, amount: dueAmount };
    },
    sharesAmountPool(wallet) {
      if (wallet.network.toUpperCase() !== 'BITCOIN') return false;
      try {
        return receiverOf(wallet).kind === 'address';
      } catch {
        return false;
      }
    },
    paysOutByForward: () => false,
    fiatRedirectUrl() {
      throw new Error('Fiat rails are not offered in live mode.');
    },
    async start(sink, refunds) {
      watcher = new BitcoinWatcher(config, repository, transfers, sink, clock, logger, refunds);
      watcher.start();
    },
    async stop() {
      await watcher?.stop();
    },
    health() {
      return watcher ? { BITCOIN: watcher.health() } : {};
    },
    watcher: () => watcher,
  };
}
