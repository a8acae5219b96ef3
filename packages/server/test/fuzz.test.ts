import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleMemory, violation } from './fuzz-contract.js';
import { fuzzRequests, rawRequests } from './fuzz-requests.js';
import { checkoutBody, startTestServer, type TestServer } from './helpers.js';
import { findPostgresBin, startPostgresCluster } from './postgres-cluster.js';
import { parseRaw, rawExchange } from './raw-http.js';

// Seeded: FUZZ_SEED=<n> replays a run; FUZZ_RUNS=<n> changes the number of HTTP requests per store
// (4,000 in npm test: each run draws a new seed, so runs add up; FUZZ_RUNS=100000 for a long hunt).
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const RUNS = Number(process.env.FUZZ_RUNS ?? 4_000);
const RAW_RUNS = Math.max(50, Math.round(RUNS / 40));
const CONCURRENCY = 8;

const bin = findPostgresBin();
if (!bin && process.env.CI)
  throw new Error('CI must test PostgreSQL: install the postgresql package (.ci/run does).');

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
  });
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
