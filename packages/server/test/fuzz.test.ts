import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ERROR_CODES } from '@cryptocheckout/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutBody, startTestServer, type TestServer } from './helpers.js';
import { findPostgresBin, startPostgresCluster } from './postgres-cluster.js';
import { parseRaw, rawExchange } from './raw-http.js';

// Seeded: FUZZ_SEED=<n> replays a run; FUZZ_RUNS=<n> changes the number of HTTP requests per store.
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
const RAW_RUNS = Math.max(50, Math.round(RUNS / 40));
const CONCURRENCY = 8;

const bin = findPostgresBin();
if (!bin && process.env.CI)
  throw new Error('CI must test PostgreSQL: install the postgresql package (.ci/run does).');

interface FuzzRequest {
  method: string;
  path: string;
  query: string;
  contentType: string | null;
  body: string | null;
}

/** Strings that have broken servers: control characters, lone surrogates, numbers in disguise. */
const nastyText = fc.oneof(
  fc.constantFrom(
    '',
    '\u0000',
    'a\u0000b',
    '\u001f',
    '\u007f',
    '\r\n',
    '\ud800',
    '\udfff',
    '😀',
    '%00',
    '%zz',
    'null',
    'true',
    '-1',
    '0',
    '-0',
    '1e308',
    '1e400',
    '999999999999999',
    '999999999999999999',
    '0.001',
    'NaN',
    'Infinity',
    '../../etc/passwd',
    '<script>alert(1)</script>',
    "'; drop table transactions; --",
    '__proto__',
    'USD',
    'EUR',
    'KWD',
    'JPY',
    'eur',
    'usdc_polygon',
    'card',
    'btc_bitcoin',
    'POLYGON',
    'USDC',
  ),
  fc.string({ unit: 'binary', maxLength: 24 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.nat(3000).map((length) => 'x'.repeat(length)),
);

const hugeNumber = fc.constantFrom(
  1e308,
  -1e308,
  5e-324,
  1e18,
  Number.MAX_SAFE_INTEGER,
  -1,
  0,
  0.1 + 0.2,
  1e15,
  12.5,
);

const jsonish: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: nastyText },
  { weight: 2, arbitrary: hugeNumber },
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 3 }),
  fc.array(nastyText, { maxLength: 3 }),
  fc.dictionary(nastyText, nastyText, { maxKeys: 3 }),
);

