import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeEachPhp } from '@cryptocheckout/php-testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_MOUNTS, LOAD_CLIENT, VECTORS_ROOT } from './harness.js';

// Runs every conformance vector of packages/core/vectors through the PHP port, one test per vector.
// PHP decodes the vector files itself, so amounts reach the port as PHP's json_decode gives them
// (floats included), exactly as they arrive from the service.

function readVectors<T>(file: string): T | undefined {
  const path = join(VECTORS_ROOT, file);
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as T) : undefined;
}

interface AddressVectors {
  cases: Array<
    | { name: string; network: string; address: string; valid: true; canonical: string }
    | { name: string; network: string; address: string; valid: false; code: string; detectedNetwork?: string }
  >;
}
interface MoneyVectors {
  parse: Array<{ name: string; currency: string; input: unknown; minor?: string; error?: string }>;
  compare: Array<{ a: string; b: string; result: number }>;
  add: Array<{ a: string; b: string; sum: string }>;
}
interface ShapeVectors<Key extends string> {
  valid: Array<{ name: string } & Record<Key, unknown>>;
  invalid: Array<{ name: string; field: string } & Record<Key, unknown>>;
}
interface ReconcileVectors {
  cases: Array<{ name: string; expected: { action: string; reason?: string } }>;
}
interface SignatureVectors {
  sign: Array<{ name: string }>;
  verify: Array<{ name: string; valid: boolean }>;
}

const addresses = readVectors<AddressVectors>('addresses.json');
const money = readVectors<MoneyVectors>('money.json');
const webhooks = readVectors<ShapeVectors<'body'>>('webhooks.json');
const lookups = readVectors<ShapeVectors<'data'>>('lookups.json');
const lockedRates = readVectors<ShapeVectors<'rate'>>('locked-rates.json');
const reconcile = readVectors<ReconcileVectors>('reconcile.json');
const signatures = readVectors<SignatureVectors>('signatures.json');

const SETTLED_FIELDS = [
  'event',
  'transaction_code',
  'external_reference',
  'fiat_amount',
  'fiat_currency',
  'received_usd',
  'wallet_address',
  'wallet_currency',
  'wallet_network',
  'payout_dispatched',
  'timestamp',
];

describe('vector files', () => {
  it.each([
    'addresses.json',
    'money.json',
    'webhooks.json',
    'lookups.json',
    'locked-rates.json',
    'reconcile.json',
    'signatures.json',
  ])('%s is present', (file) => {
    expect(existsSync(join(VECTORS_ROOT, file))).toBe(true);
  });
});

