import { readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServerOptions } from '../src/index.js';

const FIXTURES = new URL('./fixtures/rates/', import.meta.url);
const recorded = (name: string) => readFileSync(new URL(name, FIXTURES), 'utf8');

export type FixtureSourceName = 'ecb' | 'exchangerate-api' | 'kraken' | 'coinbase' | 'bitstamp';
export const FIXTURE_SOURCES: readonly FixtureSourceName[] = [
  'ecb',
  'exchangerate-api',
  'kraken',
  'coinbase',
  'bitstamp',
];

/** How a loopback source answers: its format, a 503, past the client's timeout, or not its format. */
export type FixtureMode = 'ok' | 'down' | 'slow' | 'garbage';

/**
 * Loopback stand-ins for the public rate sources, each serving the fixture answer of its
 * documented format (fixtures/rates/) with the values and times a test sets.
 */
export interface RateSourceFixtures {
  url: string;
  /** `--rate-source` URLs pointing every source here. */
  sourceUrls: Record<FixtureSourceName, string>;
  mode: Record<FixtureSourceName, FixtureMode>;
  /** The ECB's day (YYYY-MM-DD) and EUR per unit of each currency (USD among them). */
  ecb: { day: string; eurRates: Record<string, string> };
  /** ExchangeRate-API: units per USD, and when it says it updated (defaults to the clock's now). */
  exchangeRateApi: { perUsd: Record<string, string>; updatedAt?: Date };
  /** USD per asset on each exchange. */
  exchanges: Record<'kraken' | 'coinbase' | 'bitstamp', Record<string, string>>;
  /** Requests each source received. */
  requests: Record<FixtureSourceName, number>;
  /** Sets every source's mode at once. */
  setAll(mode: FixtureMode): void;
  close(): Promise<void>;
}

/** Server options reading every rate source from `fixtures`, refreshed every `refreshSeconds`. */
export function liveRateOptions(fixtures: RateSourceFixtures, refreshSeconds = 0.1): ServerOptions['rates'] {
  return {
    source: 'live',
    sourceUrls: fixtures.sourceUrls,
    refreshSeconds: Object.fromEntries(FIXTURE_SOURCES.map((name) => [name, refreshSeconds])),
    requestTimeoutMs: 300,
    reloadIntervalMs: 50,
    retryAfterFailureMs: 50,
  };
}

