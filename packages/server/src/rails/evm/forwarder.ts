import { compiledContracts } from '@cryptocheckout/contracts';
import type { Logger } from 'pino';
import { type Hex, type PublicClient, parseEventLogs } from 'viem';
import type { DepositRepository } from '../../db/deposit-repository.js';
import type { ForwardRepository, ForwardRow } from '../../db/forward-repository.js';
import type { EvmNetworkConfig } from './evm-networks.js';
import { codesOf, type ForwarderHealth, type StoredItem } from './forward-records.js';
import { ForwardSender } from './forward-sender.js';
import type { SweeperWallet } from './sweeper-wallet.js';

/** What a forwarder works with: its network, its node, the sweeper, the records. */
export interface ForwarderDependencies {
  config: EvmNetworkConfig & { depositFactory: string };
  client: PublicClient;
  wallet: SweeperWallet;
  deposits: DepositRepository;
  forwards: ForwardRepository;
  /** `address:token` keys of deposits still confirming (their address waits with its forward). */
  unconfirmedDeposits: () => Promise<Set<string>>;
  clock: () => Date;
  logger: Logger;
  /** This server node's name in the sending lease. */
  holder: string;
}

/** How forwards are sent; the defaults suit a public network, tests shorten them. */
export interface ForwarderOptions {
  /** Deposits per forward transaction (default 50). */
  batchSize?: number;
  /** A forward not mined after this long is sent again with higher fees (default 120 s). */
  bumpAfterMs?: number;
  /** A sent forward is handed to the node again at most this often until mined (default 30 s). */
  resendEveryMs?: number;
  /** How long this node keeps the right to send forwards on a network without renewing it (default 60 s). */
  leaseMs?: number;
}

/**
 * Forwards confirmed deposits to the merchants' wallets through the DepositFactory, one forward in
 * flight per network: stored (signed) before it is sent, sent again until mined, fee-bumped when
 * stuck, followed to its confirmation and undone by a reorganisation. A deposit is carried by at
 * most one live forward; and since a forwarder pays out its balance, a second forward of the same
 * deposit moves nothing. docs/deposit-mode.md "Forwards".
 */
export class Forwarder {
  private readonly options: Required<ForwarderOptions>;
  private readonly sender: ForwardSender;
  private readonly state: ForwarderHealth;

  constructor(
    private readonly deps: ForwarderDependencies,
    options: ForwarderOptions = {},
  ) {
    this.options = {
      batchSize: options.batchSize ?? 50,
      bumpAfterMs: options.bumpAfterMs ?? 120_000,
      resendEveryMs: options.resendEveryMs ?? 30_000,
      leaseMs: options.leaseMs ?? 60_000,
    };
    this.state = {
      sweeper: deps.wallet.address,
      sweeperBalanceWei: null,
      needsGas: null,
      depositsWaiting: 0,
      forwardsInFlight: 0,
      forwardsSent: 0,
      sending: false,
      lastError: null,
    };
    this.sender = new ForwardSender(deps, this.options.batchSize, this.state);
  }

  /**
   * Gives up the right to send forwards when this node stops normally, so the next node (or this
   * one restarted) sends at once rather than after the lease runs out. A failure is only logged.
   */
  async stop(): Promise<void> {
    if (!this.state.sending) return;
    this.state.sending = false;
    await this.deps.forwards
      .releaseLease(this.deps.config.network, this.deps.holder)
      .catch((error: Error) =>
        this.deps.logger.warn(
          { network: this.deps.config.network, err: error.message },
          'could not release the forwarding lease',
        ),
      );
  }

  health(): ForwarderHealth {
    return { ...this.state };
  }

  /**
   * One step at chain head `head`: follows the forwards in flight, then sends the next one when
   * none is being sent. Errors are kept for `/api/health` and logged; watching goes on.
   */
  async step(head: bigint): Promise<void> {
    try {
      const now = this.deps.clock();
      const until = new Date(now.getTime() + this.options.leaseMs).toISOString();
      this.state.sending = await this.deps.forwards.acquireLease(
        this.deps.config.network,
        this.deps.holder,
        now.toISOString(),
        until,
      );
      if (!this.state.sending) return;
      const inFlight = await this.deps.forwards.inFlight(this.deps.config.network);
      let sending = false;
      for (const forward of inFlight) {
        const state = await this.follow(forward, head);
        if (state === 'sending') sending = true;
      }
      this.state.forwardsInFlight = (await this.deps.forwards.inFlight(this.deps.config.network)).length;
      if (!sending) await this.sender.sendNext();
      this.state.lastError = null;
    } catch (error) {
      const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
      if (message !== this.state.lastError) {
        this.deps.logger.warn(
          { network: this.deps.config.network, err: message },
          'forwarder step failed; retrying',
        );
      }
      this.state.lastError = message;
    }
  }