describeEachPhp(
  'PHP port',
  ({ php }) => {
    describe.runIf(addresses)('addresses.json', () => {
      let results: Array<Record<string, unknown>> = [];
      beforeAll(async () => {
        results = (await php().runJson(`${LOAD_CLIENT}
          use CryptoCheckout\\Client\\Wallet\\AddressValidator;
          $vectors = json_decode(file_get_contents('/vectors/addresses.json'), true);
          echo json_encode(array_map(static function (array $case): array {
              return AddressValidator::validate($case['network'], $case['address']);
          }, $vectors['cases']), JSON_INVALID_UTF8_SUBSTITUTE);
        `)) as Array<Record<string, unknown>>;
      });

      it.each(
        (addresses?.cases ?? []).map((vector, index) => [vector.name, vector, index] as const),
      )('%s', (_name, vector, index) => {
        const result = results[index];
        if (vector.valid) {
          expect(result).toEqual({ valid: true, address: vector.canonical });
        } else {
          expect(result).toMatchObject({ valid: false, code: vector.code });
          expect(result?.detectedNetwork).toBe(vector.detectedNetwork);
          expect(String(result?.message).length).toBeGreaterThan(10);
        }
      });
    });

    describe.runIf(money)('money.json', () => {
      let results: {
        parse: Array<{ minor?: string; minorInt?: number; error?: string; message?: string }>;
        compare: Array<[number, number]>;
        add: string[];
      } = { parse: [], compare: [], add: [] };
      beforeAll(async () => {
        results = (await php().runJson(`${LOAD_CLIENT}
          use CryptoCheckout\\Client\\Exception\\MoneyException;
          use CryptoCheckout\\Client\\Money;
          $vectors = json_decode(file_get_contents('/vectors/money.json'), true);
          $parse = [];
          foreach ($vectors['parse'] as $case) {
              try {
                  $parse[] = [
                      'minor' => Money::toMinorUnits($case['input'], $case['currency']),
                      'minorInt' => Money::toMinorUnitsInt($case['input'], $case['currency']),
                  ];
              } catch (MoneyException $exception) {
                  $parse[] = ['error' => $exception->getErrorCode(), 'message' => $exception->getMessage()];
              }
          }
          $compare = [];
          foreach ($vectors['compare'] as $case) {
              $compare[] = [Money::compare($case['a'], $case['b']), Money::compare($case['b'], $case['a'])];
          }
          $add = [];
          foreach ($vectors['add'] as $case) {
              $add[] = Money::add($case['a'], $case['b']);
          }
          echo json_encode(['parse' => $parse, 'compare' => $compare, 'add' => $add]);
        `)) as typeof results;
      });

      it.each(
        (money?.parse ?? []).map((vector, index) => [vector.name, vector, index] as const),
      )('parse: %s', (_name, vector, index) => {
        const result = results.parse[index];
        if (vector.error !== undefined) {
          expect(result).toMatchObject({ error: vector.error });
          expect(String(result?.message).length).toBeGreaterThan(10);
        } else {
          expect(result).toEqual({ minor: vector.minor, minorInt: Number(vector.minor) });
        }
      });

      it.each(
        (money?.compare ?? []).map((vector, index) => [vector.a, vector.b, vector, index] as const),
      )('compare %s with %s', (_a, _b, vector, index) => {
        expect(results.compare[index]).toEqual([vector.result, -vector.result || 0]);
      });

      it.each(
        (money?.add ?? []).map((vector, index) => [vector.a, vector.b, vector, index] as const),
      )('add %s + %s', (_a, _b, vector, index) => {
        expect(results.add[index]).toBe(vector.sum);
      });
    });

    describe.runIf(webhooks)('webhooks.json', () => {
      let results: { valid: Array<Record<string, unknown>>; invalid: Array<Record<string, unknown>> } = {
        valid: [],
        invalid: [],
      };
      beforeAll(async () => {
        results = (await php().runJson(`${LOAD_CLIENT}
          use CryptoCheckout\\Client\\Exception\\InvalidWebhookException;
          use CryptoCheckout\\Client\\WebhookParser;
          // Each body goes back to JSON text, which is what a webhook endpoint receives.
          $vectors = json_decode(file_get_contents('/vectors/webhooks.json'));
          $run = static function (array $cases): array {
              $results = [];
              foreach ($cases as $case) {
                  try {
                      $results[] = ['body' => WebhookParser::parse(json_encode($case->body))];
                  } catch (InvalidWebhookException $exception) {
                      $results[] = ['field' => $exception->getField(), 'message' => $exception->getMessage()];
                  }
              }
              return $results;
          };
          echo json_encode(['valid' => $run($vectors->valid), 'invalid' => $run($vectors->invalid)]);
        `)) as typeof results;
      });

      it.each(
        (webhooks?.valid ?? []).map((vector, index) => [vector.name, vector, index] as const),
      )('valid: %s', (_name, vector, index) => {
        const sent = vector.body as Record<string, unknown>;
        const expected = Object.fromEntries(SETTLED_FIELDS.map((field) => [field, sent[field]]));
        expect(results.valid[index]).toEqual({ body: expected });
        expect(Object.keys(results.valid[index]?.body as object)).toEqual(SETTLED_FIELDS);
      });

      it.each(
        (webhooks?.invalid ?? []).map((vector, index) => [vector.name, vector, index] as const),
      )('invalid: %s', (_name, vector, index) => {
        expect(results.invalid[index]).toMatchObject({ field: vector.field });
      });
    });

    describe.runIf(lookups)('lookups.json', () => {
      let results: { valid: Array<Record<string, unknown>>; invalid: Array<Record<string, unknown>> } = {
        valid: [],
        invalid: [],
      };
      beforeAll(async () => {
        results = (await php().runJson(`${LOAD_CLIENT}
          use CryptoCheckout\\Client\\Exception\\UnexpectedResponseException;
          use CryptoCheckout\\Client\\ResponseValidator;
          // Objects stay objects, as the client decodes them, so {} and [] are told apart.
          $vectors = json_decode(file_get_contents('/vectors/lookups.json'));
          $run = static function (array $cases): array {
              $results = [];
              foreach ($cases as $case) {
                  try {
                      $results[] = ['data' => ResponseValidator::transaction($case->data)];
                  } catch (UnexpectedResponseException $exception) {
                      $results[] = ['field' => $exception->getField(), 'message' => $exception->getMessage()];
                  }
              }
              return $results;
          };
          echo json_encode(['valid' => $run($vectors->valid), 'invalid' => $run($vectors->invalid)]);
        `)) as typeof results;
      });

      it.each(
        (lookups?.valid ?? []).map((vector, index) => [vector.name, vector, index] as const),
      )('valid: %s', (_name, vector, index) => {
        expect(results.valid[index]).toEqual({ data: vector.data });
      });

      it.each(
        (lookups?.invalid ?? []).map((vector, index) => [vector.name, vector, index] as const),
      )('invalid: %s', (_name, vector, index) => {
        expect(results.invalid[index]).toMatchObject({ field: vector.field });
      });
    });

    describe.runIf(lockedRates)('locked-rates.json', () => {
      let results: { valid: unknown[]; invalid: unknown[] } = { valid: [], invalid: [] };
      beforeAll(async () => {
        results = (await php().runJson(`${LOAD_CLIENT}
          use CryptoCheckout\\Client\\LockedRate;
          $vectors = json_decode(file_get_contents('/vectors/locked-rates.json'));
          $run = static function (array $cases): array {
              return array_map(static function ($case) {
                  $rate = LockedRate::fromArray($case->rate);
                  return $rate === null ? null : $rate->toArray();
              }, $cases);
          };
          echo json_encode(['valid' => $run($vectors->valid), 'invalid' => $run($vectors->invalid)]);
        `)) as typeof results;
      });

      it.each(
        (lockedRates?.valid ?? []).map((vector, index) => [vector.name, vector, index] as const),
      )('valid: %s is read back unchanged', (_name, vector, index) => {
        expect(results.valid[index]).toEqual(vector.rate);
      });

      it.each(
        (lockedRates?.invalid ?? []).map((vector, index) => [vector.name, vector, index] as const),
      )('invalid: %s is left out', (_name, _vector, index) => {
        expect(results.invalid[index]).toBeNull();
      });
    });

    describe.runIf(reconcile)('reconcile.json', () => {
      let results: Array<Record<string, unknown>> = [];
      beforeAll(async () => {
        results = (await php().runJson(`${LOAD_CLIENT}
          use CryptoCheckout\\Client\\Reconciler;
          $vectors = json_decode(file_get_contents('/vectors/reconcile.json'), true);
          echo json_encode(array_map(static function (array $case): array {
              return Reconciler::decide($case['stored'], $case['lookup']);
          }, $vectors['cases']));
        `)) as Array<Record<string, unknown>>;
      });

      it.each(
        (reconcile?.cases ?? []).map((vector, index) => [vector.name, vector, index] as const),
      )('%s', (_name, vector, index) => {
        const decision = results[index];
        expect(decision).toMatchObject({ action: vector.expected.action });
        if (vector.expected.reason !== undefined) expect(decision?.reason).toBe(vector.expected.reason);
        expect(String(decision?.note).length).toBeGreaterThan(10);
        // A hold tells the merchant how much is missing; no other action carries an amount.
        expect('amount_due_usd' in (decision ?? {})).toBe(vector.expected.action === 'hold_underpaid');
      });
    });

    describe.runIf(signatures)('signatures.json', () => {
      let results: { sign: unknown[]; verify: unknown[] } = { sign: [], verify: [] };
      beforeAll(async () => {
        results = (await php().runJson(`${LOAD_CLIENT}
          use CryptoCheckout\\Client\\WebhookParser;
          $vectors = json_decode(file_get_contents('/vectors/signatures.json'), true);
          // The PHP port only verifies: a header the TypeScript signer wrote must verify when it was
          // made, and every verify case must end as the vector says.
          $sign = array_map(static function (array $case): bool {
              return WebhookParser::verifySignature($case['secret'], $case['body'], $case['header'], $case['timestamp']);
          }, $vectors['sign']);
          $verify = array_map(static function (array $case): bool {
              return isset($case['toleranceSeconds'])
                  ? WebhookParser::verifySignature($case['secret'], $case['body'], $case['header'], $case['now'], $case['toleranceSeconds'])
                  : WebhookParser::verifySignature($case['secret'], $case['body'], $case['header'], $case['now']);
          }, $vectors['verify']);
          echo json_encode(['sign' => $sign, 'verify' => $verify]);
        `)) as typeof results;
      });

      it.each(
        (signatures?.sign ?? []).map((vector, index) => [vector.name, index] as const),
      )('verifies the signed header: %s', (_name, index) => {
        expect(results.sign[index]).toBe(true);
      });

      it.each(
        (signatures?.verify ?? []).map((vector, index) => [vector.name, vector, index] as const),
      )('verify: %s', (_name, vector, index) => {
        expect(results.verify[index]).toBe(vector.valid);
      });
    });
  },
  { mounts: CLIENT_MOUNTS },
);
