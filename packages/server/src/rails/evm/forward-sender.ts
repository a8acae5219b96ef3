import { randomUUID } from 'node:crypto';
import type { Hex } from 'viem';
import type { WaitingDeposit } from '../../db/deposit-repository.js';
import type { ForwardRow } from '../../db/forward-repository.js';
import {
  codesOf,
  FORWARDED_ELSEWHERE,
  type ForwarderHealth,
  itemOf,
  type StoredItem,
} from './forward-records.js';
import type { ForwarderDependencies } from './forwarder.js';

/**
 * Makes and sends forwards: picks the confirmed deposits that wait, checks the sweeper can pay,
 * signs, stores the signed forward before handing it to the node, and signs fee-bumped
 * replacements of a stuck one. Writes what it finds into the forwarder's health.
 */
export class ForwardSender {
  /** When each signed attempt was last handed to the node (ms since epoch), in this process. */
  readonly lastSent = new Map<string, number>();

  constructor(
    private readonly deps: ForwarderDependencies,
    private readonly batchSize: number,
    private readonly state: ForwarderHealth,
  ) {}

  /** Signs, stores and sends a forward of the confirmed deposits that wait, when the sweeper can pay for it. */
  async sendNext(): Promise<void> {
    const waiting = await this.deps.deposits.waitingDeposits(this.deps.config.network, this.batchSize);
    // A deposit address with a transfer still confirming waits for it: the forward moves the whole balance.
    const confirming = await this.deps.unconfirmedDeposits();
    const ready = waiting.filter((deposit) => !confirming.has(`${deposit.address}:${deposit.tokenContract}`));
    this.state.depositsWaiting = waiting.length;
    if (ready.length === 0) return;
    const items: StoredItem[] = [];
    for (const deposit of ready) {
      const balance = await this.deps.wallet.tokenBalance(deposit.tokenContract, deposit.address);
      if (balance === 0n) await this.alreadyForwarded(deposit);
      else items.push(itemOf(deposit));
    }
    if (items.length === 0) return;
    const data = this.deps.wallet.batchCall(items);
    const gas = await this.deps.wallet.estimateGas(this.deps.config.depositFactory, data);
    const fees = await this.deps.wallet.currentFees();
    const needed = gas * fees.maxFeePerGas;
    const balance = await this.deps.wallet.balance();
    this.state.sweeperBalanceWei = String(balance);
    if (balance < needed) {
      if (!this.state.needsGas) {
        this.deps.logger.warn(
          {
            network: this.deps.config.network,
            sweeper: this.deps.wallet.address,
            balanceWei: String(balance),
            neededWei: String(needed),
          },
          'the sweeper cannot pay for a forward; deposits wait until it has gas',
        );
      }
      this.state.needsGas = { neededWei: String(needed), balanceWei: String(balance) };
      return;
    }
    this.state.needsGas = null;
    const nonce = await this.deps.wallet.pendingNonce();
    const signed = await this.deps.wallet.sign({
      factory: this.deps.config.depositFactory,
      data,
      nonce,
      gas,
      ...fees,
    });
    const forwardId = randomUUID();
    const now = this.deps.clock().toISOString();
    // Stored before it is sent: a restart in between finds it and sends it again.
    await this.deps.deposits.transaction(async (scope) => {
      await this.deps.forwards.create(
        scope,
        {
          forward_id: forwardId,
          network: this.deps.config.network,
          sweeper: this.deps.wallet.address.toLowerCase(),
          nonce,
          state: 'sending',
          items: JSON.stringify(items),
          created_at: now,
          updated_at: now,
          tx_hash: null,
          block_number: null,
          block_hash: null,
          gas_used: null,
          error: null,
        },
        {
          tx_hash: signed.hash,
          forward_id: forwardId,
          raw_transaction: signed.raw,
          max_fee_per_gas: String(signed.maxFeePerGas),
          max_priority_fee_per_gas: String(signed.maxPriorityFeePerGas),
          signed_at: now,
        },
      );
      await this.deps.deposits.assignForward(
        scope,
        this.deps.config.network,
        items.flatMap((item) => item.transfers),
        forwardId,
      );
    });
    this.deps.logger.info(
      { network: this.deps.config.network, forward: forwardId, txHash: signed.hash, deposits: items.length },
      'forwarding deposits to the merchants',
    );
    await this.send(signed.hash, signed.raw);
    this.state.forwardsSent++;
    await this.deps.deposits.refreshPayouts(codesOf(items));
  }

  /**
   * The deposit address holds none of the token any more: an earlier forward of ours carried it
   * (the deposit arrived before that forward was mined; it then follows that forward, through a
   * reorganisation too), or someone else triggered the forwarder, which can only have paid the
   * merchant.
   */
  private async alreadyForwarded(deposit: WaitingDeposit): Promise<void> {
    const carrier =
      (await this.deps.forwards.lastMinedFor(
        this.deps.config.network,
        deposit.address,
        deposit.tokenContract,
      )) ?? FORWARDED_ELSEWHERE;
    await this.deps.deposits.transaction((scope) =>
      this.deps.deposits.assignForward(scope, this.deps.config.network, deposit.transfers, carrier),
    );
    this.deps.logger.info(
      { network: this.deps.config.network, address: deposit.address, carrier },
      'deposit already left its address for the merchant',
    );
    await this.deps.deposits.refreshPayouts(codesOf([itemOf(deposit)]));
  }

  /** Signs a replacement with higher fees, stores it, then sends it. */
  async bump(
    forward: ForwardRow,
    latest: { max_fee_per_gas: string; max_priority_fee_per_gas: string; raw_transaction: string },
  ): Promise<void> {
    const items = JSON.parse(forward.items) as StoredItem[];
    const fees = await this.deps.wallet.bumpedFees({
      maxFeePerGas: BigInt(latest.max_fee_per_gas),
      maxPriorityFeePerGas: BigInt(latest.max_priority_fee_per_gas),
    });
    const data = this.deps.wallet.batchCall(items);
    const gas = await this.deps.wallet.estimateGas(this.deps.config.depositFactory, data);
    const signed = await this.deps.wallet.sign({
      factory: this.deps.config.depositFactory,
      data,
      nonce: Number(forward.nonce),
      gas,
      ...fees,
    });
    await this.deps.forwards.addAttempt({
      tx_hash: signed.hash,
      forward_id: forward.forward_id,
      raw_transaction: signed.raw,
      max_fee_per_gas: String(signed.maxFeePerGas),
      max_priority_fee_per_gas: String(signed.maxPriorityFeePerGas),
      signed_at: this.deps.clock().toISOString(),
    });
    this.deps.logger.info(
      { network: this.deps.config.network, forward: forward.forward_id, txHash: signed.hash },
      'forward not mined in time; sent again with higher fees',
    );
    await this.send(signed.hash, signed.raw);
  }

  async send(hash: string, raw: Hex): Promise<void> {
    await this.deps.wallet.broadcast(raw);
    this.lastSent.set(hash, Date.now());
  }
}