function fuzzRequests(codes: string[]): fc.Arbitrary<FuzzRequest> {
  const code = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...codes) },
    fc.constantFrom('00000000-0000-4000-8000-000000000000', codes[0]!.toUpperCase(), 'not-a-code'),
    nastyText,
  );
  const amount = fc.oneof(
    fc.constantFrom('25.00', '0.01', '10', '999999999999999', '9999999999999999999', '1e5', '13.56'),
    hugeNumber,
    jsonish,
  );
  const currency = fc.oneof(fc.constantFrom('EUR', 'USD', 'KWD', 'JPY', 'BHD', 'BTC'), jsonish);
  const rail = fc.oneof(fc.constantFrom('usdc_polygon', 'usdt_tron', 'btc_bitcoin', 'card', 'sepa'), jsonish);
  const url = fc.oneof(
    fc.constantFrom(
      'https://shop.example/thanks',
      'http://127.0.0.1:9/hook',
      'https://shop.example/\u0000',
      'http://10.0.0.1/x',
      `https://shop.example/${'p'.repeat(2040)}`,
    ),
    jsonish,
  );
  const optional = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: undefined, freq: 3 });
  const checkout = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        fiat_amount: optional(amount),
        fiat_currency: optional(currency),
        external_reference: optional(fc.oneof(fc.constant('order-1'), jsonish)),
        webhook_url: optional(url),
        success_url: optional(url),
        cancel_url: optional(url),
        customer: optional(
          fc.oneof(
            fc.constant(checkoutBody().customer),
            fc.record({
              wallet_address: optional(
                fc.oneof(fc.constant(checkoutBody().customer.wallet_address), jsonish),
              ),
              crypto_currency: optional(fc.oneof(fc.constant('USDC'), jsonish)),
              crypto_currency_network: optional(fc.oneof(fc.constantFrom('POLYGON', 'TRON'), jsonish)),
            }),
            jsonish,
          ),
        ),
      }),
    },
    { weight: 2, arbitrary: fc.constant(checkoutBody()) },
    jsonish,
  );
  const sandboxPay = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        transaction_code: optional(code),
        payment_method: optional(rail),
        size: optional(fc.oneof(fc.constantFrom('full', 'partial', 'over'), jsonish)),
        amount_usd: optional(amount),
        confirmed: optional(fc.oneof(fc.boolean(), jsonish)),
      }),
    },
    jsonish,
  );
  const queryKey = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        'transaction_code',
        'fiat_amount',
        'fiat_currency',
        'payment_method',
        'lang',
        'method',
        'embed',
        'parent_origin',
      ),
    },
    fc.constantFrom('__proto__', 'constructor', 'hasOwnProperty', ''),
    nastyText,
  );
  const queryValue = fc.oneof(code, amount.map(asText), currency.map(asText), rail.map(asText), nastyText);
  const query = fc
    .tuple(
      fc.array(fc.tuple(queryKey, queryValue), { maxLength: 5 }),
      fc.constantFrom('', '', '', '', '&%zz=%ff', '&a=%00', '&;&&=', '&lang=%E0%A4%A'),
    )
    .map(([pairs, junk]) => {
      const encoded = pairs.map(([key, value]) => `${encode(key)}=${encode(value)}`).join('&');
      return encoded + junk;
    });
  const pathCode = fc.oneof(code.map(encode), fc.constantFrom('%zz', '%00', 'a'.repeat(201), ''));
  const json = (value: fc.Arbitrary<unknown>) =>
    value.map((body) => ({ contentType: 'application/json', body: JSON.stringify(body) ?? 'null' }));
  const oddBody = fc.oneof(
    fc.constantFrom(
      { contentType: 'application/json', body: '{"fiat_amount": 25,' },
      { contentType: 'application/json', body: '' },
      { contentType: 'application/json', body: '{"__proto__":{"x":1},"constructor":{"prototype":{}}}' },
      { contentType: 'text/plain', body: '{}' },
      { contentType: 'application/x-www-form-urlencoded', body: 'outcome=pay&outcome=cancel' },
      { contentType: null, body: null },
    ),
    nastyText.map((body) => ({ contentType: 'application/json', body })),
  );
  const withBody = (path: fc.Arbitrary<string>, body: fc.Arbitrary<unknown>) =>
    fc.record({
      method: fc.constant('POST'),
      path,
      query,
      payload: fc.oneof({ weight: 5, arbitrary: json(body) }, oddBody),
    });
  const get = (path: fc.Arbitrary<string>) =>
    fc.record({
      method: fc.constant('GET'),
      path,
      query,
      payload: fc.constant({ contentType: null, body: null }),
    });
  const anyPath = fc.oneof(
    fc.constantFrom(
      '/api/payment_options',
      '/api/checkout',
      '/api/payment_link',
      '/api/transaction',
      '/api/health',
      '/api/sandbox/pay',
      '/api/sandbox/webhooks',
      '/api/openapi.json',
      '/',
      '/api',
      '/api/',
      '/api/refunds',
      '//api//checkout',
      '/pay/',
      '/sandbox/card/',
      '/api/%zz',
      '/%2e%2e/%2e%2e/etc/passwd',
    ),
    pathCode.map((segment) => `/pay/${segment}`),
    pathCode.map((segment) => `/api/${segment}`),
  );
  return fc
    .oneof(
      { weight: 3, arbitrary: get(fc.constant('/api/payment_options')) },
      { weight: 6, arbitrary: withBody(fc.constant('/api/checkout'), checkout) },
      { weight: 3, arbitrary: get(fc.constant('/api/payment_link')) },
      { weight: 3, arbitrary: get(fc.constant('/api/transaction')) },
      { weight: 1, arbitrary: get(fc.constant('/api/health')) },
      { weight: 4, arbitrary: withBody(fc.constant('/api/sandbox/pay'), sandboxPay) },
      { weight: 2, arbitrary: get(fc.constant('/api/sandbox/webhooks')) },
      { weight: 3, arbitrary: get(pathCode.map((segment) => `/pay/${segment}`)) },
      {
        weight: 1,
        arbitrary: get(
          fc
            .oneof(
              fc.constantFrom('pay.css', 'pay.js', 'nope.js', '..%2fpackage.json', '.js'),
              nastyText.map(encode),
            )
            .map((file) => `/pay/assets/${file}`),
        ),
      },
      { weight: 2, arbitrary: get(pathCode.map((segment) => `/sandbox/card/${segment}`)) },
      {
        weight: 2,
        arbitrary: withBody(
          pathCode.map((segment) => `/sandbox/card/${segment}`),
          fc.jsonValue(),
        ),
      },
      { weight: 1, arbitrary: get(fc.constant('/api/openapi.json')) },
      { weight: 2, arbitrary: get(anyPath) },
      {
        weight: 2,
        arbitrary: fc.record({
          method: fc.constantFrom('PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'PROPFIND', 'post', 'GET'),
          path: anyPath,
          query,
          payload: fc.oneof(json(checkout), oddBody),
        }),
      },
    )
    .map(({ method, path, query, payload }) => ({ method, path, query, ...payload }));
}

