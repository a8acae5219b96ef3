import { createHmac } from 'node:crypto';
import { FIAT_CURRENCIES, NETWORKS, ORDER_STATES, TRANSACTION_STATUSES } from '@cryptocheckout/core';
import { signWebhook, verifyWebhookSignature } from '@cryptocheckout/core/node';
import { describeEachPhp } from '@cryptocheckout/php-testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CLIENT_MOUNTS, LOAD_CLIENT } from './harness.js';

describeEachPhp(
  'PHP client primitives',
  ({ php }) => {
    /** Runs PHP after loading the client; `input` arrives as `$input`, decoded from JSON. */
    const run = (body: string, input: unknown = null) =>
      php().runJson(
        `${LOAD_CLIENT}\n$input = json_decode(file_get_contents('php://input'), true);\n${body}`,
        {
          body: JSON.stringify(input),
        },
      );
    /** The MoneyException code `call` (a PHP expression using Money) fails with. */
    const moneyErrorCode = (call: string) =>
      run(`
        use CryptoCheckout\\Client\\Money;
        try { ${call}; echo json_encode(null); } catch (CryptoCheckout\\Client\\Exception\\MoneyException $e) { echo json_encode($e->getErrorCode()); }
      `);

    describe('Keccak', () => {
      it('hashes the published vectors', async () => {
        const hashes = await run(`
          use CryptoCheckout\\Client\\Wallet\\Keccak;
          echo json_encode([Keccak::hash256Hex(''), Keccak::hash256Hex('abc'), strlen(Keccak::hash256('abc'))]);
        `);
        expect(hashes).toEqual([
          'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470',
          '4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45',
          32,
        ]);
      });

      // Lengths around the 136-byte rate exercise the padding and multi-block absorption;
      // the digests come from the reference implementation (@noble/hashes keccak_256).
      it('pads and absorbs across block boundaries', async () => {
        const hashes = await run(
          `
          use CryptoCheckout\\Client\\Wallet\\Keccak;
          echo json_encode(array_map(static function (int $length): string {
              return Keccak::hash256Hex(str_repeat('a', $length));
          }, $input));
        `,
          [135, 136, 300],
        );
        expect(hashes).toEqual([
          '34367dc248bbd832f4e3e69dfaac2f92638bd0bbd18f2912ba4ef454919cf446',
          'a6c4d403279fe3e0af03729caada8374b5ca54d8065329a3ebcaeb4b60aa386e',
          '5b7e0e47a96f32a88b4f14ca177982790807c40e1a105742ba0fc1babe1ef826',
        ]);
      });

      it('produces the checksummed addresses listed in EIP-55', async () => {
        const addresses = [
          '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
          '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
          '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
          '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
        ];
        const checksummed = await run(
          `
          use CryptoCheckout\\Client\\Wallet\\AddressValidator;
          echo json_encode(array_map([AddressValidator::class, 'toChecksumAddress'], $input));
        `,
          addresses.map((address) => address.slice(2).toLowerCase()),
        );
        expect(checksummed).toEqual(addresses);
      });
    });

    describe('Base58 and Bech32', () => {
      it('decodes base58 with leading zero bytes and rejects foreign characters', async () => {
        const decoded = await run(`
          use CryptoCheckout\\Client\\Wallet\\Base58;
          try {
              Base58::decode('0abc');
              $rejected = false;
          } catch (InvalidArgumentException $exception) {
              $rejected = true;
          }
          echo json_encode([
              bin2hex(Base58::decode('')),
              bin2hex(Base58::decode('11')),
              bin2hex(Base58::decode('2g')),
              bin2hex(Base58::decode('1112')),
              $rejected,
              Base58::firstInvalidCharacter('abcOdef'),
              Base58::hasChecksum(Base58::decode('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa')),
              Base58::hasChecksum(Base58::decode('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb')),
          ]);
        `);
        expect(decoded).toEqual(['', '0000', '61', '00000001', true, 'O', true, false]);
      });

      it('decodes the BIP-173 and BIP-350 checksum vectors', async () => {
        const results = await run(`
          use CryptoCheckout\\Client\\Wallet\\Bech32;
          $check = static function (string $text, string $variant) {
              $decoded = Bech32::decode($text, $variant);
              return $decoded === null ? null : $decoded['prefix'] . ':' . count($decoded['words']);
          };
          echo json_encode([
              $check('a12uel5l', Bech32::BECH32),
              $check('abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw', Bech32::BECH32),
              $check('a1lqfn3a', Bech32::BECH32M),
              $check('abcdef1l7aum6echk45nj3s0wdvt2fg8x9yrzpqzd3ryx', Bech32::BECH32M),
              $check('a12uel5l', Bech32::BECH32M),
              $check('a12uel5m', Bech32::BECH32),
              $check('A12UEL5L', Bech32::BECH32),
              $check('1qzzfhee', Bech32::BECH32),
          ]);
        `);
        expect(results).toEqual(['a:0', 'abcdef:32', 'a:0', 'abcdef:32', null, null, null, null]);
      });

      it('regroups 5-bit words into bytes and refuses bad padding', async () => {
        const results = await run(`
          use CryptoCheckout\\Client\\Wallet\\Bech32;
          $bytes = static function (array $words) {
              $result = Bech32::wordsToBytes($words);
              return $result === null ? null : bin2hex($result);
          };
          // 0xff = 11111111 -> words 11111 111(00); a set padding bit or a whole spare word is refused.
          echo json_encode([$bytes([31, 28]), $bytes([31, 29]), $bytes([31, 28, 0]), $bytes([])]);
        `);
        expect(results).toEqual(['ff', null, null, '']);
      });
    });

    describe('Money', () => {
      it('writes floats as their shortest exact decimal whatever the precision settings', async () => {
        const texts = await run(`
          use CryptoCheckout\\Client\\Money;
          ini_set('precision', '17');
          ini_set('serialize_precision', '17');
          echo json_encode(array_map([Money::class, 'floatToString'], [12.5, 0.1, 0.30000000000000004, 27.11, 1e21, 1e-7, 100.0, 1793527200.5]));
        `);
        expect(texts).toEqual([
          '12.5',
          '0.1',
          '0.30000000000000004',
          '27.11',
          '1000000000000000000000',
          '0.0000001',
          '100',
          '1793527200.5',
        ]);
      });

      it('formats minor units with exactly the currency decimals', async () => {
        const formatted = await run(`
          use CryptoCheckout\\Client\\Money;
          echo json_encode([
              Money::formatMinorUnits(1250, 'USD'),
              Money::formatMinorUnits('5', 'KWD'),
              Money::formatMinorUnits(1500, 'JPY'),
              Money::formatMinorUnits(0, 'EUR'),
              Money::normalizeFiatAmount(12.5, 'EUR'),
              Money::normalizeFiatAmount('7', 'BHD'),
              Money::minorUnits('JPY'),
              Money::minorUnits('KWD'),
              Money::isSupportedCurrency('usd'),
          ]);
        `);
        expect(formatted).toEqual(['12.50', '0.005', '1500', '0.00', '12.50', '7.000', 0, 3, false]);
      });

      it('scales an amount by the ratio of two others exactly, rounded half up', async () => {
        const scaled = await run(`
          use CryptoCheckout\\Client\\Money;
          echo json_encode([
              Money::scaleByRatio('7000.00', '26.00', '25.00', 2),
              Money::scaleByRatio('25', '1', '3', 2),
              Money::scaleByRatio('25', '2', '3', 2),
              Money::scaleByRatio('0.05', '1', '2', 1),
              Money::scaleByRatio('0.15', '1', '2', 2),
              Money::scaleByRatio('999999999999999.99', '3', '0.03', 2),
              Money::scaleByRatio(12.5, '1', '1', 0),
          ]);
        `);
        expect(scaled).toEqual(['7280.00', '8.33', '16.67', '0.0', '0.08', '99999999999999999.00', '13']);
        const zero = await moneyErrorCode(`Money::scaleByRatio('1', '1', '0.00', 2)`);
        expect(zero).toBe('invalid_amount');
      });

      it("rounds amounts computed with too many decimals half up to the currency's precision", async () => {
        const rounded = await run(`
          use CryptoCheckout\\Client\\Money;
          echo json_encode([
              Money::roundFiatAmount('2680.50', 'JPY'),
              Money::roundFiatAmount(2680.49, 'JPY'),
              Money::roundFiatAmount('999.5', 'KRW'),
              Money::roundFiatAmount('10.005', 'EUR'),
              Money::roundFiatAmount('9.995', 'EUR'),
              Money::roundFiatAmount('0.004', 'USD'),
              Money::roundFiatAmount('17.86', 'USD'),
              Money::roundFiatAmount('7', 'KWD'),
              Money::roundHalfUp('2.5', 2),
              Money::roundHalfUp('0.125', 2),
              Money::roundHalfUp(0.1249, 2),
          ]);
        `);
        expect(rounded).toEqual([
          '2681',
          '2680',
          '1000',
          '10.01',
          '10.00',
          '0.00',
          '17.86',
          '7.000',
          '2.50',
          '0.13',
          '0.12',
        ]);
        const refused = await moneyErrorCode(`Money::roundFiatAmount('12.5', 'PKR')`);
        expect(refused).toBe('unsupported_currency');
      });

      it('adds, compares and subtracts beyond the range of floats, exactly', async () => {
        const results = await run(`
          use CryptoCheckout\\Client\\Money;
          echo json_encode([
              Money::add('999999999999998.99', '0.01'),
              Money::add(0.1, 0.2),
              Money::compare('123456789012345.000000001', '123456789012345'),
              Money::compare(27.11, '27.110'),
              Money::subtractAtLeastZero('27.11', '27.1'),
              Money::subtractAtLeastZero('1', '2'),
              Money::subtractAtLeastZero('100', '0.01'),
          ]);
        `);
        expect(results).toEqual(['999999999999999', '0.3', 1, 0, '0.01', '0', '99.99']);
      });

      it('refuses a sum beyond 15 integer digits, as the TypeScript core does', async () => {
        const result = await run(`
          try {
              CryptoCheckout\\Client\\Money::add('999999999999999.99', '0.01');
              echo json_encode('no error');
          } catch (CryptoCheckout\\Client\\Exception\\MoneyException $exception) {
              echo json_encode($exception->getErrorCode());
          }
        `);
        expect(result).toBe('too_large');
      });

      it('uses the same currency table as the TypeScript core', async () => {
        const table = await run(`echo json_encode(CryptoCheckout\\Client\\Money::currencies());`);
        const expected = Object.fromEntries(
          Object.entries(FIAT_CURRENCIES).map(([code, currency]) => [code, currency.minorUnits]),
        );
        expect(table).toEqual(expected);
      });
    });

    describe('catalogs mirrored from the TypeScript core', () => {
      it('has the same networks and assets', async () => {
        const networks = await run(`echo json_encode(CryptoCheckout\\Client\\Wallet\\Networks::all());`);
        expect(networks).toEqual(JSON.parse(JSON.stringify(NETWORKS)));
      });

      it('looks networks and assets up by exact id', async () => {
        const results = await run(`
          use CryptoCheckout\\Client\\Wallet\\Networks;
          echo json_encode([
              Networks::get('polygon'),
              Networks::get('BSC')['chainId'],
              Networks::asset('BSC', 'USDC')['decimals'],
              Networks::isAssetOnNetwork('USDC', 'TRON'),
              Networks::isAssetOnNetwork('USDT', 'TRON'),
              Networks::DEFAULT_SETTLEMENT,
          ]);
        `);
        expect(results).toEqual([
          null,
          56,
          18,
          false,
          true,
          { crypto_currency: 'USDC', crypto_currency_network: 'POLYGON' },
        ]);
      });

      it('knows the same transaction statuses and order states', async () => {
        const lists = await run(`
          echo json_encode([
              CryptoCheckout\\Client\\ResponseValidator::TRANSACTION_STATUSES,
              CryptoCheckout\\Client\\Reconciler::ORDER_STATES,
          ]);
        `);
        expect(lists).toEqual([[...TRANSACTION_STATUSES], [...ORDER_STATES]]);
      });
    });

    describe('WebhookParser', () => {
      it('refuses a body that is not JSON, naming the body itself', async () => {
        const result = await run(`
          try {
              CryptoCheckout\\Client\\WebhookParser::parse('event=transaction.settled');
              echo json_encode('no error');
          } catch (CryptoCheckout\\Client\\Exception\\InvalidWebhookException $exception) {
              echo json_encode([$exception->getField(), $exception->getMessage()]);
          }
        `);
        expect(result).toEqual(['', expect.stringMatching(/^The webhook body is not JSON/)]);
      });

      it('reads a whole-number timestamp written with a fraction as an integer', async () => {
        const body = {
          event: 'transaction.settled',
          transaction_code: '7d3f2a10-5b6c-4e8d-9f01-23456789abcd',
          external_reference: 'order-1001',
          fiat_amount: 25,
          fiat_currency: 'EUR',
          received_usd: 27.11,
          wallet_address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
          wallet_currency: 'USDC',
          wallet_network: 'POLYGON',
          payout_dispatched: true,
        };
        const parsed = await run(
          `
          $parsed = CryptoCheckout\\Client\\WebhookParser::parse($input);
          echo json_encode([$parsed['timestamp'], gettype($parsed['timestamp']), gettype($parsed['received_usd'])]);
        `,
          `${JSON.stringify(body).slice(0, -1)},"timestamp":1793527200.0}`,
        );
        expect(parsed).toEqual([1793527200, 'integer', 'double']);
      });

      // The shared cases are in packages/core/vectors/signatures.json (vectors.test.ts); these are
      // the inputs JSON cannot carry or a PHP caller alone can pass.
      it('verifies a signature over raw bytes that are not UTF-8', async () => {
        const body = Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x22]);
        const digest = createHmac('sha256', 'whsec_test').update('1793527200.').update(body).digest('hex');
        const results = await run(
          `
          $body = base64_decode($input['body']);
          echo json_encode([
              CryptoCheckout\\Client\\WebhookParser::verifySignature('whsec_test', $body, $input['header'], 1793527200),
              CryptoCheckout\\Client\\WebhookParser::verifySignature('whsec_test', $body . "\\0", $input['header'], 1793527200),
          ]);
        `,
          { body: body.toString('base64'), header: `t=1793527200,v1=${digest}` },
        );
        expect(results).toEqual([true, false]);
      });

      it('agrees with the TypeScript port on generated headers and extreme clocks, without a warning', async () => {
        const valid = signWebhook('whsec_test', '{}', 1793527200);
        const pieces = fc.constantFrom(
          't=',
          'v1=',
          '1=',
          '=',
          ',',
          '0',
          '1793527200',
          'ff',
          valid,
          `,${valid}`,
        );
        const headers = [
          valid,
          `${valid},1=ff`,
          ...fc.sample(fc.string({ unit: 'binary', maxLength: 120 }), { numRuns: 300, seed: 7 }),
          ...fc.sample(
            fc.array(pieces, { maxLength: 6 }).map((parts) => parts.join('')),
            { numRuns: 300, seed: 11 },
          ),
        ];
        const clocks = [
          [Number.MIN_SAFE_INTEGER, 300],
          [Number.MAX_SAFE_INTEGER, 300],
          [1793527200, -1],
          [1793527200, Number.MAX_SAFE_INTEGER],
        ];
        const results = await run(
          `
          $verify = static function (string $header, int $now, int $tolerance): bool {
              return CryptoCheckout\\Client\\WebhookParser::verifySignature('whsec_test', '{}', $header, $now, $tolerance);
          };
          $answers = [];
          foreach ($input['headers'] as $header) {
              $answers[] = $verify($header, 1793527200, 300);
          }
          foreach ($input['clocks'] as [$now, $tolerance]) {
              $answers[] = $verify($input['valid'], $now, $tolerance);
          }
          $answers[] = $verify($input['valid'], PHP_INT_MIN, 300);
          $answers[] = $verify($input['valid'], PHP_INT_MAX, 300);
          echo json_encode($answers);
        `,
          { headers, valid, clocks },
        );
        const expected = [
          ...headers.map((header) => verifyWebhookSignature('whsec_test', '{}', header, 1793527200)),
          ...clocks.map(([now, tolerance]) =>
            verifyWebhookSignature('whsec_test', '{}', valid, now!, tolerance),
          ),
          false,
          false,
        ];
        expect(results).toEqual(expected);
        expect(expected.filter(Boolean).length).toBeGreaterThan(2);
      });
    });

    describe('Reconciler', () => {
      const stored = {
        transaction_code: '7d3f2a10-5b6c-4e8d-9f01-23456789abcd',
        fiat_amount: '25.00',
        fiat_currency: 'EUR',
        wallet_address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
        wallet_currency: 'USDC',
        wallet_network: 'POLYGON',
        order_state: 'awaiting_payment',
      };
      const lookup = {
        transaction_code: stored.transaction_code,
        status: 'underpaid',
        fiat_amount: 25,
        fiat_currency: 'EUR',
        amount_in_usd: 27.11,
        received_usd: 20.1,
        wallet_address: stored.wallet_address,
        wallet_currency: 'USDC',
        wallet_network: 'POLYGON',
        late: false,
      };
      const decide = (overrides: Record<string, unknown>) =>
        run(`echo json_encode(CryptoCheckout\\Client\\Reconciler::decide($input[0], $input[1]));`, [
          stored,
          { ...lookup, ...overrides },
        ]);

      it('tells the merchant the amount still due, exactly', async () => {
        expect(await decide({})).toEqual({
          action: 'hold_underpaid',
          reason: 'underpaid',
          amount_due_usd: '7.01',
          note: 'Crypto Checkout: received 20.1 USD of 27.11 USD; 7.01 USD is still due. The order is on hold until the buyer tops up or you refund.',
        });
      });

      it("books a settlement short within the service's payment tolerance, saying how much is short, as the TypeScript core does", async () => {
        const tolerance = { percent: '1', accepted_shortfall_usd: '0.4' };
        const settled = { status: 'settled', amount_in_usd: 100, received_usd: 99.6 };
        expect(await decide({ ...settled, payment_tolerance: tolerance })).toEqual({
          action: 'mark_paid',
          reason: 'settled',
          note: `Crypto Checkout: payment of 99.60 USD settled (transaction ${stored.transaction_code}), 0.40 USD short, within the service's payment tolerance of 1%.`,
        });
        expect(
          await decide({ ...settled, late: true, payment_tolerance: { ...tolerance, percent: '1.0' } }),
        ).toMatchObject({
          reason: 'settled_late',
          note: `Crypto Checkout: payment of 99.60 USD settled (transaction ${stored.transaction_code}), after the checkout had expired, 0.40 USD short, within the service's payment tolerance of 1%.`,
        });
        // Short by more than the percent allows, or a tolerance that does not read: held as before.
        for (const payment_tolerance of [
          { percent: '0.39', accepted_shortfall_usd: '0.4' },
          { percent: 1, accepted_shortfall_usd: 'all' },
          '1%',
        ]) {
          expect(await decide({ ...settled, payment_tolerance })).toMatchObject({
            action: 'hold_underpaid',
            amount_due_usd: '0.4',
          });
        }
      });

      it('changes nothing for a status it does not know', async () => {
        expect(await decide({ status: 'refunded' })).toMatchObject({
          action: 'none',
          reason: 'unknown_status',
        });
      });

      it('compares addresses exactly on networks whose addresses are case-sensitive', async () => {
        const tron = {
          wallet_network: 'TRON',
          wallet_currency: 'USDT',
          wallet_address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
        };
        const result = await run(
          `echo json_encode([
              CryptoCheckout\\Client\\Reconciler::decide($input[0], $input[1])['action'],
              CryptoCheckout\\Client\\Reconciler::decide($input[0], $input[2])['reason'],
          ]);`,
          [
            { ...stored, ...tron },
            { ...lookup, ...tron },
            { ...lookup, ...tron, wallet_address: tron.wallet_address.toLowerCase() },
          ],
        );
        expect(result).toEqual(['hold_underpaid', 'wallet']);
      });
    });

    describe('autoloader', () => {
      it('loads classes from nested namespaces and ignores foreign ones', async () => {
        const results = await run(`
          echo json_encode([
              class_exists('CryptoCheckout\\\\Client\\\\Http\\\\StreamTransport'),
              interface_exists('CryptoCheckout\\\\Client\\\\Http\\\\Transport'),
              class_exists('CryptoCheckout\\\\Client\\\\NoSuchClass'),
              class_exists('Other\\\\Vendor\\\\Client'),
          ]);
        `);
        expect(results).toEqual([true, true, false, false]);
      });
    });
  },
  { mounts: CLIENT_MOUNTS },
);
