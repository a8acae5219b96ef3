import { describeEachPhp, phpString } from '@cryptocheckout/php-testkit';
import { describe, expect, it } from 'vitest';
import { CLIENT_MOUNTS, LOAD_CLIENT } from './harness.js';

// The client against a scripted transport: the requests it builds, and how each kind of answer
// becomes data or the right exception.

const CODE = '7d3f2a10-5b6c-4e8d-9f01-23456789abcd';

const OPTION = {
  slug: 'usdc_polygon',
  name: 'USDC on Polygon',
  kind: 'crypto',
  asset: 'USDC',
  network: 'POLYGON',
  amount: '27.11',
  amount_usd: 27.11,
  min_usd: 1,
  max_usd: 10000,
  available: true,
};

const CHECKOUT = {
  transaction_code: CODE,
  status: 'pending',
  amount_in_usd: 27.11,
  checkout_url: `https://pay.example.com/pay/${CODE}`,
  payment_options: [OPTION],
  expires_at: '2026-11-01T11:00:00.000Z',
};

const TRANSACTION = {
  transaction_code: CODE,
  status: 'settled',
  external_reference: 'order-1001',
  fiat_amount: 25,
  fiat_currency: 'EUR',
  amount_in_usd: 27.11,
  received_usd: 27.11,
  checkout_url: `https://pay.example.com/pay/${CODE}`,
  wallet_address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
  wallet_currency: 'USDC',
  wallet_network: 'POLYGON',
  payout_dispatched: true,
  payment_method: 'usdc_polygon',
  late: false,
  created_at: '2026-11-01T10:00:00.000Z',
  expires_at: '2026-11-01T11:00:00.000Z',
  settled_at: '2026-11-01T10:06:00.000Z',
  payments: [
    {
      payment_method: 'usdc_polygon',
      asset: 'USDC',
      network: 'POLYGON',
      amount: '27.11',
      amount_usd: 27.11,
      tx_id: `0x${'ab'.repeat(32)}`,
      seen_at: '2026-11-01T10:05:00.000Z',
    },
  ],
};

const OPTIONS = { fiat_amount: 25, fiat_currency: 'EUR', amount_in_usd: 27.11, payment_options: [OPTION] };

const CRYPTO_LINK = {
  kind: 'crypto',
  payment_method: 'usdc_polygon',
  address: '0x1111111111111111111111111111111111111111',
  amount: '27.11',
  asset: 'USDC',
  network: 'POLYGON',
  uri: 'ethereum:0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359@137/transfer?address=0x1111111111111111111111111111111111111111&uint256=27110000',
  expires_at: '2026-11-01T11:00:00.000Z',
};

const FIAT_LINK = {
  kind: 'fiat',
  payment_method: 'card',
  redirect_url: `https://pay.example.com/sandbox/card/${CODE}`,
  expires_at: '2026-11-01T11:00:00.000Z',
};

const success = (data: unknown) => JSON.stringify({ status: 'success', data });

interface Scripted {
  status: number;
  body: string;
}

interface CallOutcome {
  result?: unknown;
  exception?: {
    class: string;
    message: string;
    isBase: boolean;
    errorCode?: string;
    field?: string | null;
    httpStatus?: number;
    timeout?: boolean;
  };
  requests: Array<{
    method: string;
    url: string;
    headers: Record<string, string>;
    body: string | null;
    timeout: number;
  }>;
}

