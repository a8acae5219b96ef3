/**
 * Guessing the operator token or a merchant key: after 10 wrong ones in a burst, the address waits
 * (429 with Retry-After), right credential or not; other addresses are not held up. Time is the
 * server's clock, moved by the test (docs/testing.md).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { checkoutBody, manualClock, startTestServer, type TestServer } from './helpers.js';
import { OPERATOR_TOKEN } from './operator-helpers.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.dispose();
  server = undefined;
});

/** A request from `client` (the server trusts X-Forwarded-For here, as behind a proxy). */
async function ask(path: string, client: string, token: string, body?: unknown) {
  const response = await fetch(`${server!.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'x-forwarded-for': client,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    json: (await response.json()) as { error: { code: string; message: string } },
  };
}

describe('wrong credentials', () => {
  it('make the operator API wait after 10 from one address, for that address only, until the minute passes', async () => {
    const clock = manualClock();
    server = await startTestServer({ operatorToken: OPERATOR_TOKEN, clock: clock.now, trustProxy: true });
    const guesser = '203.0.113.7';
    for (let guess = 0; guess < 10; guess += 1) {
      expect((await ask('/api/operator/overview', guesser, `wrong-token-${guess}-000000000000`)).status).toBe(
        401,
      );
    }
    const limited = await ask('/api/operator/overview', guesser, 'wrong-token-again-00000000000');
    expect(limited.status).toBe(429);
    expect(limited.json.error.code).toBe('rate_limited');
    expect(Number(limited.retryAfter)).toBeGreaterThanOrEqual(1);
    // The right token from the guessing address waits too; from the operator's own address it works.
    expect((await ask('/api/operator/overview', guesser, OPERATOR_TOKEN)).status).toBe(429);
    expect((await ask('/api/operator/overview', '198.51.100.20', OPERATOR_TOKEN)).status).toBe(200);

    clock.advanceSeconds(Number(limited.retryAfter));
    expect((await ask('/api/operator/overview', guesser, OPERATOR_TOKEN)).status).toBe(200);
  });

  it('count merchant-key guesses on the refund calls against the same address', async () => {
    const clock = manualClock();
    server = await startTestServer({ operatorToken: OPERATOR_TOKEN, clock: clock.now, trustProxy: true });
    const code = (await server.client.createCheckout(checkoutBody())).transaction_code;
    const body = { transaction_code: code, amount: '1', currency: 'USDC' };
    const guesser = '2001:db8:1:2::99';
    for (let guess = 0; guess < 6; guess += 1) {
      const key = `ccm_${String(guess).padStart(24, 'x')}`;
      expect((await ask('/api/refunds', guesser, key, body)).status).toBe(401);
    }
    // Wrong operator tokens on the operator API add up with the wrong keys: one budget per address
    // (and per /64 for IPv6).
    for (let guess = 0; guess < 4; guess += 1) {
      expect(
        (await ask('/api/operator/overview', '2001:db8:1:2::1234', `wrong-${guess}-0000000000000000`)).status,
      ).toBe(401);
    }
    const limited = await ask('/api/refunds', guesser, `ccm_${'y'.repeat(24)}`, body);
    expect(limited.status).toBe(429);
    expect(limited.json.error.message).toContain('Too many wrong credentials');
  });
});
