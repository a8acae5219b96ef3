import { describe, expect, it } from 'vitest';
import { sumDecimals } from './money.js';

describe('sumDecimals', () => {
  it('adds exactly where floats would not', () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(sumDecimals(['0.1', '0.2'])).toBe('0.3');
    expect(
      sumDecimals(
        Array.from({ length: 30 }, () => '0.10'),
        2,
      ),
    ).toBe('3.00');
  });

  it('keeps the largest scale and at least the minimum decimals', () => {
    expect(sumDecimals(['12.5', '1.25'])).toBe('13.75');
    expect(sumDecimals(['1', '2'], 2)).toBe('3.00');
    expect(sumDecimals([], 2)).toBe('0.00');
    expect(sumDecimals(['0.000001', '0.000002'])).toBe('0.000003');
  });

  it('stays exact beyond the range of doubles', () => {
    expect(sumDecimals(['9007199254740993.01', '1.00'])).toBe('9007199254740994.01');
  });

  it('handles negative values', () => {
    expect(sumDecimals(['-1.50', '1.25'])).toBe('-0.25');
    expect(sumDecimals(['-0.5', '0.5'])).toBe('0.0');
  });

  it('refuses text that is no decimal', () => {
    expect(() => sumDecimals(['1.2.3'])).toThrow(RangeError);
    expect(() => sumDecimals(['1e5'])).toThrow(RangeError);
    expect(() => sumDecimals([''])).toThrow(RangeError);
  });
});
