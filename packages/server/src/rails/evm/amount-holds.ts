import { decimalToScaled, scaledToDecimal } from '@cryptocheckout/core';
import type { HoldScope, LiveRailRepository } from '../../db/live-rail-repository.js';
import { RailUnavailable } from '../payment-rail-provider.js';

/**
 * The tags added to a due amount, in the token's base units, tried in this order: the first tier
 * while any of it is free (with 6-decimal stablecoins the buyer pays at most 0.009999 more, under a
 * cent), the second only when all of the first is held (at most 0.099999 more). The door limits
 * let a flood take fewer holds of one price in a late window than both tiers have
 * (docs/live-mode.md "Floods and limits").
 */
export const AMOUNT_TAG_TIERS: readonly { first: bigint; last: bigint }[] = [
  { first: 1n, last: 9_999n },
  { first: 10_000n, last: 99_999n },
];

/** Largest tag added to a due amount, in base units: the end of the last tier. */
export const MAX_AMOUNT_TAG = 99_999n;

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
    /** The tag tiers in the asset's base units (Bitcoin's satoshis are worth more than a stablecoin's millionths). */
    private readonly tiers: readonly { first: bigint; last: bigint }[] = AMOUNT_TAG_TIERS,
  ) {}

  /**
   * The amount a transaction asks for by a rail: `dueAmount` plus the smallest free tag of
   * {@link AMOUNT_TAG_TIERS}, the first tier before the second, held until `holdUntil`. The same
   * on every call.
   * @throws RailUnavailable when every tag of that amount is held, saying when the first hold ends.
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
    for (const tier of this.tiers) {
      const amount = await this.allocateIn(request, base + tier.first, base + tier.last, now);
      if (amount) return amount;
    }
    const firstEnd = await this.repository.earliestHoldEnd(
      request.scope,
      base + 1n,
      base + this.tiers.at(-1)!.last,
      now,
    );
    throw new RailUnavailable(
      `Too many open checkouts ask ${request.dueAmount} ${request.scope.asset} of this wallet: every exact amount for it is held. The first is free again at ${firstEnd ?? now} (${untilText(now, firstEnd ?? now)}); try again then.`,
    );
  }

  /** The smallest free amount in [from, to] held for the request, or undefined when all are held. */
  private async allocateIn(
    request: Parameters<AmountHolds['amountFor']>[0],
    from: bigint,
    to: bigint,
    now: string,
  ): Promise<string | undefined> {
    let taken = await this.repository.heldAmounts(request.scope, from, to, now);
    // Amounts only go up: one another checkout took between the read and the insert stays held, so
    // many checkouts of one amount at once each settle on their own tag instead of giving up.
    for (let candidate = from; candidate <= to; candidate++) {
      if (taken.has(candidate)) continue;
      const amount = scaledToDecimal(candidate, request.decimals);
      const stored = await this.repository.tryHold(
        {
          network: request.scope.network,
          asset: request.scope.asset,
          wallet_address: request.scope.walletAddress,
          amount_base_units: candidate.toString(),
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
      taken = await this.repository.heldAmounts(request.scope, from, to, now);
    }
    return undefined;
  }
}

/** "in 24 h 59 min" from `now` to `later` (ISO times), for a buyer deciding whether to wait. */
function untilText(now: string, later: string): string {
  const minutes = Math.max(1, Math.ceil((Date.parse(later) - Date.parse(now)) / 60_000));
  return minutes < 60 ? `in ${minutes} min` : `in ${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
