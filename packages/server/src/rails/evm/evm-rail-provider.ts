import { checkoutSalt, depositAddress, expectedFactoryCode } from '@cryptocheckout/contracts';
import { getNetwork } from '@cryptocheckout/core';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { getAddress, type Hex } from 'viem';
import { DepositRepository } from '../../db/deposit-repository.js';
import { ForwardRepository } from '../../db/forward-repository.js';
import { LiveRailRepository } from '../../db/live-rail-repository.js';
import type { DatabaseSchema } from '../../db/schema.js';
import type { Rail } from '../catalog.js';
import {
  FIAT_NOT_IN_LIVE_MODE,
  type MerchantWallet,
  type PaymentRailProvider,
  type RailAvailability,
  walletMismatch,
} from '../payment-rail-provider.js';
import { AmountHolds } from './amount-holds.js';
import type { EvmNetworkConfig, WatchedToken } from './evm-networks.js';
import { EvmWatcher } from './evm-watcher.js';
import { Forwarder, type ForwarderOptions } from './forwarder.js';
import { SweeperWallet } from './sweeper-wallet.js';

/** Deposit mode's settings: the sweeper's key and how forwards are sent. */
export interface DepositSettings {
  /** The sweeper's private key (gas only). */
  sweeperKey: Hex;
  /** This node's name in the forwarding lease. */
  holder: string;
  forwarder?: ForwarderOptions;
}

/**
 * Live mode on EVM chains, non-custodial. Direct mode: the buyer pays the merchant's own wallet an
 * exact amount that tells the checkout apart (docs/live-mode.md). Deposit mode, on a network with a
 * DepositFactory: each checkout has its own forwarder address, any amount there is the checkout's,
 * and confirmed deposits are forwarded to the merchant (docs/deposit-mode.md). A watcher per
 * network reports the transfers.
 */
export function evmRailProvider(dependencies: {
  db: Kysely<DatabaseSchema>;
  networks: readonly EvmNetworkConfig[];
  clock: () => Date;
  logger: Logger;
  deposits?: DepositSettings;
}): PaymentRailProvider & { watchers(): ReadonlyMap<string, EvmWatcher> } {
  const { networks, clock, logger } = dependencies;
  const repository = new LiveRailRepository(dependencies.db);
  const depositRepository = new DepositRepository(dependencies.db);
  const forwardRepository = new ForwardRepository(dependencies.db);
  const holds = new AmountHolds(repository, clock);
  /** Deposit networks whose factory is not the compiled DepositFactory: why, for buyers and the operator. */
  const factoryProblems = new Map<string, string>();
  const byNetwork = new Map(networks.map((network) => [network.network as string, network]));
  const watchers = new Map<string, EvmWatcher>();

  const tokenOf = (rail: Rail): { config: EvmNetworkConfig; token: WatchedToken } | undefined => {
    const config = byNetwork.get(rail.network ?? '');
    const token = config?.tokens.find((each) => each.asset === rail.asset);
    return config && token ? { config, token } : undefined;
  };

  const availability = (rail: Rail, wallet?: MerchantWallet): RailAvailability => {
    const networkName = getNetwork(rail.network ?? '')?.name ?? rail.network;
    const mismatch = walletMismatch(rail, wallet);
    if (mismatch) return mismatch;
    if (rail.kind === 'fiat') return FIAT_NOT_IN_LIVE_MODE;
    if (!tokenOf(rail)) {
      return {
        available: false,
        reason: `Not offered: this server does not watch ${rail.asset} on ${networkName}.`,
      };
    }
    if (factoryProblems.has(rail.network!)) {
      return { available: false, reason: `Not offered right now: ${networkName} cannot take deposits.` };
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
      if (target.config.depositFactory) {
        const salt = checkoutSalt(transactionCode);
        const address = depositAddress({
          factory: getAddress(target.config.depositFactory),
          merchant: getAddress(wallet.address),
          salt,
        });
        await depositRepository.saveForwarder({
          network: target.config.network,
          address: address.toLowerCase(),
          transaction_code: transactionCode,
          payment_method: rail.slug,
          merchant: wallet.address.toLowerCase(),
          salt,
          factory: target.config.depositFactory,
          created_at: clock().toISOString(),
        });
        // Any amount counts here; the page asks for what is still due.
        return { address, amount: dueAmount };
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
    paysOutByForward(wallet) {
      return byNetwork.get(wallet.network.toUpperCase())?.depositFactory !== undefined;
    },
    sharesAmountPool(wallet) {
      const config = byNetwork.get(wallet.network.toUpperCase());
      return config !== undefined && config.depositFactory === undefined;
    },
    tokenOverride(rail) {
      const target = tokenOf(rail);
      return target && { contract: getAddress(target.token.contract), chainId: target.config.chainId };
    },
    fiatRedirectUrl() {
      throw new Error('Fiat rails are not offered in live mode.');
    },
    async start(sink, refunds) {
      for (const config of networks) {
        const depositMode = config.depositFactory !== undefined;
        const watcher = new EvmWatcher(
          config,
          repository,
          sink,
          clock,
          logger,
          depositMode ? depositRepository : undefined,
          refunds,
        );
        watchers.set(config.network, watcher);
        if (config.depositFactory && dependencies.deposits) {
          await checkFactory(watcher, config.depositFactory, config.network);
          watcher.attachForwarder(
            new Forwarder(
              {
                config: { ...config, depositFactory: config.depositFactory },
                client: watcher.client,
                wallet: new SweeperWallet(watcher.client, dependencies.deposits.sweeperKey, config.chainId),
                deposits: depositRepository,
                forwards: forwardRepository,
                unconfirmedDeposits: () => watcher.confirmer.confirmingDeposits(),
                clock,
                logger,
                holder: dependencies.deposits.holder,
              },
              dependencies.deposits.forwarder,
            ),
          );
        }
        watcher.start();
      }
    },
    async stop() {
      await Promise.all([...watchers.values()].map((watcher) => watcher.stop()));
    },
    health() {
      return Object.fromEntries(
        [...watchers].map(([network, watcher]) => [
          network,
          {
            ...watcher.health(),
            ...(factoryProblems.has(network) ? { depositFactoryProblem: factoryProblems.get(network) } : {}),
          },
        ]),
      );
    },
    watchers: () => watchers,
  };

  /**
   * Checks the configured factory is the DepositFactory this server was built with. A wrong address
   * would give buyers addresses nobody can forward from; the network then takes no deposits, and
   * the reason is in `/api/health` and the log. An unreachable node is retried by the watcher.
   */
  async function checkFactory(watcher: EvmWatcher, factory: string, network: string): Promise<void> {
    let code: string | undefined;
    try {
      code = await watcher.client.getCode({ address: getAddress(factory) });
    } catch (error) {
      logger.warn(
        { network, err: (error as Error).message },
        'cannot read the deposit factory yet; checking again on the next start',
      );
      return;
    }
    if (code?.toLowerCase() !== expectedFactoryCode(getAddress(factory)).toLowerCase()) {
      const problem = `The contract at ${factory} on ${network} is not this server's DepositFactory (its code differs or it is not deployed); deploy one with cryptocheckout-server deploy-factory and pass its address to --deposit-factory.`;
      factoryProblems.set(network, problem);
      logger.error({ network }, problem);
    }
  }
}
