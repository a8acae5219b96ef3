import { createServer, type Server } from 'node:http';
import {
  closedLoopbackUrl,
  describeEachPhp,
  listenOnLoopback,
  phpString,
  type SandboxService,
  SOLANA_ONLY_PAYMENT_OPTIONS,
  startSandboxService,
} from '@cryptocheckout/php-testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_MOUNT, CLIENT_MOUNTS } from './harness.js';

// The kernel's ServiceProbe (src/Kernel/ServiceProbe.php) over real HTTP on loopback: the real
// reference server in sandbox mode, a closed port, and a server that is not the service (an HTML
// page, a bad gateway, a hang, and the service's own error envelope), through both transports, on
// PHP 7.4 and 8.3.

interface Probe {
  reachable: boolean;
  problem: string | null;
  message: string;
  offered: boolean | null;
}

let service: SandboxService;
let impostor: Server;
let impostorUrl: string;
let closedUrl: string;
const impostorPaths: string[] = [];

/** Answers by the first path segment, whatever follows (the probe asks for <url>/api/payment_options). */
function impostorAnswer(path: string): { status: number; type: string; body: string; delayMs?: number } {
  const envelope = (code: string, message: string) =>
    JSON.stringify({ status: 'error', error: { code, message } });
  switch (path.split('/')[1]) {
    case 'shop':
      return { status: 200, type: 'text/html', body: '<!doctype html><title>My shop</title><p>Welcome</p>' };
    case 'gateway':
      return { status: 502, type: 'text/html', body: '<h1>502 Bad Gateway</h1>' };
    case 'json':
      return { status: 200, type: 'application/json', body: '{"hello":"world"}' };
    case 'failing':
      return {
        status: 503,
        type: 'application/json',
        body: envelope('unavailable', 'Rates are not loaded yet.'),
      };
    case 'refusing':
      return {
        status: 422,
        type: 'application/json',
        body: envelope('unprocessable', 'USD is below the minimum.'),
      };
    case 'solana-only':
      return {
        status: 200,
        type: 'application/json',
        body: JSON.stringify({ status: 'success', data: SOLANA_ONLY_PAYMENT_OPTIONS }),
      };
    case 'slow':
      return { status: 200, type: 'text/plain', body: 'late', delayMs: 3_000 };
    default:
      return { status: 404, type: 'text/html', body: '<h1>Not found</h1>' };
  }
}

beforeAll(async () => {
  service = await startSandboxService();
  impostor = createServer((request, response) => {
    impostorPaths.push(request.url ?? '');
    const answer = impostorAnswer(new URL(request.url ?? '/', 'http://x').pathname);
    const send = () => {
      if (!response.destroyed)
        response.writeHead(answer.status, { 'content-type': answer.type }).end(answer.body);
    };
    if (answer.delayMs) setTimeout(send, answer.delayMs);
    else send();
  });
  impostorUrl = await listenOnLoopback(impostor);
  closedUrl = await closedLoopbackUrl();
});

afterAll(async () => {
  impostor?.closeAllConnections();
  await new Promise<void>((resolve) => impostor?.close(() => resolve()) ?? resolve());
  await service?.close();
});

