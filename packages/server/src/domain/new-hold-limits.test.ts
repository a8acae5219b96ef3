import { describe, expect, it } from 'vitest';
import { clientKeyOf, MinuteBudget, NewHoldLimits, RateLimited } from './new-hold-limits.js';

const START = Date.parse('2026-11-01T10:00:00.000Z');

describe('MinuteBudget', () => {
  it('admits a burst of perMinute, then one every 60/perMinute seconds', () => {
    const budget = new MinuteBudget(10);
    for (let index = 0; index < 10; index++) {
      expect(budget.waitMs('a', START)).toBe(0);
      budget.take('a', START);
    }
    expect(budget.waitMs('a', START)).toBe(6000);
    expect(budget.waitMs('a', START + 5999)).toBe(1);
    expect(budget.waitMs('a', START + 6000)).toBe(0);
    // Other keys have their own budget.
    expect(budget.waitMs('b', START)).toBe(0);
    // After a quiet minute the whole burst is back.
    budget.take('a', START + 6000);
    for (let index = 0; index < 10; index++) {
      expect(budget.waitMs('a', START + 66_000)).toBe(0);
      budget.take('a', START + 66_000);
    }
    expect(budget.waitMs('a', START + 66_000)).toBeGreaterThan(0);
  });
});

describe('NewHoldLimits', () => {
  const price = { network: 'POLYGON', asset: 'USDC', walletAddress: '0xAbC', dueAmount: '25.000000' };

  it('refuses a client over its limit with the seconds to wait, and counts nothing for the refusal', () => {
    let now = START;
    const limits = new NewHoldLimits({ perClientPerMinute: 2, perPricePerMinute: 100 }, () => new Date(now));
    limits.admit({ ...price, clientIp: '192.0.2.1' });
    limits.admit({ ...price, clientIp: '192.0.2.1' });
    const refusal = captured(() => limits.admit({ ...price, clientIp: '192.0.2.1' }));
    expect(refusal).toBeInstanceOf(RateLimited);
    expect(refusal).toMatchObject({ code: 'rate_limited', httpStatus: 429, retryAfterSeconds: 30 });
    expect(refusal!.message).toBe(
      'Too many new payment requests from your address (at most 2 a minute); try again in 30 s.',
    );
    // Another address is not held back by the first one's flood.
    limits.admit({ ...price, clientIp: '192.0.2.2' });
    now = START + 30_000;
    limits.admit({ ...price, clientIp: '192.0.2.1' });
  });

  it('refuses a price over its limit for every client, and leaves other prices and wallets alone', () => {
    let now = START;
    const limits = new NewHoldLimits({ perClientPerMinute: 100, perPricePerMinute: 3 }, () => new Date(now));
    for (const clientIp of ['192.0.2.1', '192.0.2.2', '192.0.2.3']) limits.admit({ ...price, clientIp });
    const refusal = captured(() => limits.admit({ ...price, clientIp: '192.0.2.4' }));
    expect(refusal).toMatchObject({ code: 'rate_limited', retryAfterSeconds: 20 });
    expect(refusal!.message).toBe(
      'Too many new checkouts ask 25.000000 USDC of this wallet (at most 3 a minute); try again in 20 s.',
    );
    // The wallet's case does not make it another price.
    expect(
      captured(() => limits.admit({ ...price, walletAddress: '0xabc', clientIp: '192.0.2.5' })),
    ).toBeInstanceOf(RateLimited);
    limits.admit({ ...price, dueAmount: '25.010000', clientIp: '192.0.2.4' });
    limits.admit({ ...price, walletAddress: '0xdef', clientIp: '192.0.2.4' });
    limits.admit({ ...price, asset: 'USDT', clientIp: '192.0.2.4' });
    now = START + 20_000;
    limits.admit({ ...price, clientIp: '192.0.2.4' });
  });

  it('counts a refused price against neither limit, and 0 turns a limit off', () => {
    const limits = new NewHoldLimits({ perClientPerMinute: 1, perPricePerMinute: 0 }, () => new Date(START));
    limits.admit({ ...price, clientIp: '192.0.2.1' });
    expect(captured(() => limits.admit({ ...price, clientIp: '192.0.2.1' }))).toBeInstanceOf(RateLimited);
    // No per-price limit: a thousand other addresses all get holds of the same price.
    for (let index = 0; index < 1000; index++)
      limits.admit({ ...price, clientIp: `10.0.${index >> 8}.${index & 255}` });
    // Calls from inside the server carry no address and meet only the price limit.
    limits.admit({ ...price, clientIp: undefined });
  });
});

describe('clientKeyOf', () => {
  it('counts IPv4 addresses alone and IPv6 addresses by their /64', () => {
    expect(clientKeyOf('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKeyOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientKeyOf('2001:db8:0:12:aaaa::1')).toBe('2001:db8:0:12::/64');
    expect(clientKeyOf('2001:0db8:0000:0012:ffff:0:0:2')).toBe('2001:db8:0:12::/64');
    expect(clientKeyOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientKeyOf('::1')).toBe('0:0:0:0::/64');
    expect(clientKeyOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });
});

function captured(action: () => void): (Error & { retryAfterSeconds?: number }) | undefined {
  try {
    action();
    return undefined;
  } catch (error) {
    return error as Error;
  }
}