  /** Moves one forward on: mined, confirmed, undone by a reorganisation, failed, or sent again. */
  private async follow(forward: ForwardRow, head: bigint): Promise<string> {
    const now = this.deps.clock().toISOString();
    if (forward.state === 'mined') {
      const blockNumber = BigInt(String(forward.block_number));
      const block = await this.deps.client.getBlock({ blockNumber }).catch(() => undefined);
      if (block?.hash !== forward.block_hash) {
        this.deps.logger.warn(
          { network: this.deps.config.network, forward: forward.forward_id },
          'forward left the chain in a reorganisation; sending it again',
        );
        await this.deps.forwards.update(forward.forward_id, {
          state: 'sending',
          tx_hash: null,
          block_number: null,
          block_hash: null,
          updated_at: now,
        });
        return 'sending';
      }
      if (head - blockNumber + 1n >= BigInt(this.deps.config.confirmations)) await this.confirm(forward);
      return 'mined';
    }
    const attempts = await this.deps.forwards.attempts(forward.forward_id);
    // The sweeper's nonce in a block `confirmations` deep, read before the receipts: a nonce used that
    // deep stays used, and an attempt of ours mined there has its receipt found below. (A shallower
    // read could be undone by a reorganisation between the two reads.)
    const finalBlock = head - BigInt(this.deps.config.confirmations) + 1n;
    const finalNonce = finalBlock >= 0n ? await this.deps.wallet.minedNonce(finalBlock) : 0;
    for (const attempt of [...attempts].reverse()) {
      const receipt = await this.deps.wallet.receipt(attempt.tx_hash as Hex);
      if (!receipt) continue;
      if (receipt.status !== 'success') {
        await this.fail(forward, `forward transaction ${attempt.tx_hash} reverted`);
        return 'failed';
      }
      await this.deps.forwards.update(forward.forward_id, {
        state: 'mined',
        tx_hash: attempt.tx_hash,
        block_number: receipt.blockNumber,
        block_hash: receipt.blockHash,
        gas_used: receipt.gasUsed,
        updated_at: now,
      });
      return 'mined';
    }
    if (finalNonce > Number(forward.nonce)) {
      // Its nonce was used and none of its attempts has a receipt: the sweeper key sent something else.
      await this.fail(forward, `nonce ${forward.nonce} was used by another transaction of the sweeper`);
      return 'failed';
    }
    const latest = attempts.at(-1)!;
    if (Date.now() - Date.parse(latest.signed_at) >= this.options.bumpAfterMs) {
      await this.sender.bump(forward, latest);
    } else if (Date.now() - (this.sender.lastSent.get(latest.tx_hash) ?? 0) >= this.options.resendEveryMs) {
      await this.sender.send(latest.tx_hash, latest.raw_transaction as Hex);
    }
    return 'sending';
  }

  /** Final: deposits whose token refused the forward wait again; the checkouts' payouts are refreshed. */
  private async confirm(forward: ForwardRow): Promise<void> {
    const items = JSON.parse(forward.items) as StoredItem[];
    const receipt = await this.deps.wallet.receipt(forward.tx_hash as Hex);
    const failed = new Set(
      parseEventLogs({
        abi: compiledContracts().DepositFactory.abi,
        logs: receipt?.logs ?? [],
        eventName: 'ForwardFailed',
      }).map(
        (log) =>
          `${String((log.args as { depositAddress: string }).depositAddress).toLowerCase()}:${String((log.args as { token: string }).token).toLowerCase()}`,
      ),
    );
    const refused = items.filter((item) => failed.has(`${item.address}:${item.token}`));
    await this.deps.deposits.transaction(async (scope) => {
      await this.deps.forwards.update(
        forward.forward_id,
        { state: 'confirmed', updated_at: this.deps.clock().toISOString() },
        scope,
      );
      for (const item of refused)
        await this.deps.deposits.assignForward(scope, this.deps.config.network, item.transfers, null);
    });
    if (refused.length > 0) {
      this.deps.logger.warn(
        {
          network: this.deps.config.network,
          forward: forward.forward_id,
          refused: refused.map((item) => item.address),
        },
        'a token refused to forward; those deposits wait for the operator',
      );
    }
    await this.deps.deposits.refreshPayouts(codesOf(items));
  }

  private async fail(forward: ForwardRow, reason: string): Promise<void> {
    const items = JSON.parse(forward.items) as StoredItem[];
    await this.deps.deposits.transaction(async (scope) => {
      await this.deps.forwards.update(
        forward.forward_id,
        { state: 'failed', error: reason, updated_at: this.deps.clock().toISOString() },
        scope,
      );
      // Every deposit it carried waits again, those that rode along with it included.
      await this.deps.deposits.releaseForward(scope, forward.forward_id);
    });
    this.deps.logger.warn(
      { network: this.deps.config.network, forward: forward.forward_id, reason },
      'forward failed; its deposits wait for the next one',
    );
    await this.deps.deposits.refreshPayouts(codesOf(items));
  }
}