/** A generated value as query text: strings as they are, anything else as its JSON. */
function asText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}

/** Percent-encodes, turning a lone surrogate into invalid UTF-8 escapes instead of throwing. */
function encode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return value.replace(/[\ud800-\udfff]/g, '%ED%A0%80').replace(/[^\w%.-]/g, (character) => {
      try {
        return encodeURIComponent(character);
      } catch {
        return '%ff';
      }
    });
  }
}

/** Raw exchanges for what fetch cannot send: broken request lines, headers, framing. */
const rawRequests = fc.oneof(
  fc.constantFrom(
    'GARBAGE\r\n\r\n',
    '\u0000\u0001\u0002\r\n\r\n',
    'GET /api/health HTTP/9.9\r\nHost: x\r\n\r\n',
    'GET /api/health\r\n\r\n',
    'GET /api/health HTTP/1.0\r\n\r\n',
    'TRACE /api/health HTTP/1.1\r\nHost: x\r\n\r\n',
    'CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: x\r\n\r\n',
    'GET /api/health HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
    'POST /api/checkout HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\n{}',
    'POST /api/checkout HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
    'POST /api/checkout HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
    'POST /api/checkout HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n',
    `GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    `GET /api/transaction?${'transaction_code=1&'.repeat(3000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    'GET /api/health HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n',
    'GET /api/health HTTP/1.1\r\nHost: x\r\nX-Nul: a\u0000b\r\n\r\n',
    'GET /api/he\u0000alth HTTP/1.1\r\nHost: x\r\n\r\n',
    'GET http://evil.example/api/health HTTP/1.1\r\nHost: x\r\n\r\n',
    'GET * HTTP/1.1\r\nHost: x\r\n\r\n',
  ),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
  fc
    .tuple(fc.constantFrom('GET', 'POST', 'PUT', 'X'), fc.string({ unit: 'binary-ascii', maxLength: 60 }))
    .map(([method, junk]) => `${method} /api/${junk} HTTP/1.1\r\nHost: x\r\n\r\n`),
  fc
    .string({ unit: 'binary-ascii', maxLength: 80 })
    .map((header) => `GET /api/health HTTP/1.1\r\nHost: x\r\nX-Fuzz: ${header}\r\n\r\n`),
);

const KNOWN = ERROR_CODES as Record<string, number>;

/** Why a response breaks the contract, or null when it keeps it. */
function violation(request: FuzzRequest, status: number, contentType: string, text: string): string | null {
  if (status >= 500) return `answered ${status}`;
  const path = request.path;
  const isApi = path.startsWith('/api/') || path === '/api';
  if (request.method.toUpperCase() === 'HEAD') return null;
  const isJson = contentType.includes('application/json');
  if (isApi && status >= 400 && !isJson) return `${status} on the API without a JSON body (${contentType})`;
  if (!isJson || path.startsWith('/api/openapi.json')) return null;
  let json: { status?: unknown; error?: { code?: string; message?: unknown } } | null;
  try {
    json = JSON.parse(text);
  } catch {
    return 'a body declared as JSON does not parse';
  }
  if (status >= 400) {
    if (json?.status !== 'error' || typeof json.error?.message !== 'string')
      return 'error outside the envelope';
    if (KNOWN[json.error?.code ?? ''] !== status)
      return `code ${json.error?.code} does not belong to ${status}`;
  } else if (isApi && json?.status !== 'success') return 'success outside the envelope';
  return null;
}

const stores: Array<[string, boolean]> = [
  ['SQLite', true],
  ['PostgreSQL', Boolean(bin)],
];

describe.each(stores)('fuzzing every route (%s)', (store, available) => {
  let server: TestServer;
  let cluster: Awaited<ReturnType<typeof startPostgresCluster>> | undefined;
  beforeAll(async () => {
    if (!available) return;
    if (store === 'PostgreSQL') cluster = await startPostgresCluster(bin!);
    server = await startTestServer({
      ...(cluster ? { databaseUrl: cluster.connectionString } : {}),
      requestTimeoutMs: 5000,
    });
  }, 60_000);
  afterAll(async () => {
    await server?.dispose();
    cluster?.stop();
  });

  it.skipIf(!available)(
    'refuses a control character in every string field, before the database',
    async () => {
      const code = (await server.client.createCheckout(checkoutBody())).transaction_code;
      const valid = checkoutBody({ webhook_url: 'https://shop.example/hook' });
      const pay = {
        transaction_code: code,
        payment_method: 'usdc_polygon',
        size: 'full',
        amount_usd: '1.00',
      };
      const problems: string[] = [];
      for (const bad of ['\u0000', '\u001f', '\u007f']) {
        const cases: Array<[string, string, unknown]> = [];
        for (const field of Object.keys(valid).filter((key) => key !== 'customer')) {
          cases.push([
            '/api/checkout',
            field,
            { ...valid, [field]: `${(valid as Record<string, unknown>)[field]}${bad}` },
          ]);
        }
        for (const field of Object.keys(valid.customer)) {
          const customer = {
            ...valid.customer,
            [field]: `${(valid.customer as Record<string, string>)[field]}${bad}`,
          };
          cases.push(['/api/checkout', `customer.${field}`, { ...valid, customer }]);
        }
        for (const field of Object.keys(pay)) {
          cases.push([
            '/api/sandbox/pay',
            field,
            { ...pay, [field]: `${(pay as Record<string, string>)[field]}${bad}` },
          ]);
        }
        for (const [path, body, field] of cases.map(([path, field, body]) => [path, body, field] as const)) {
          const response = await server.post(path, body);
          if (response.status !== 400 || response.json.error?.field !== field)
            problems.push(
              `${path} ${field}+${JSON.stringify(bad)} → ${response.status} ${JSON.stringify(response.json)}`,
            );
        }
        const e = encodeURIComponent(bad);
        const gets: Array<[string, number, string | undefined]> = [
          [`/api/payment_options?fiat_amount=10${e}&fiat_currency=EUR`, 400, 'fiat_amount'],
          [`/api/payment_options?fiat_amount=10&fiat_currency=EUR${e}`, 400, 'fiat_currency'],
          [
            `/api/payment_link?transaction_code=${code}${e}&payment_method=usdc_polygon`,
            400,
            'transaction_code',
          ],
          [
            `/api/payment_link?transaction_code=${code}&payment_method=usdc_polygon${e}`,
            400,
            'payment_method',
          ],
          [`/api/transaction?transaction_code=${code}${e}`, 400, 'transaction_code'],
          [`/api/sandbox/webhooks?transaction_code=${code}${e}`, 400, 'transaction_code'],
          [`/sandbox/card/${code}${e}`, 400, 'transaction_code'],
          [`/sandbox/card/${code}?method=card${e}`, 400, 'method'],
          [`/pay/${code}${e}`, 404, undefined],
          [`/pay/${code}?lang=de${e}&method=card${e}`, 200, undefined],
          [`/pay/assets/pay.css${e}`, 404, undefined],
        ];
        for (const [path, status, field] of gets) {
          const response = await server.get(path);
          if (response.status !== status || (field !== undefined && response.json.error?.field !== field))
            problems.push(`GET ${path} → ${response.status} ${JSON.stringify(response.json).slice(0, 200)}`);
        }
      }
      expect(problems).toEqual([]);
    },
  );

  it.skipIf(!available)(
    `answers ${RUNS} arbitrary requests and ${RAW_RUNS} raw ones without a 5xx, in the envelope`,
    async () => {
      console.log(`fuzz ${store}: seed ${SEED} (replay with FUZZ_SEED=${SEED})`);
      const codes: string[] = [];
      for (const overrides of [{}, { fiat_currency: 'JPY', fiat_amount: '3000' }, { fiat_amount: '2.00' }]) {
        codes.push((await server.client.createCheckout(checkoutBody(overrides))).transaction_code);
      }
      const requests = fc.sample(fuzzRequests(codes), { seed: SEED, numRuns: RUNS });
      const counts: Record<string, number> = {};
      const failures: string[] = [];
      const serverErrors: string[] = [];
      const memory: Record<string, number> = {};
      let next = 0;
      const worker = async () => {
        while (next < requests.length) {
          const index = next++;
          const request = requests[index]!;
          if (index === Math.floor(RUNS / 2)) memory.half = sampleMemory();
          const url = `${server.url}${request.path}${request.query ? `?${request.query}` : ''}`;
          let status: number;
          let contentType = '';
          let text = '';
          try {
            const response = await fetch(url, {
              method: request.method,
              headers: request.contentType ? { 'content-type': request.contentType } : {},
              body:
                request.body === null || ['GET', 'HEAD'].includes(request.method) ? undefined : request.body,
              redirect: 'manual',
            });
            status = response.status;
            contentType = response.headers.get('content-type') ?? '';
            text = await response.text();
          } catch (error) {
            // fetch itself refuses some URLs (e.g. a bare % in the path): nothing reached the server.
            counts.refused_by_client = (counts.refused_by_client ?? 0) + 1;
            if (!(error instanceof TypeError)) throw error;
            continue;
          }
          counts[status] = (counts[status] ?? 0) + 1;
          const problem = violation(request, status, contentType, text);
          // 5xx first: they are the worst news and must not hide behind envelope complaints.
          const list = problem?.startsWith('answered 5') ? serverErrors : failures;
          if (problem && list.length < 20) {
            list.push(
              `#${index} ${problem}: ${request.method} ${url.slice(0, 300)} content-type=${request.contentType} body=${(request.body ?? '').slice(0, 300)} → ${text.slice(0, 300)}`,
            );
          }
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      memory.end = sampleMemory();

      const raw = fc.sample(rawRequests, { seed: SEED, numRuns: RAW_RUNS });
      const rawCounts: Record<string, number> = {};
      for (const [index, bytes] of raw.entries()) {
        const { text } = await rawExchange(server.port, [Buffer.from(bytes, 'latin1')]);
        const response = parseRaw(text);
        rawCounts[response.status] = (rawCounts[response.status] ?? 0) + 1;
        const problem =
          response.status === 0
            ? null
            : violation(
                { method: 'GET', path: '/api/raw', query: '', contentType: null, body: null },
                response.status,
                response.headers['content-type'] ?? '',
                response.body,
              );
        if (problem && failures.length < 40) {
          failures.push(
            `raw #${index} ${problem}: ${JSON.stringify(bytes.slice(0, 200))} → ${text.slice(0, 300)}`,
          );
        }
      }
      console.log(
        `fuzz ${store}: seed ${SEED}, ${RUNS} requests by status ${JSON.stringify(counts)}; ${RAW_RUNS} raw by status ${JSON.stringify(rawCounts)} (0 = closed without an answer); memory MiB at half ${JSON.stringify(memory.half)} / end ${JSON.stringify(memory.end)}`,
      );
      const problems = [...serverErrors, ...failures];
      expect(problems, `seed ${SEED}:\n${problems.join('\n')}`).toEqual([]);
      // The server must not keep what it refused: the heap levels off after the first half.
      expect(memory.end! - memory.half!, `seed ${SEED}: heap MiB at half/end`).toBeLessThan(96);
      const health = await server.get('/api/health');
      expect(health.json.data.storage).toBe(cluster ? 'postgres' : 'sqlite');
    },
    240_000,
  );
});

// A full collection before each sample makes heap figures comparable; V8 lends `gc` on request.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** Heap in use in MiB, after a full collection. */
function sampleMemory(): number {
  collectGarbage();
  return Math.round(process.memoryUsage().heapUsed / 2 ** 20);
}
