import { readFileSync } from 'node:fs';
import { sha256 } from '@noble/hashes/sha2.js';
import { base58, bech32, bech32m, createBase58check } from '@scure/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AddressProblemCode, validateWalletAddress } from './address.js';
import { toChecksumAddress } from './evm.js';
import { NETWORK_IDS, NETWORKS } from './networks.js';

interface VectorCase {
  name: string;
  network: string;
  address: string;
  valid: boolean;
  canonical?: string;
  code?: AddressProblemCode;
  detectedNetwork?: string;
}

const PROBLEM_CODES: readonly AddressProblemCode[] = [
  'empty',
  'whitespace',
  'unknown_network',
  'wrong_network',
  'testnet',
  'bad_format',
  'bad_length',
  'bad_character',
  'checksum_mismatch',
  'private_key',
];

const vectors = JSON.parse(
  readFileSync(new URL('../../vectors/addresses.json', import.meta.url), 'utf8'),
) as {
  description: string;
  cases: VectorCase[];
};

const base58check = createBase58check(sha256);
const bytesToHex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
const EVM_NETWORKS = NETWORKS.filter((n) => n.family === 'evm').map((n) => n.id);

describe('addresses.json conformance vectors', () => {
  it('has the shape the PHP port reads', () => {
    expect(vectors.description.length).toBeGreaterThan(0);
    expect(vectors.cases.length).toBeGreaterThanOrEqual(50);
    for (const c of vectors.cases) {
      const keys = Object.keys(c).sort();
      if (c.valid) {
        expect(keys, c.name).toEqual(['address', 'canonical', 'name', 'network', 'valid']);
      } else {
        const expected = ['address', 'code', 'name', 'network', 'valid'];
        if (c.code === 'wrong_network') expected.push('detectedNetwork');
        expect(keys, c.name).toEqual(expected.sort());
        expect(PROBLEM_CODES, c.name).toContain(c.code);
      }
    }
  });

  it('covers every problem code and every network', () => {
    const codes = new Set(vectors.cases.map((c) => c.code).filter(Boolean));
    expect([...codes].sort()).toEqual([...PROBLEM_CODES].sort());
    const validNetworks = new Set(vectors.cases.filter((c) => c.valid).map((c) => c.network));
    expect([...validNetworks].sort()).toEqual([...NETWORK_IDS].sort());
  });

  it.each(vectors.cases.map((c) => [`${c.network} ${c.name}`, c] as const))('%s', (_label, c) => {
    const result = validateWalletAddress(c.network, c.address);
    if (c.valid) {
      expect(result).toEqual({ valid: true, address: c.canonical });
      // Storing the canonical form and validating it again must be a no-op.
      expect(validateWalletAddress(c.network, c.canonical!)).toEqual({ valid: true, address: c.canonical });
    } else {
      expect(result.valid).toBe(false);
      if (result.valid) return;
      expect(result.code).toBe(c.code);
      expect(result.detectedNetwork).toBe(c.detectedNetwork);
      expect(result.message).toMatch(/^[A-Z].*[.!]$/);
    }
  });
});

describe('validateWalletAddress', () => {
  it('names both networks in a wrong-network message', () => {
    const result = validateWalletAddress('POLYGON', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t');
    expect(result.valid).toBe(false);
    if (result.valid) return;
    expect(result.message).toContain('TRON address');
    expect(result.message).toContain('POLYGON');
  });

  it('names the offending character, made visible when it is not printable', () => {
    const letterO = validateWalletAddress('SOLANA', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDtOv');
    expect(letterO.valid || letterO.message).toContain('"O"');
    const control = validateWalletAddress('TRON', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6\u0000');
    expect(control.valid || control.message).toContain('U+0000');
    const lookAlike = validateWalletAddress('POLYGON', '0x5\u0430aeb6053f3e94c9b9a09f33669435e7ef1beaed');
    expect(lookAlike.valid || lookAlike.message).toContain('(U+0430)');
  });

  it('answers unknown_network for any id outside the catalog, whatever the address', () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ unit: 'binary' }), (network, address) => {
        fc.pre(!(NETWORK_IDS as readonly string[]).includes(network));
        const result = validateWalletAddress(network, address);
        expect(result.valid === false && result.code).toBe('unknown_network');
      }),
    );
  });

  it('never throws and always answers with a known code', () => {
    const anyText = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 120 }),
      fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEFxTbcqp1lO '), maxLength: 100 }),
    );
    fc.assert(
      fc.property(fc.constantFrom(...NETWORK_IDS), anyText, (network, address) => {
        const result = validateWalletAddress(network, address);
        if (!result.valid) expect(PROBLEM_CODES).toContain(result.code);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses a valid address with a whitespace character inserted anywhere', () => {
    const spaces = ['\u0020', '\t', '\n', '\r', '\u00a0', '\u200b', '\u2028', '\u3000', '\ufeff'];
    const address = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
    fc.assert(
      fc.property(fc.nat({ max: address.length }), fc.constantFrom(...spaces), (at, space) => {
        const result = validateWalletAddress('POLYGON', address.slice(0, at) + space + address.slice(at));
        expect(result.valid === false && result.code).toBe('whitespace');
      }),
    );
  });
});