/** Starts the loopback sources; `now` is the clock the exchanges' timestamps follow. */
export async function startRateSourceFixtures(
  now: () => Date = () => new Date(),
): Promise<RateSourceFixtures> {
  const slowAnswers = new Set<ServerResponse>();
  const state = {
    mode: Object.fromEntries(FIXTURE_SOURCES.map((name) => [name, 'ok'])) as Record<
      FixtureSourceName,
      FixtureMode
    >,
    ecb: {
      day: now().toISOString().slice(0, 10),
      eurRates: { USD: '1.25', GBP: '0.8', JPY: '160' } as Record<string, string>,
    },
    exchangeRateApi: {
      perUsd: { EUR: '0.8', GBP: '0.64', ARS: '1000', JPY: '128' } as Record<string, string>,
    } as {
      perUsd: Record<string, string>;
      updatedAt?: Date;
    },
    exchanges: {
      kraken: { BTC: '68000', ETH: '2400', SOL: '160', USDC: '1.0001', USDT: '1.0002' },
      coinbase: { BTC: '68100', ETH: '2410', SOL: '161', USDT: '1.0001' },
      bitstamp: { BTC: '68200', ETH: '2420', SOL: '162', USDC: '0.9999', USDT: '1.0003' },
    } as Record<'kraken' | 'coinbase' | 'bitstamp', Record<string, string>>,
    requests: Object.fromEntries(FIXTURE_SOURCES.map((name) => [name, 0])) as Record<
      FixtureSourceName,
      number
    >,
  };

  const bodies: Record<FixtureSourceName, (path: string) => string | undefined> = {
    ecb: () => ecbBody(state.ecb.day, state.ecb.eurRates),
    'exchangerate-api': () =>
      exchangeRateApiBody(state.exchangeRateApi.perUsd, state.exchangeRateApi.updatedAt ?? now()),
    kraken: () => krakenBody(state.exchanges.kraken),
    coinbase: (path) => {
      const product = /^\/products\/([A-Z]+)-USD\/ticker$/.exec(path)?.[1];
      const price = product ? state.exchanges.coinbase[product] : undefined;
      return price ? coinbaseBody(price, now()) : undefined;
    },
    bitstamp: () => bitstampBody(state.exchanges.bitstamp, now()),
  };

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://fixtures');
    const [, name, ...rest] = url.pathname.split('/');
    const source = FIXTURE_SOURCES.find((each) => each === name);
    if (!source) {
      response.writeHead(404).end();
      return;
    }
    state.requests[source] += 1;
    const mode = state.mode[source];
    if (mode === 'down') {
      response.writeHead(503, { 'content-type': 'text/plain' }).end('Service Unavailable');
      return;
    }
    if (mode === 'slow') {
      // Answers only when the fixtures close: far past any client's timeout.
      slowAnswers.add(response);
      return;
    }
    if (mode === 'garbage') {
      response.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Maintenance</body></html>');
      return;
    }
    const body = bodies[source](`/${rest.join('/')}`);
    if (body === undefined) {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"NotFound"}');
      return;
    }
    response.writeHead(200, { 'content-type': source === 'ecb' ? 'text/xml' : 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(state, {
    url,
    sourceUrls: {
      ecb: `${url}/ecb/stats/eurofxref/eurofxref-daily.xml`,
      'exchangerate-api': `${url}/exchangerate-api/v6/latest/USD`,
      kraken: `${url}/kraken/0/public/Ticker`,
      coinbase: `${url}/coinbase`,
      bitstamp: `${url}/bitstamp/api/v2/ticker/`,
    },
    setAll(mode: FixtureMode) {
      for (const name of FIXTURE_SOURCES) state.mode[name] = mode;
    },
    async close() {
      for (const response of slowAnswers) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

/** The recorded ECB file with another day and other rates. */
export function ecbBody(day: string, eurRates: Record<string, string>): string {
  const template = recorded('ecb-eurofxref-daily.xml');
  const lines = Object.entries(eurRates)
    .map(([currency, rate]) => `\t\t\t<Cube currency='${currency}' rate='${rate}'/>`)
    .join('\n');
  return template
    .replace(/<Cube time='[^']*'>/, `<Cube time='${day}'>`)
    .replace(/(<Cube time='[^']*'>\n)[\s\S]*?(\n\t\t<\/Cube>)/, `$1${lines}$2`);
}

/** The recorded ExchangeRate-API answer with other rates, updated at `updatedAt`, next update a day later. */
export function exchangeRateApiBody(perUsd: Record<string, string>, updatedAt: Date): string {
  const body = JSON.parse(recorded('exchangerate-api-latest-usd.json')) as Record<string, unknown>;
  const seconds = Math.floor(updatedAt.getTime() / 1000);
  body.time_last_update_unix = seconds;
  body.time_last_update_utc = updatedAt.toUTCString();
  body.time_next_update_unix = seconds + 86_400;
  // Numbers, as the source sends them.
  const rates = Object.entries({ USD: '1', ...perUsd }).map(([code, rate]) => `"${code}":${rate}`);
  return JSON.stringify(body).replace(/"rates":\{[^}]*\}/, `"rates":{${rates.join(',')}}`);
}

const KRAKEN_NAMES: Record<string, string> = {
  BTC: 'XXBTZUSD',
  ETH: 'XETHZUSD',
  SOL: 'SOLUSD',
  USDC: 'USDCUSD',
  USDT: 'USDTZUSD',
};

/** The recorded Kraken ticker with other last-trade prices; assets not listed are left out. */
export function krakenBody(prices: Record<string, string>): string {
  const body = JSON.parse(recorded('kraken-ticker.json')) as { result: Record<string, { c: string[] }> };
  const result: Record<string, { c: string[] }> = {};
  for (const [asset, price] of Object.entries(prices)) {
    const name = KRAKEN_NAMES[asset]!;
    result[name] = { ...body.result[name]!, c: [price, '0.01'] };
  }
  return JSON.stringify({ error: [], result });
}

/** The recorded Coinbase product ticker with another price, traded at `time`. */
export function coinbaseBody(price: string, time: Date): string {
  const body = JSON.parse(recorded('coinbase-product-ticker.json')) as Record<string, unknown>;
  return JSON.stringify({ ...body, price, time: time.toISOString() });
}

/** The recorded Bitstamp tickers with other USD prices at `time` (its other pairs kept). */
export function bitstampBody(prices: Record<string, string>, time: Date): string {
  const body = JSON.parse(recorded('bitstamp-tickers.json')) as Array<Record<string, string>>;
  const timestamp = String(Math.floor(time.getTime() / 1000));
  const others = body.filter((ticker) => !ticker.pair!.endsWith('/USD'));
  const template = body.find((ticker) => ticker.pair === 'BTC/USD')!;
  return JSON.stringify([
    ...Object.entries(prices).map(([asset, last]) => ({
      ...template,
      pair: `${asset}/USD`,
      last,
      timestamp,
    })),
    ...others,
  ]);
}