describeEachPhp(
  'kernel service probe',
  ({ php }) => {
    for (const transport of ['CurlTransport', 'StreamTransport'] as const) {
      describe(transport, () => {
        const probe = async (
          url: string,
          timeout = 5,
          translated = false,
          settlement: [string, string] = ['', ''],
        ) =>
          (await php().runJson(`
            require '${CLIENT_MOUNT}/test/kernel/php/bootstrap.php';
            use CryptoCheckout\\Client\\Kernel\\ServiceProbe;
            $translate = ${translated ? "static function (string $text, array $params): string { return 'FR: ' . strtr($text, $params); }" : 'null'};
            $probe = new ServiceProbe(new CryptoCheckout\\Client\\Http\\${transport}(), $translate, ${timeout});
            echo json_encode($probe->probe(${phpString(url)}, ${phpString(settlement[0])}, ${phpString(settlement[1])}), JSON_UNESCAPED_SLASHES);
          `)) as Probe;

        it('finds the real service reachable, with a trailing /api or slash in the URL too', async () => {
          for (const url of [service.url, `${service.url}/api/`]) {
            expect(await probe(url)).toEqual({
              reachable: true,
              problem: null,
              message: `Service URL ${service.url}: the Crypto Checkout service answers.`,
              offered: null,
            });
          }
          // The sandbox offers every rail, the merchant's settlement among them.
          expect(await probe(service.url, 5, false, ['USDC', 'POLYGON'])).toEqual({
            reachable: true,
            problem: null,
            message: `Service URL ${service.url}: the Crypto Checkout service answers.`,
            offered: true,
          });
        });

        it("warns when the service answers but does not offer the merchant's settlement, with the service's reason, however many other rails it offers", async () => {
          const url = `${impostorUrl}/solana-only`;
          expect(await probe(url, 5, false, ['usdc', 'polygon'])).toEqual({
            reachable: true,
            problem: 'settlement_not_offered',
            message: `Service URL ${url}: the Crypto Checkout service answers, but does not offer payment in USDC on Polygon PoS, the settlement you chose: Not offered: this server does not watch USDC on Polygon PoS. Buyers cannot pay with crypto until it does.`,
            offered: false,
          });
          expect(await probe(url, 5, false, ['SOL', 'SOLANA'])).toMatchObject({
            problem: 'settlement_not_offered',
            message: expect.stringContaining(
              'does not offer payment in SOL on Solana, the settlement you chose: Not offered right now: Solana cannot be watched.',
            ),
            offered: false,
          });
          expect(await probe(url, 5, false, ['USDC', 'BSC'])).toEqual({
            reachable: true,
            problem: 'settlement_not_offered',
            message: `Service URL ${url}: the Crypto Checkout service answers, but lists no payment option for USDC on BNB Smart Chain, the settlement you chose. Buyers cannot pay with crypto; choose an asset and network the service offers.`,
            offered: false,
          });
          expect(await probe(url, 5, false, ['USDC', 'SOLANA'])).toMatchObject({
            problem: null,
            offered: true,
          });
          // Without a settlement it only says whether the service answers.
          expect(await probe(url)).toMatchObject({ reachable: true, problem: null, offered: null });
          expect((await probe(url, 5, true, ['USDC', 'POLYGON'])).message).toMatch(
            /^FR: Service URL .*: the Crypto Checkout service answers, but does not offer payment in USDC on Polygon PoS/,
          );
        });

        it('reports a closed port as no connection, naming the URL', async () => {
          const result = await probe(closedUrl);
          expect(result.reachable).toBe(false);
          expect(result.problem).toBe('connection_failed');
          expect(result.message).toMatch(
            new RegExp(`^Service URL ${closedUrl.replace(/\./g, '\\.')}: no connection \\(Could not reach `),
          );
        });

        it('reports an HTML page answering 200 as not a Crypto Checkout service', async () => {
          const before = impostorPaths.length;
          const result = await probe(`${impostorUrl}/shop`);
          expect(result).toEqual({
            reachable: false,
            problem: 'not_service',
            message: `Service URL ${impostorUrl}/shop: something answers there, but it is not a Crypto Checkout service (/api/payment_options did not return the service's JSON). Check the address.`,
            offered: null,
          });
          // One read-only price check, nothing else.
          expect(impostorPaths.slice(before)).toEqual([
            '/shop/api/payment_options?fiat_amount=10.00&fiat_currency=USD',
          ]);
        });

        it('reports other JSON as not the service, and a bad gateway by its HTTP status', async () => {
          expect((await probe(`${impostorUrl}/json`)).problem).toBe('not_service');
          const gateway = await probe(`${impostorUrl}/gateway`);
          expect(gateway.problem).toBe('http_status');
          expect(gateway.message).toContain(
            `Service URL ${impostorUrl}/gateway: /api/payment_options answered HTTP 502`,
          );
        });

        it("tells the service's own error envelope apart: 5xx is failing, 4xx is still the service", async () => {
          const failing = await probe(`${impostorUrl}/failing`);
          expect(failing.problem).toBe('service_error');
          expect(failing.message).toContain('answered HTTP 503 (unavailable: Rates are not loaded yet.)');
          expect(await probe(`${impostorUrl}/refusing`)).toMatchObject({ reachable: true, problem: null });
          // A refused question tells nothing about the settlement.
          expect(await probe(`${impostorUrl}/refusing`, 5, false, ['USDC', 'POLYGON'])).toMatchObject({
            reachable: true,
            problem: null,
            offered: null,
          });
        });

        it('refuses a URL the settings rules refuse, without any request', async () => {
          const before = impostorPaths.length;
          const result = await probe('javascript:alert(1)');
          expect(result.reachable).toBe(false);
          expect(result.problem).toBe('invalid_url');
          expect(result.message).toMatch(/^Service URL: enter the address of your Crypto Checkout service/);
          expect(impostorPaths.length).toBe(before);
        });

        it('passes its texts through the translate callable', async () => {
          expect((await probe(closedUrl, 5, true)).message).toMatch(
            /^FR: Service URL http:\/\/127\.0\.0\.1:\d+: no connection/,
          );
        });
      });
    }

    it('gives up after its timeout (at most 5 seconds) on a server that hangs', async () => {
      const result = (await php().runJson(`
        require '${CLIENT_MOUNT}/test/kernel/php/bootstrap.php';
        use CryptoCheckout\\Client\\Kernel\\ServiceProbe;
        $probe = new ServiceProbe(new CryptoCheckout\\Client\\Http\\CurlTransport(), null, 1);
        echo json_encode($probe->probe(${phpString(`${impostorUrl}/slow`)}), JSON_UNESCAPED_SLASHES);
      `)) as Probe;
      expect(result.problem).toBe('timeout');
      expect(result.message).toBe(
        `Service URL ${impostorUrl}/slow: no answer within 1 seconds. Check the address, and that the service is running and reachable from this server.`,
      );
      // No clock: the server answers after 3 s, so a probe that waited for it would have read
      // that answer instead of reporting the timeout above.
    });

    it('never waits longer than 5 seconds, whatever timeout it is given', async () => {
      const timeout = await php().runJson(`
        require '${CLIENT_MOUNT}/test/kernel/php/bootstrap.php';
        $transport = new class implements CryptoCheckout\\Client\\Http\\Transport {
            public int $timeout = 0;
            public function send(string $method, string $url, array $headers, ?string $body, int $timeoutSeconds): CryptoCheckout\\Client\\Http\\Response
            {
                $this->timeout = $timeoutSeconds;
                throw new CryptoCheckout\\Client\\Exception\\NetworkException('timed out', true);
            }
        };
        $result = (new CryptoCheckout\\Client\\Kernel\\ServiceProbe($transport, null, 60))->probe('https://pay.example.com');
        echo json_encode([$transport->timeout, $result['problem']]);
      `);
      expect(timeout).toEqual([5, 'timeout']);
    });
  },
  { mounts: CLIENT_MOUNTS },
);