describe('EVM addresses (EIP-55)', () => {
  it('accepts any 20 bytes in lowercase, uppercase and checksummed form, with one stable canonical form', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 20, maxLength: 20 }),
        fc.constantFrom(...EVM_NETWORKS),
        (bytes, network) => {
          const lower = bytesToHex(bytes);
          const checksummed = toChecksumAddress(lower);
          expect(checksummed.toLowerCase()).toBe(`0x${lower}`);
          for (const form of [`0x${lower}`, `0x${lower.toUpperCase()}`, checksummed]) {
            expect(validateWalletAddress(network, form)).toEqual({ valid: true, address: checksummed });
          }
        },
      ),
    );
  });

  it('refuses a checksummed address with the case of one letter flipped', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 20, maxLength: 20 }), fc.nat(), (bytes, pick) => {
        const checksummed = toChecksumAddress(bytesToHex(bytes));
        const letterPositions = [...checksummed].flatMap((ch, i) => (i > 1 && /[a-f]/i.test(ch) ? [i] : []));
        fc.pre(letterPositions.length > 0);
        const at = letterPositions[pick % letterPositions.length]!;
        const ch = checksummed[at]!;
        const flippedChar = ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase();
        const flipped = checksummed.slice(0, at) + flippedChar + checksummed.slice(at + 1);
        const body = flipped.slice(2);
        // Flipping the only odd-cased letter yields a single-case address, which carries no checksum.
        fc.pre(body !== body.toLowerCase() && body !== body.toUpperCase());
        const result = validateWalletAddress('ETHEREUM', flipped);
        expect(result.valid === false && result.code).toBe('checksum_mismatch');
      }),
    );
  });
});

describe('TRON addresses', () => {
  it('accepts any 0x41-prefixed 21-byte payload in base58check and refuses it on other families', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 20, maxLength: 20 }), (accountId) => {
        const address = base58check.encode(Uint8Array.of(0x41, ...accountId));
        expect(address.startsWith('T')).toBe(true);
        expect(validateWalletAddress('TRON', address)).toEqual({ valid: true, address });
        for (const network of ['POLYGON', 'SOLANA', 'BITCOIN']) {
          const result = validateWalletAddress(network, address);
          expect(result.valid === false && [result.code, result.detectedNetwork]).toEqual([
            'wrong_network',
            'TRON',
          ]);
        }
      }),
    );
  });

  it('refuses a base58check payload with another version byte', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 255 }).filter((v) => v !== 0x41),
        fc.uint8Array({ minLength: 20, maxLength: 20 }),
        (version, accountId) => {
          const result = validateWalletAddress(
            'TRON',
            base58check.encode(Uint8Array.of(version, ...accountId)),
          );
          expect(result.valid).toBe(false);
        },
      ),
    );
  });
});

describe('Solana addresses', () => {
  it('accepts the base58 text of any 32 bytes and refuses it on other families', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (key) => {
        const address = base58.encode(key);
        expect(validateWalletAddress('SOLANA', address)).toEqual({ valid: true, address });
        for (const network of ['BASE', 'TRON', 'BITCOIN']) {
          const result = validateWalletAddress(network, address);
          expect(result.valid === false && [result.code, result.detectedNetwork]).toEqual([
            'wrong_network',
            'SOLANA',
          ]);
        }
      }),
    );
  });

  it('refuses base58 text of any other byte length', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 64 }), (bytes) => {
        fc.pre(bytes.length !== 32);
        const result = validateWalletAddress('SOLANA', base58.encode(bytes));
        expect(result.valid).toBe(false);
      }),
    );
  });
});

describe('Bitcoin addresses', () => {
  const program = (length: number) => fc.uint8Array({ minLength: length, maxLength: length });
  const segwit = (
    hrp: string,
    version: number,
    bytes: Uint8Array,
    coder = version === 0 ? bech32 : bech32m,
  ) => coder.encode(hrp, [version, ...coder.toWords(bytes)]);

  it('accepts segwit v0 (20 or 32 bytes, bech32) and v1 (32 bytes, bech32m) on mainnet, stored lowercase', () => {
    fc.assert(
      fc.property(fc.oneof(program(20), program(32)), program(32), (v0, v1) => {
        for (const address of [segwit('bc', 0, v0), segwit('bc', 1, v1)]) {
          expect(validateWalletAddress('BITCOIN', address)).toEqual({ valid: true, address });
          expect(validateWalletAddress('BITCOIN', address.toUpperCase())).toEqual({ valid: true, address });
        }
      }),
    );
  });

  it('reports the same programs under the testnet and regtest prefixes as testnet', () => {
    fc.assert(
      fc.property(program(20), program(32), fc.constantFrom('tb', 'bcrt'), (v0, v1, hrp) => {
        for (const address of [segwit(hrp, 0, v0), segwit(hrp, 1, v1)]) {
          const result = validateWalletAddress('BITCOIN', address);
          expect(result.valid === false && result.code).toBe('testnet');
        }
      }),
    );
  });

  it('refuses a checksum of the wrong BIP-350 variant for the witness version', () => {
    fc.assert(
      fc.property(program(20), program(32), (v0, v1) => {
        for (const address of [segwit('bc', 0, v0, bech32m), segwit('bc', 1, v1, bech32)]) {
          const result = validateWalletAddress('BITCOIN', address);
          expect(result.valid === false && result.code).toBe('checksum_mismatch');
        }
      }),
    );
  });

  it('accepts base58check P2PKH and P2SH, and calls the testnet versions testnet', () => {
    fc.assert(
      fc.property(fc.constantFrom(0x00, 0x05, 0x6f, 0xc4), program(20), (version, hash) => {
        const address = base58check.encode(Uint8Array.of(version, ...hash));
        const result = validateWalletAddress('BITCOIN', address);
        if (version === 0x00 || version === 0x05) expect(result).toEqual({ valid: true, address });
        else expect(result.valid === false && result.code).toBe('testnet');
      }),
    );
  });
});
