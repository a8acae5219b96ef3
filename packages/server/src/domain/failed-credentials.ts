import type { Logger } from 'pino';
import { clientKeyOf, MinuteBudget, RateLimited } from './new-hold-limits.js';

/** Wrong credentials a client address may send a minute before it must wait (docs/api.md "Limits"). */
export const FAILED_CREDENTIALS_PER_MINUTE = 10;

/**
 * Wrong operator tokens and merchant keys per client address: after
 * {@link FAILED_CREDENTIALS_PER_MINUTE} in a burst, that address waits, right credential or not,
 * so a hand-picked token cannot be guessed at the speed of the network (3,000 wrong tokens take
 * five hours instead of two seconds). Only failures count, and only the failing address waits: an
 * attacker elsewhere cannot lock the operator out. In this process only.
 */
export class FailedCredentials {
  private readonly budget = new MinuteBudget(FAILED_CREDENTIALS_PER_MINUTE);

  constructor(
    private readonly clock: () => Date,
    private readonly logger: Logger,
  ) {}

  /**
   * Refuses a client address that sent too many wrong credentials lately.
   * @throws RateLimited with the seconds to wait.
   */
  assertMayTry(clientIp: string): void {
    const waitMs = this.budget.waitMs(clientKeyOf(clientIp), this.clock().getTime());
    if (waitMs === 0) return;
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    throw new RateLimited(
      `Too many wrong credentials from your address (at most ${FAILED_CREDENTIALS_PER_MINUTE} a minute); try again in ${seconds} s.`,
      seconds,
    );
  }

  /** Counts a wrong credential from `clientIp`; logs when the address has to wait from now on. */
  failed(clientIp: string, credential: 'operator token' | 'merchant key'): void {
    const key = clientKeyOf(clientIp);
    const nowMs = this.clock().getTime();
    this.budget.take(key, nowMs);
    if (this.budget.waitMs(key, nowMs) > 0) {
      this.logger.warn(
        { client: key, credential },
        'wrong credentials from one address: it waits before it may try again',
      );
    }
  }
}
