// Hostile values the fuzz generators build requests from.
import fc from 'fast-check';

/** Strings that have broken servers: control characters, lone surrogates, numbers in disguise. */
export const nastyText = fc.oneof(
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

export const hugeNumber = fc.constantFrom(
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

export const jsonish: fc.Arbitrary<unknown> = fc.oneof(
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

/** A generated value as query text: strings as they are, anything else as its JSON. */
export function asText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}

/** Percent-encodes, turning a lone surrogate into invalid UTF-8 escapes instead of throwing. */
export function encode(value: string): string {
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
