import { ServiceProblem } from './service-problem.js';

/**
 * A request refused because its caller or its price asked too often; the API answers 429
 * `rate_limited` with `Retry-After` and `retry_after` (docs/api.md).
 */
export class RateLimited extends ServiceProblem {
  /** Whole seconds, at least 1, after which the same request is admitted (if nothing else asks first). */
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds: number) {
    super('rate_limited', message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * Admissions per key at a steady `perMinute` a minute, with a burst of `perMinute` (the generic
 * cell rate algorithm: one timestamp per key, no timers). In this process only.
 */
export class MinuteBudget {
  /** Per key, when its budget is whole again (ms since the epoch); a passed time is a full budget. */
  private readonly fullAt = new Map<string, number>();
  private readonly intervalMs: number;
  private readonly burstMs: number;
  private nextPruneMs = 0;

  /** @param perMinute admissions a minute per key, at least 1. */
  constructor(readonly perMinute: number) {
    this.intervalMs = 60_000 / perMinute;
    this.burstMs = this.intervalMs * (perMinute - 1);
  }

  /** Milliseconds until `key` may be admitted at `nowMs`; 0 when it may be now. */
  waitMs(key: string, nowMs: number): number {
    const fullAt = Math.max(this.fullAt.get(key) ?? nowMs, nowMs);
    return Math.max(0, fullAt - nowMs - this.burstMs);
  }

  /** Counts one admission of `key` at `nowMs` (call after {@link waitMs} answered 0). */
  take(key: string, nowMs: number): void {
    this.fullAt.set(key, Math.max(this.fullAt.get(key) ?? nowMs, nowMs) + this.intervalMs);
    // Keys whose budget is whole again carry nothing: dropping them keeps a flood from many
    // addresses from growing the map past a minute's worth of keys.
    if (nowMs >= this.nextPruneMs) {
      this.nextPruneMs = nowMs + 60_000;
      for (const [each, at] of this.fullAt) if (at <= nowMs) this.fullAt.delete(each);
    }
  }
}

/** What a new amount hold is for: who asks, and which price of which wallet (docs/live-mode.md). */
export interface NewHoldRequest {
  /** The caller's address as the HTTP layer sees it; absent for calls from inside the server. */
  clientIp: string | undefined;
  network: string;
  asset: string;
  walletAddress: string;
  /** The due amount in the asset, as a decimal string. */
  dueAmount: string;
}

/**
 * The door before direct mode's amount pool: new holds per client address and per price a
 * minute. A flood from one address stops at its own limit; a flood from many addresses takes at
 * most one price's budget, so it cannot hold more amounts than the second tag tier has
 * (docs/live-mode.md "Floods and limits"). A limit of 0 is no limit.
 */
export class NewHoldLimits {
  private readonly perClient: MinuteBudget | undefined;
  private readonly perPrice: MinuteBudget | undefined;

  constructor(
    limits: { perClientPerMinute: number; perPricePerMinute: number },
    private readonly clock: () => Date,
  ) {
    this.perClient = limits.perClientPerMinute > 0 ? new MinuteBudget(limits.perClientPerMinute) : undefined;
    this.perPrice = limits.perPricePerMinute > 0 ? new MinuteBudget(limits.perPricePerMinute) : undefined;
  }

  /**
   * Counts a new hold against both limits, or counts nothing and refuses.
   * @throws RateLimited when the client or the price has used its minute's budget.
   */
  admit(request: NewHoldRequest): void {
    const nowMs = this.clock().getTime();
    const clientKey = request.clientIp === undefined ? undefined : clientKeyOf(request.clientIp);
    const priceKey = `${request.network}:${request.asset}:${request.walletAddress.toLowerCase()}:${request.dueAmount}`;
    const clientWait = clientKey && this.perClient ? this.perClient.waitMs(clientKey, nowMs) : 0;
    const priceWait = this.perPrice ? this.perPrice.waitMs(priceKey, nowMs) : 0;
    if (clientWait > 0) {
      const seconds = Math.max(1, Math.ceil(Math.max(clientWait, priceWait) / 1000));
      throw new RateLimited(
        `Too many new payment requests from your address (at most ${this.perClient!.perMinute} a minute); try again in ${seconds} s.`,
        seconds,
      );
    }
    if (priceWait > 0) {
      const seconds = Math.max(1, Math.ceil(priceWait / 1000));
      throw new RateLimited(
        `Too many new checkouts ask ${request.dueAmount} ${request.asset} of this wallet (at most ${this.perPrice!.perMinute} a minute); try again in ${seconds} s.`,
        seconds,
      );
    }
    if (clientKey) this.perClient?.take(clientKey, nowMs);
    this.perPrice?.take(priceKey, nowMs);
  }
}

/**
 * The unit an address limit counts: an IPv4 address, or the /64 network of an IPv6 address,
 * since one IPv6 host is usually given a whole /64 and could otherwise ask from each of them.
 */
export function clientKeyOf(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!ip.includes(':')) return ip;
  const [head = '', tail = ''] = ip.split('%', 1)[0]!.toLowerCase().split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = ip.includes('::') ? (tail === '' ? [] : tail.split(':')) : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array.from({ length: Math.max(0, missing) }, () => '0'), ...tailGroups];
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
