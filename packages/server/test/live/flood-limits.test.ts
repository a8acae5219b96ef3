import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POLYGON_WALLET, startTestServer, type TestServer } from '../helpers.js';
import { liveCheckoutBody, liveOptions } from './live-helpers.js';
import { type LocalChain, startLocalChain } from './local-chain.js';

// Direct mode's door limits (docs/live-mode.md "Floods and limits"), small so a test stays short:
// 3 new holds a minute per client address, 5 per price of one wallet.
const PER_CLIENT = 3;
const PER_PRICE = 5;

let chain: LocalChain;
let server: TestServer;
/** Added to the real time: the limits' minute passes without waiting, the watcher still runs. */
let clockOffsetMs = 0;

beforeAll(async () => {
  chain = await startLocalChain();
  const usdc = await chain.deployToken('USDC', 6);
  server = await startTestServer({
    ...liveOptions(chain, usdc),
    newHoldLimits: { perClientPerMinute: PER_CLIENT, perPricePerMinute: PER_PRICE },
    clock: () => new Date(Date.now() + clockOffsetMs),
    // Requests through "the proxy" (127.0.0.60) are counted by their X-Forwarded-For address.
    trustProxy: '127.0.0.60',
  });
});
afterAll(async () => {
  await server?.dispose();
  await chain?.close();
});

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  json: {
    data: { amount: string };
    error: { code: string; message: string; retry_after?: number };
  };
}

/** A GET from a chosen loopback address (127.0.0.0/8 is all local on Linux and macOS). */
function getFrom(localAddress: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const options = { localAddress, agent: false, headers };
    const outgoing = httpRequest(`${server.url}${path}`, options, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, json: JSON.parse(text) }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** Opens a live checkout of `fiatAmount` EUR (checkouts themselves are not limited). */
async function openCheckout(fiatAmount: string, walletAddress?: string): Promise<string> {
  const body = liveCheckoutBody({ fiat_amount: fiatAmount });
  const customer = { ...body.customer, wallet_address: walletAddress ?? body.customer.wallet_address };
  return (await server.client.createCheckout({ ...body, customer })).transaction_code;
}

const linkFrom = (localAddress: string, code: string) =>
  getFrom(localAddress, `/api/payment_link?transaction_code=${code}&payment_method=usdc_polygon`);

describe('door limits on new amount holds in direct live mode', () => {
  it('answers 429 with Retry-After once one address asked for its minute’s new holds; repeats and other addresses go on', async () => {
    const codes = await Promise.all(['1', '2', '3', '4', '5'].map(() => openCheckout('40.00')));
    const flooder = '127.0.0.21';
    const held: string[] = [];
    for (const code of codes.slice(0, PER_CLIENT)) {
      const answer = await linkFrom(flooder, code);
      expect(answer.status).toBe(200);
      held.push(answer.json.data.amount);
    }
    expect(new Set(held).size).toBe(PER_CLIENT);

    const refused = await linkFrom(flooder, codes[3]!);
    expect(refused.status).toBe(429);
    expect(refused.json.error).toEqual({
      code: 'rate_limited',
      message: `Too many new payment requests from your address (at most ${PER_CLIENT} a minute); try again in 20 s.`,
      retry_after: 20,
    });
    expect(refused.headers['retry-after']).toBe('20');

    // Asking again for instructions already handed out is never limited, and gives the same amount.
    const repeat = await linkFrom(flooder, codes[0]!);
    expect(repeat.status).toBe(200);
    expect(repeat.json.data.amount).toBe(held[0]);

    // A buyer at another address is not held back by the flood.
    const buyer = await linkFrom('127.0.0.22', codes[3]!);
    expect(buyer.status).toBe(200);
    expect(held).not.toContain(buyer.json.data.amount);

    // Once the advertised wait has passed, the flooding address gets one more.
    clockOffsetMs += 20_000;
    expect((await linkFrom(flooder, codes[4]!)).status).toBe(200);
  });

  it('limits one price of one wallet for every address, and no other price or wallet', async () => {
    const codes = await Promise.all(Array.from({ length: PER_PRICE + 1 }, () => openCheckout('30.00')));
    for (const [index, code] of codes.slice(0, PER_PRICE).entries()) {
      expect((await linkFrom(`127.0.0.${31 + index}`, code)).status).toBe(200);
    }
    const refused = await linkFrom('127.0.0.40', codes[PER_PRICE]!);
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe('rate_limited');
    expect(refused.json.error.message).toMatch(
      new RegExp(
        `^Too many new checkouts ask \\S+ USDC of this wallet \\(at most ${PER_PRICE} a minute\\); try again in 12 s\\.$`,
      ),
    );
    expect(refused.json.error.retry_after).toBe(12);
    expect(refused.headers['retry-after']).toBe('12');

    // The same address, another price of the same wallet, and the same price of another wallet.
    expect((await linkFrom('127.0.0.40', await openCheckout('31.00'))).status).toBe(200);
    expect((await linkFrom('127.0.0.40', await openCheckout('30.00', POLYGON_WALLET))).status).toBe(200);
  });

  it('counts clients behind a trusted proxy by their X-Forwarded-For address', async () => {
    const codes = await Promise.all(Array.from({ length: PER_CLIENT + 2 }, () => openCheckout('50.00')));
    const viaProxy = (client: string, code: string) =>
      getFrom('127.0.0.60', `/api/payment_link?transaction_code=${code}&payment_method=usdc_polygon`, {
        'x-forwarded-for': client,
      });
    for (const code of codes.slice(0, PER_CLIENT))
      expect((await viaProxy('198.51.100.7', code)).status).toBe(200);
    expect((await viaProxy('198.51.100.7', codes[PER_CLIENT]!)).status).toBe(429);
    // Another buyer behind the same proxy has a budget of their own.
    expect((await viaProxy('198.51.100.8', codes[PER_CLIENT]!)).status).toBe(200);
    // An untrusted peer's X-Forwarded-For is not believed: it is counted as itself.
    for (const client of ['198.51.100.9', '198.51.100.10', '198.51.100.11']) {
      const code = await openCheckout('51.00');
      const answer = await getFrom(
        '127.0.0.61',
        `/api/payment_link?transaction_code=${code}&payment_method=usdc_polygon`,
        {
          'x-forwarded-for': client,
        },
      );
      expect(answer.status).toBe(200);
    }
    const spoofed = await getFrom(
      '127.0.0.61',
      `/api/payment_link?transaction_code=${codes[PER_CLIENT + 1]!}&payment_method=usdc_polygon`,
      { 'x-forwarded-for': '198.51.100.12' },
    );
    expect(spoofed.status).toBe(429);
  });
});
