import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { closedLoopbackUrl, describeEachPhp, listenOnLoopback, phpString } from '@cryptocheckout/php-testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_MOUNTS, LOAD_CLIENT } from './harness.js';

// Both transports against a loopback HTTP server: what they send, what they hand back, and how
// they fail. PHP runs in-process, so the server answers while a PHP request is under way.

interface SeenRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

let server: Server;
let origin = '';
let closedOrigin = '';
const seen: SeenRequest[] = [];

function answer(request: IncomingMessage, response: ServerResponse, body: string): void {
  seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
  if (request.url?.startsWith('/slow')) {
    // Longer than the 1-second timeout the tests use.
    setTimeout(() => response.end('{"late":true}'), 2500).unref();
    return;
  }
  if (request.url?.startsWith('/status/')) {
    const status = Number(request.url.split('/')[2]);
    response.writeHead(status, { 'content-type': 'application/json', 'x-answer': 'error-body' });
    response.end(`{"status":"error","error":{"code":"c${status}","message":"m"}}`);
    return;
  }
  response.writeHead(200, { 'content-type': 'application/json', 'x-answer': 'echo' });
  response.end(JSON.stringify({ method: request.method, url: request.url, body }));
}

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => answer(request, response, body));
  });
  origin = await listenOnLoopback(server);
  closedOrigin = await closedLoopbackUrl();
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describeEachPhp(
  'PHP transports',
  ({ php }) => {
    for (const transport of ['CurlTransport', 'StreamTransport'] as const) {
      describe(transport, () => {
        /** Sends one request through the transport and reports the response or the exception. */
        const send = (method: string, url: string, body: string | null, timeoutSeconds = 5) =>
          php().runJson(`${LOAD_CLIENT}
            use CryptoCheckout\\Client\\Exception\\NetworkException;
            $transport = new CryptoCheckout\\Client\\Http\\${transport}();
            try {
                $response = $transport->send(
                    ${phpString(method)},
                    ${phpString(url)},
                    ['Accept' => 'application/json', 'X-Test' => 'yes'],
                    ${body === null ? 'null' : phpString(body)},
                    ${timeoutSeconds}
                );
                echo json_encode([
                    'status' => $response->getStatus(),
                    'body' => $response->getBody(),
                    'answer' => $response->getHeader('X-Answer'),
                    'contentType' => $response->getHeader('content-type'),
                ]);
            } catch (NetworkException $exception) {
                echo json_encode([
                    'network' => $exception->getMessage(),
                    'timeout' => $exception->isTimeout(),
                    'isBase' => $exception instanceof CryptoCheckout\\Client\\Exception\\CryptoCheckoutException,
                ]);
            }
          `);

        it('sends a GET with its headers and returns status, body and headers', async () => {
          seen.length = 0;
          const result = await send('GET', `${origin}/api/transaction?transaction_code=abc`, null);
          expect(result).toEqual({
            status: 200,
            body: JSON.stringify({ method: 'GET', url: '/api/transaction?transaction_code=abc', body: '' }),
            answer: 'echo',
            contentType: 'application/json',
          });
          expect(seen[0]?.headers['x-test']).toBe('yes');
          expect(seen[0]?.headers.accept).toBe('application/json');
        });

        it('sends a POST body unchanged', async () => {
          const payload = '{"fiat_amount":"12.50","external_reference":"Bestellung Nr. 7 – Müller"}';
          const result = (await send('POST', `${origin}/api/checkout`, payload)) as { body: string };
          expect(JSON.parse(result.body)).toEqual({ method: 'POST', url: '/api/checkout', body: payload });
        });

        it('returns error statuses with their bodies instead of throwing', async () => {
          for (const status of [400, 404, 503]) {
            const result = await send('GET', `${origin}/status/${status}`, null);
            expect(result).toMatchObject({
              status,
              body: `{"status":"error","error":{"code":"c${status}","message":"m"}}`,
              answer: 'error-body',
            });
          }
        });

        it('throws a NetworkException, not a timeout, when the connection is refused', async () => {
          const result = await send('GET', `${closedOrigin}/api/transaction`, null);
          expect(result).toMatchObject({ timeout: false, isBase: true });
          expect((result as { network: string }).network).toContain(closedOrigin);
        });

        it('throws a timeout NetworkException when the answer is late', async () => {
          const result = (await send('GET', `${origin}/slow`, null, 1)) as { timeout: boolean };
          // The answer comes after 2.5 s, so a timeout means the transport gave up before it. No
          // clock bounds: under load php-wasm's curl once reported its 1 s timeout after 14 ms.
          expect(result).toMatchObject({ timeout: true, isBase: true });
        });
      });
    }

    describe('default transport', () => {
      it('is curl when the extension is usable and streams otherwise', async () => {
        const classes = await php().runJson(`${LOAD_CLIENT}
          use CryptoCheckout\\Client\\Client;
          use CryptoCheckout\\Client\\Http\\CurlTransport;
          echo json_encode([
              CurlTransport::isAvailable(),
              get_class(Client::createDefaultTransport()),
              get_class(Client::createDefaultTransport(false)),
              get_class(Client::createDefaultTransport(true)),
          ]);
        `);
        expect(classes).toEqual([
          true,
          'CryptoCheckout\\Client\\Http\\CurlTransport',
          'CryptoCheckout\\Client\\Http\\StreamTransport',
          'CryptoCheckout\\Client\\Http\\CurlTransport',
        ]);
      });
    });

    describe('Response', () => {
      it('keeps the status and headers of the last block when redirects left several', async () => {
        const parsed = await php().runJson(`${LOAD_CLIENT}
          echo json_encode(CryptoCheckout\\Client\\Http\\Response::parseHeaderLines([
              "HTTP/1.1 301 Moved Permanently\\r\\n",
              "Location: /elsewhere\\r\\n",
              "HTTP/1.1 200 OK\\r\\n",
              "Content-Type: application/json\\r\\n",
              "X-Multi:  spaced value \\r\\n",
              "\\r\\n",
          ]));
        `);
        expect(parsed).toEqual([200, { 'content-type': 'application/json', 'x-multi': 'spaced value' }]);
      });
    });
  },
  { mounts: CLIENT_MOUNTS },
);
