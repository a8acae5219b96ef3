import { getNetwork } from '@cryptocheckout/core';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { getAddress } from 'viem';
import { LiveRailRepository } from '../../db/live-rail-repository.js';
import type { DatabaseSchema } from '../../db/schema.js';
import type { Rail } from '../catalog.js';
import type { MerchantWallet, PaymentRailProvider, RailAvailability } from '../payment-rail-provider.js';
import { AmountHolds } from './amount-holds.js';
import type { EvmNetworkConfig, WatchedToken } from './evm-networks.js';
import { EvmWatcher } from './evm-watcher.js';

/**
 * Live mode on EVM chains, non-custodial: the buyer pays the merchant's own wallet in the
 * merchant's settlement asset and network, an exact amount that tells the checkout apart, and a
 * watcher per network reports the transfer (docs/live-mode.md).
 */
export function evmRailProvider(dependencies: {
  db: Kysely<DatabaseSchema>;
  networks: readonly EvmNetworkConfig[];
  clock: () => Date;
  logger: Logger;
}): PaymentRailProvider & { watchers(): ReadonlyMap<string, EvmWatcher> } {
  const { networks, clock, logger } = dependencies;
  const repository = new LiveRailRepository(dependencies.db);
  const holds = new AmountHolds(repository, clock);
  const byNetwork = new Map(networks.map((network) => [network.network as string, network]));
  const watchers = new Map<string, EvmWatcher>();

  const tokenOf = (rail: Rail): { config: EvmNetworkConfig; token: WatchedToken } | undefined => {
    const config = byNetwork.get(rail.network ?? '');
    const token = config?.tokens.find((each) => each.asset === rail.asset);
    return config && token ? { config, token } : undefined;
  };

  const availability = (rail: Rail, wallet?: MerchantWallet): RailAvailability => {
    const networkName = getNetwork(rail.network ?? '')?.name ?? rail.network;
    // With the merchant's wallet known, the one reason that matters to the buyer comes first.
    if (
      wallet &&
      (wallet.network.toUpperCase() !== rail.network || wallet.asset.toUpperCase() !== rail.asset)
    ) {
      const walletNetwork = getNetwork(wallet.network.toUpperCase())?.name ?? wallet.network;
      return {
        available: false,
        reason: `Not offered: this merchant is paid in ${wallet.asset.toUpperCase()} on ${walletNetwork} only.`,
      };
    }
    if (rail.kind === 'fiat') {
      return {
        available: false,
        reason: 'Not offered in live mode: card and bank payments need a payment processor.',
      };
    }
    if (!tokenOf(rail)) {
      return {
        available: false,
        reason: `Not offered: this server does not watch ${rail.asset} on ${networkName}.`,
      };
    }
    if (watchers.get(rail.network!)?.usable === false) {
      return { available: false, reason: `Not offered right now: ${networkName} cannot be watched.` };
    }
    return { available: true };
  };

  return {
    availability,
    async paymentRequest({ transactionCode, rail, wallet, dueAmount, holdUntil }) {
      const target = tokenOf(rail);
      if (!target || !availability(rail, wallet).available) {
        throw new Error(`${rail.slug} is not payable for this transaction in live mode.`);
      }
      const amount = await holds.amountFor({
        transactionCode,
        paymentMethod: rail.slug,
        scope: { network: rail.network!, asset: rail.asset!, walletAddress: wallet.address.toLowerCase() },
        decimals: target.token.decimals,
        dueAmount,
        holdUntil,
      });
      return { address: wallet.address, amount };
    },
    tokenOverride(rail) {
      const target = tokenOf(rail);
      return target && { contract: getAddress(target.token.contract), chainId: target.config.chainId };
    },
    fiatRedirectUrl() {
      throw new Error('Fiat rails are not offered in live mode.');
    },
    async start(sink) {
      for (const config of networks) {
        const watcher = new EvmWatcher(config, repository, sink, clock, logger);
        watchers.set(config.network, watcher);
        watcher.start();
      }
    },
    async stop() {
      await Promise.all([...watchers.values()].map((watcher) => watcher.stop()));
    },
    health() {
      return Object.fromEntries([...watchers].map(([network, watcher]) => [network, watcher.health()]));
    },
    watchers: () => watchers,
  };
}
