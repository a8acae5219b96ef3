// Request generators of the fuzz test: requests fetch can send, and raw bytes it cannot.
import fc from 'fast-check';
import { asText, encode, hugeNumber, jsonish, nastyText } from './fuzz-values.js';
import { checkoutBody } from './helpers.js';

export interface FuzzRequest {
  method: string;
  path: string;
  query: string;
  contentType: string | null;
  body: string | null;
}

/** Requests over every route: mostly well-aimed at one, with hostile values in every field. */
export function fuzzRequests(codes: string[]): fc.Arbitrary<FuzzRequest> {
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

/** Raw exchanges for what fetch cannot send: broken request lines, headers, framing. */
export const rawRequests = fc.oneof(
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
