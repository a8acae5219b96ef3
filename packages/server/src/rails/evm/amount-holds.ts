import { decimalToScaled, scaledToDecimal } from '@cryptocheckout/core';
import type { HoldScope, LiveRailRepository } from '../../db/live-rail-repository.js';
import { RailUnavailable } from '../payment-rail-provider.js';

/**
 * Largest tag added to a due amount, in the token's base units: with 6-decimal stablecoins the
 * buyer pays at most 0.009999 more, under a cent, and one wallet can have 9 999 open checkouts of
 * the same amount at once.
 */
export const MAX_AMOUNT_TAG = 9999n;

/**
 * Gives each open live checkout an exact amount no other open checkout to the same wallet, asset
 * and network asks for, so a transfer's amount alone says which checkout it pays
 * (docs/live-mode.md "Exact amounts").
 */
export class AmountHolds {
  /** Allocations under way per hold scope in this process, run one after another. */
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly repository: LiveRailRepository,
    private readonly clock: () => Date,
  ) {}

  /**
   * The amount a transaction asks for by a rail: `dueAmount` plus the smallest free tag of 1 to
   * {@link MAX_AMOUNT_TAG} base units, held until `holdUntil`. The same on every call.
   * @throws RailUnavailable when every tag of that amount is held.
   */
  async amountFor(request: {
    transactionCode: string;
    paymentMethod: string;
    scope: HoldScope;
    decimals: number;
    dueAmount: string;
    holdUntil: string;
  }): Promise<string> {
    // Callers of one process take turns per wallet, so a rush of checkouts of one amount does not
    // race for the same free tag; the database still arbitrates between server nodes.
    const key = `${request.scope.network}:${request.scope.asset}:${request.scope.walletAddress}`;
    const previous = this.queues.get(key) ?? Promise.resolve();
    const turn = previous.then(
      () => this.allocate(request),
      () => this.allocate(request),
    );
    this.queues.set(key, turn);
    try {
      return await turn;
    } finally {
      if (this.queues.get(key) === turn) this.queues.delete(key);
    }
  }

  private async allocate(request: Parameters<AmountHolds['amountFor']>[0]): Promise<string> {
    const held = await this.repository.holdOf(request.transactionCode, request.paymentMethod);
    if (held) return held;
    const base = decimalToScaled(request.dueAmount, request.decimals);
    const now = this.clock().toISOString();
    let taken = await this.repository.heldAmounts(request.scope, base + 1n, base + MAX_AMOUNT_TAG, now);
    // Tags only go up: a tag another checkout took between the read and the insert stays held, so
    // many checkouts of one amount at once each settle on their own tag instead of giving up.
    for (let tag = 1n; tag <= MAX_AMOUNT_TAG; tag++) {
      if (taken.has(base + tag)) continue;
      const amount = scaledToDecimal(base + tag, request.decimals);
      const stored = await this.repository.tryHold(
        {
          network: request.scope.network,
          asset: request.scope.asset,
          wallet_address: request.scope.walletAddress,
          amount_base_units: (base + tag).toString(),
          amount,
          transaction_code: request.transactionCode,
          payment_method: request.paymentMethod,
          held_until: request.holdUntil,
        },
        now,
      );
      if (stored) return amount;
      // The insert also fails when a concurrent request for this transaction held an amount first.
      const mine = await this.repository.holdOf(request.transactionCode, request.paymentMethod);
      if (mine) return mine;
      taken = await this.repository.heldAmounts(request.scope, base + 1n, base + MAX_AMOUNT_TAG, now);
    }
    throw new RailUnavailable(
      `Too many open checkouts ask ${request.dueAmount} ${request.scope.asset} of this wallet right now; try again in a few minutes.`,
    );
  }
}