describeEachPhp(
  'PHP Client',
  ({ php }) => {
    /**
     * Runs `call` (PHP code using `$client`) against a transport that answers with `answer`, or
     * throws a NetworkException when `answer` is 'network-failure'.
     */
    const callWith = async (
      answer: Scripted | 'network-failure',
      call: string,
      setup = '',
    ): Promise<CallOutcome> =>
      (await php().runJson(`${LOAD_CLIENT}
        use CryptoCheckout\\Client\\Client;
        use CryptoCheckout\\Client\\Exception\\ApiException;
        use CryptoCheckout\\Client\\Exception\\CryptoCheckoutException;
        use CryptoCheckout\\Client\\Exception\\NetworkException;
        use CryptoCheckout\\Client\\Exception\\UnexpectedResponseException;
        use CryptoCheckout\\Client\\Http\\Response;
        use CryptoCheckout\\Client\\Http\\Transport;

        final class ScriptedTransport implements Transport
        {
            public $requests = [];
            private $answer;
            public function __construct($answer) { $this->answer = $answer; }
            public function send(string $method, string $url, array $headers, ?string $body, int $timeoutSeconds): Response
            {
                $this->requests[] = ['method' => $method, 'url' => $url, 'headers' => $headers, 'body' => $body, 'timeout' => $timeoutSeconds];
                if ($this->answer === null) {
                    throw new NetworkException('Could not reach the service: connection refused.');
                }
                return new Response($this->answer['status'], $this->answer['body']);
            }
        }

        $answer = ${answer === 'network-failure' ? 'null' : `json_decode(${phpString(JSON.stringify(answer))}, true)`};
        $transport = new ScriptedTransport($answer);
        $client = new Client('https://pay.example.com/api/', $transport, 7);
        ${setup}
        $outcome = [];
        try {
            $outcome['result'] = ${call};
        } catch (CryptoCheckoutException $exception) {
            $outcome['exception'] = [
                'class' => get_class($exception),
                'message' => $exception->getMessage(),
                'isBase' => true,
            ];
            if ($exception instanceof ApiException) {
                $outcome['exception'] += ['errorCode' => $exception->getErrorCode(), 'field' => $exception->getField(), 'httpStatus' => $exception->getHttpStatus()];
            }
            if ($exception instanceof UnexpectedResponseException) {
                $outcome['exception'] += ['field' => $exception->getField(), 'httpStatus' => $exception->getHttpStatus()];
            }
            if ($exception instanceof NetworkException) {
                $outcome['exception'] += ['timeout' => $exception->isTimeout()];
            }
        }
        $outcome['requests'] = $transport->requests;
        echo json_encode($outcome, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE);
      `)) as CallOutcome;

    const REQUEST = {
      fiat_amount: '25.00',
      fiat_currency: 'EUR',
      external_reference: 'order-1001',
      webhook_url: 'https://shop.example.com/?wc-api=cryptocheckout',
      customer: {
        wallet_address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
        crypto_currency: 'USDC',
        crypto_currency_network: 'POLYGON',
      },
    };

    describe('requests', () => {
      it('POSTs the checkout as JSON to <base>/checkout', async () => {
        const outcome = await callWith(
          { status: 201, body: success(CHECKOUT) },
          `$client->createCheckout(json_decode(${phpString(JSON.stringify(REQUEST))}, true))`,
        );
        expect(outcome.result).toEqual(CHECKOUT);
        const [request] = outcome.requests;
        expect(request).toMatchObject({
          method: 'POST',
          url: 'https://pay.example.com/api/checkout',
          timeout: 7,
        });
        expect(JSON.parse(request?.body ?? '')).toEqual(REQUEST);
        expect(request?.body).toContain('"webhook_url":"https://shop.example.com/?wc-api=cryptocheckout"');
        expect(request?.headers).toMatchObject({
          Accept: 'application/json',
          'Content-Type': 'application/json',
        });
        expect(request?.headers['User-Agent']).toMatch(/^CryptoCheckout-PHP\/\d+\.\d+\.\d+ PHP\/\d/);
      });

      it('sends a float amount as its shortest exact decimal, whatever serialize_precision says', async () => {
        const outcome = await callWith(
          { status: 201, body: success(CHECKOUT) },
          `$client->createCheckout(['fiat_amount' => 0.1, 'fiat_currency' => 'USD', 'external_reference' => 'x', 'customer' => []])`,
          `ini_set('serialize_precision', '17');`,
        );
        expect(JSON.parse(outcome.requests[0]?.body ?? '').fiat_amount).toBe('0.1');
      });

      it('GETs the lookups with encoded query parameters and no Content-Type', async () => {
        const lookup = await callWith(
          { status: 200, body: success(TRANSACTION) },
          `$client->getTransaction(${phpString(CODE)})`,
        );
        expect(lookup.requests[0]).toMatchObject({
          method: 'GET',
          url: `https://pay.example.com/api/transaction?transaction_code=${CODE}`,
          body: null,
        });
        expect(lookup.requests[0]?.headers['Content-Type']).toBeUndefined();

        const options = await callWith(
          { status: 200, body: success(OPTIONS) },
          `$client->getPaymentOptions('25.00', 'EUR')`,
        );
        expect(options.requests[0]?.url).toBe(
          'https://pay.example.com/api/payment_options?fiat_amount=25.00&fiat_currency=EUR',
        );

        const link = await callWith(
          { status: 200, body: success(CRYPTO_LINK) },
          `$client->getPaymentLink('a b&c', 'usdc_polygon')`,
        );
        expect(link.requests[0]?.url).toBe(
          'https://pay.example.com/api/payment_link?transaction_code=a%20b%26c&payment_method=usdc_polygon',
        );
      });

      it('builds the API base from the service origin', async () => {
        const outcome = await callWith(
          { status: 200, body: '{}' },
          `[Client::forServiceOrigin('https://pay.example.com/')->getBaseUrl(), Client::forServiceOrigin('http://127.0.0.1:8787')->getBaseUrl(), $client->getBaseUrl()]`,
        );
        expect(outcome.result).toEqual([
          'https://pay.example.com/api',
          'http://127.0.0.1:8787/api',
          'https://pay.example.com/api',
        ]);
      });
    });

    describe('successful answers', () => {
      it('returns each documented shape, without members the client does not know', async () => {
        const lookup = await callWith(
          { status: 200, body: success({ ...TRANSACTION, added_later: 'x' }) },
          `$client->getTransaction(${phpString(CODE)})`,
        );
        expect(lookup.result).toEqual(TRANSACTION);

        const options = await callWith(
          { status: 200, body: success(OPTIONS) },
          `$client->getPaymentOptions('25', 'EUR')`,
        );
        expect(options.result).toEqual(OPTIONS);

        for (const link of [CRYPTO_LINK, FIAT_LINK]) {
          const outcome = await callWith(
            { status: 200, body: success(link) },
            `$client->getPaymentLink(${phpString(CODE)}, 'x')`,
          );
          expect(outcome.result).toEqual(link);
        }
      });
    });

    describe('failures', () => {
      it.each([
        [
          400,
          {
            code: 'invalid_request',
            message: 'customer.wallet_address: Enter the wallet address.',
            field: 'customer.wallet_address',
          },
        ],
        [404, { code: 'not_found', message: 'No transaction with this code.' }],
        [409, { code: 'conflict', message: 'The transaction is settled.' }],
        [422, { code: 'unprocessable', message: 'Amount outside the bounds of the rail.' }],
        [503, { code: 'unavailable', message: 'The rate source is down.' }],
      ])('turns an HTTP %i error envelope into an ApiException', async (status, error) => {
        const outcome = await callWith(
          { status, body: JSON.stringify({ status: 'error', error }) },
          `$client->getTransaction(${phpString(CODE)})`,
        );
        expect(outcome.exception).toEqual({
          class: 'CryptoCheckout\\Client\\Exception\\ApiException',
          message: error.message,
          isBase: true,
          errorCode: error.code,
          field: (error as { field?: string }).field ?? null,
          httpStatus: status,
        });
      });

      it.each([
        ['a body that is not JSON', { status: 502, body: '<html>Bad Gateway</html>' }, null],
        ['JSON without an envelope', { status: 200, body: '{"transaction_code":"x"}' }, null],
        ['a success envelope on an error status', { status: 500, body: success(TRANSACTION) }, null],
        [
          'an error envelope without a code',
          { status: 400, body: '{"status":"error","error":{"message":"m"}}' },
          null,
        ],
        ['a success envelope without data', { status: 200, body: '{"status":"success"}' }, null],
        [
          'data missing a member',
          { status: 200, body: success({ ...TRANSACTION, late: undefined }) },
          'late',
        ],
        [
          'a payment with a float amount',
          {
            status: 200,
            body: success({ ...TRANSACTION, payments: [{ ...TRANSACTION.payments[0], amount: 27.11 }] }),
          },
          'payments.0.amount',
        ],
        [
          'a USD amount with three decimals',
          { status: 200, body: success({ ...TRANSACTION, received_usd: 27.111 }) },
          'received_usd',
        ],
        ['data that is a list', { status: 200, body: success([TRANSACTION]) }, ''],
      ])('refuses %s with an UnexpectedResponseException', async (_name, answer, field) => {
        const outcome = await callWith(answer, `$client->getTransaction(${phpString(CODE)})`);
        expect(outcome.exception).toMatchObject({
          class: 'CryptoCheckout\\Client\\Exception\\UnexpectedResponseException',
          isBase: true,
          field,
          httpStatus: answer.status,
        });
      });

      it('names the offending member of each documented shape', async () => {
        const cases: Array<[string, unknown, string]> = [
          ['$client->createCheckout([])', { ...CHECKOUT, checkout_url: '/pay/x' }, 'checkout_url'],
          [
            '$client->createCheckout([])',
            { ...CHECKOUT, payment_options: [{ ...OPTION, kind: 'barter' }] },
            'payment_options.0.kind',
          ],
          ["$client->getPaymentOptions('1', 'EUR')", { ...OPTIONS, amount_in_usd: '27.11' }, 'amount_in_usd'],
          ["$client->getPaymentLink('c', 'm')", { ...CRYPTO_LINK, kind: 'paypal' }, 'kind'],
          ["$client->getPaymentLink('c', 'm')", { ...CRYPTO_LINK, address: '' }, 'address'],
          [
            "$client->getPaymentLink('c', 'm')",
            { ...FIAT_LINK, redirect_url: 'javascript:alert(1)' },
            'redirect_url',
          ],
        ];
        for (const [call, data, field] of cases) {
          const outcome = await callWith({ status: 200, body: success(data) }, call);
          expect(outcome.exception, call).toMatchObject({
            class: 'CryptoCheckout\\Client\\Exception\\UnexpectedResponseException',
            field,
          });
        }
      });

      it('lets a NetworkException from the transport through', async () => {
        const outcome = await callWith('network-failure', `$client->getTransaction(${phpString(CODE)})`);
        expect(outcome.exception).toEqual({
          class: 'CryptoCheckout\\Client\\Exception\\NetworkException',
          message: 'Could not reach the service: connection refused.',
          isBase: true,
          timeout: false,
        });
      });

      it('refuses a request that cannot be encoded as JSON before sending anything', async () => {
        const result = await php().runJson(`${LOAD_CLIENT}
          $transport = new class implements CryptoCheckout\\Client\\Http\\Transport {
              public $sent = 0;
              public function send(string $method, string $url, array $headers, ?string $body, int $timeoutSeconds): CryptoCheckout\\Client\\Http\\Response
              {
                  $this->sent++;
                  return new CryptoCheckout\\Client\\Http\\Response(500, '');
              }
          };
          $client = new CryptoCheckout\\Client\\Client('https://pay.example.com/api', $transport);
          try {
              $client->createCheckout(['external_reference' => "\\xff\\xfe"]);
              echo json_encode('no error');
          } catch (InvalidArgumentException $exception) {
              echo json_encode([get_class($exception), $transport->sent]);
          }
        `);
        expect(result).toEqual(['InvalidArgumentException', 0]);
      });
    });

    describe('exception classes', () => {
      it('carry their details and share one base class', async () => {
        const details = await php().runJson(`${LOAD_CLIENT}
          use CryptoCheckout\\Client\\Exception as E;
          $cause = new RuntimeException('socket closed');
          $api = new E\\ApiException('invalid_request', 'Bad amount.', 400, 'fiat_amount');
          $network = new E\\NetworkException('Too slow.', true, $cause);
          $unexpected = new E\\UnexpectedResponseException('Odd.', 200, 'payments.0.tx_id', $cause);
          $webhook = new E\\InvalidWebhookException('timestamp', 'Not seconds.');
          $money = new E\\MoneyException('too_precise', 'Too many decimals.');
          $all = [$api, $network, $unexpected, $webhook, $money];
          echo json_encode([
              [$api->getErrorCode(), $api->getMessage(), $api->getHttpStatus(), $api->getField()],
              [$network->isTimeout(), $network->getPrevious() === $cause, (new E\\NetworkException('x'))->isTimeout()],
              [$unexpected->getHttpStatus(), $unexpected->getField(), $unexpected->getPrevious() === $cause],
              [$webhook->getField(), $money->getErrorCode()],
              array_map(static function ($exception) {
                  return $exception instanceof E\\CryptoCheckoutException && $exception instanceof RuntimeException;
              }, $all),
          ]);
        `);
        expect(details).toEqual([
          ['invalid_request', 'Bad amount.', 400, 'fiat_amount'],
          [true, true, false],
          [200, 'payments.0.tx_id', true],
          ['timestamp', 'too_precise'],
          [true, true, true, true, true],
        ]);
      });
    });
  },
  { mounts: CLIENT_MOUNTS },
);
