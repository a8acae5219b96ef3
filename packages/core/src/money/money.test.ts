import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MoneyError } from '../errors.js';
import { FIAT_CURRENCY_CODES } from './currencies.js';
import {
  addDecimals,
  compareDecimals,
  divideDecimals,
  multiplyDecimals,
  parseDecimal,
  scaledToDecimal,
  subtractDecimalsAtLeastZero,
} from './decimal.js';
import { fiatMinorUnits, formatMinorUnits, normalizeFiatAmount, toMinorUnits } from './fiat.js';

interface MoneyVectors {
  parse: Array<{ name: string; currency: string; input: unknown; minor?: string; error?: string }>;
  compare: Array<{ a: string; b: string; result: number }>;
  add: Array<{ a: string; b: string; sum: string }>;
}
const vectors = JSON.parse(
  readFileSync(new URL('../../vectors/money.json', import.meta.url), 'utf8'),
) as MoneyVectors;

describe('money vectors', () => {
  it.each(vectors.parse.map((c) => [c.name, c] as const))('parse: %s', (_name, vector) => {
    if (vector.error) {
      const attempt = () => toMinorUnits(vector.input, vector.currency);
      expect(attempt).toThrow(MoneyError);
      try {
        attempt();
      } catch (error) {
        expect((error as MoneyError).code).toBe(vector.error);
        expect((error as MoneyError).message.length).toBeGreaterThan(10);
      }
    } else {
      expect(toMinorUnits(vector.input, vector.currency).toString()).toBe(vector.minor);
    }
  });
  it.each(vectors.compare)('compare $a with $b', ({ a, b, result }) => {
    expect(compareDecimals(a, b)).toBe(result);
    expect(compareDecimals(b, a)).toBe(-result || 0);
  });
  it.each(vectors.add)('add $a + $b', ({ a, b, sum }) => {
    expect(addDecimals(a, b)).toBe(sum);
  });
});

describe('minor units', () => {
  it('knows the ISO 4217 exponents', () => {
    expect(fiatMinorUnits('JPY')).toBe(0);
    expect(fiatMinorUnits('USD')).toBe(2);
    expect(fiatMinorUnits('KWD')).toBe(3);
  });
  it('formats with exactly the currency decimals', () => {
    expect(formatMinorUnits(1250n, 'USD')).toBe('12.50');
    expect(formatMinorUnits(5n, 'KWD')).toBe('0.005');
    expect(formatMinorUnits(1500n, 'JPY')).toBe('1500');
    expect(normalizeFiatAmount(12.5, 'EUR')).toBe('12.50');
  });
  it('names the fix in its messages', () => {
    expect(() => toMinorUnits('1.005', 'USD')).toThrow(/at most 2/);
    expect(() => toMinorUnits('10.5', 'JPY')).toThrow(/whole number/);
    expect(() => toMinorUnits('1', 'usd')).toThrow(/ISO 4217/);
  });
});

describe('exact arithmetic', () => {
  it('rounds products and quotients as asked', () => {
    expect(multiplyDecimals('10.00', '1.0842', 2, 'half_up')).toBe('10.84');
    expect(multiplyDecimals('0.005', '1', 2, 'half_up')).toBe('0.01');
    expect(multiplyDecimals('0.005', '1', 2, 'down')).toBe('0.00');
    expect(divideDecimals('100', '3', 2, 'down')).toBe('33.33');
    expect(divideDecimals('100', '3', 2, 'up')).toBe('33.34');
    expect(divideDecimals('2', '3', 2, 'half_up')).toBe('0.67');
    expect(divideDecimals('25.00', '64000.5', 8, 'up')).toBe('0.00039063');
    expect(() => divideDecimals('1', '0', 2, 'up')).toThrow(MoneyError);
  });
  it('never goes below zero on subtraction', () => {
    expect(subtractDecimalsAtLeastZero('10.00', '2.5')).toBe('7.5');
    expect(subtractDecimalsAtLeastZero('1', '2')).toBe('0');
  });
});

describe('properties', () => {
  const minorAmount = fc.bigInt({ min: 0n, max: 10n ** 14n });
  const currency = fc.constantFrom(...FIAT_CURRENCY_CODES);

  it('format → parse round-trips every amount in every currency', () => {
    fc.assert(
      fc.property(minorAmount, currency, (minor, code) => {
        expect(toMinorUnits(formatMinorUnits(minor, code), code)).toBe(minor);
      }),
    );
  });
  it('addition is exact where binary floats are not', () => {
    fc.assert(
      fc.property(minorAmount, minorAmount, (a, b) => {
        const sum = addDecimals(scaledToDecimal(a, 2), scaledToDecimal(b, 2));
        expect(toMinorUnits(sum, 'USD')).toBe(a + b);
      }),
    );
  });
  it('comparison agrees with integer comparison', () => {
    fc.assert(
      fc.property(minorAmount, minorAmount, fc.integer({ min: 0, max: 8 }), (a, b, scale) => {
        const expected = a === b ? 0 : a < b ? -1 : 1;
        expect(compareDecimals(scaledToDecimal(a, scale), scaledToDecimal(b, scale))).toBe(expected);
      }),
    );
  });
  it('a JSON number parses to the same amount as its text', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), (cents) => {
        const asNumber = cents / 100;
        expect(parseDecimal(asNumber)).toBe(parseDecimal(scaledToDecimal(BigInt(cents), 2)));
      }),
    );
  });
  it('rounding up never gives less than the exact quotient', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 ** 9 }),
        fc.integer({ min: 1, max: 10 ** 7 }),
        (usdCents, price) => {
          const quotient = divideDecimals(scaledToDecimal(BigInt(usdCents), 2), String(price), 6, 'up');
          const backInUsd = multiplyDecimals(quotient, String(price), 8, 'down');
          expect(compareDecimals(backInUsd, scaledToDecimal(BigInt(usdCents), 2))).toBeGreaterThanOrEqual(0);
        },
      ),
    );
  });
});
