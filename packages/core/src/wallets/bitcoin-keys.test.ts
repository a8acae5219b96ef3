import { describe, expect, it } from 'vitest';
import { descriptorChecksum, readBitcoinKey } from './bitcoin-keys.js';

// Published keys: BIP84's and BIP86's account keys (mnemonic "abandon … about", m/84'/0'/0' and
// m/86'/0'/0'), Sparrow's watch-wallet test ypub, and the key of Bitcoin Core's deriveaddresses example.
const BIP84_ZPUB =
  'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
const BIP86_XPUB =
  'xpub6BgBgsespWvERF3LHQu6CnqdvfEvtMcQjYrcRzx53QJjSxarj2afYWcLteoGVky7D3UKDP9QyrLprQ3VCECoY49yfdDEHGCtMMj92pReUsQ';
const SPARROW_YPUB =
  'ypub6XiW9nhToS1gjVsFKzgmtWZuqo6V1YY7xaCns37aR3oYhFyAsTehAqV1iW2UCNtgWFQFkz3aNSZZbkfe5d1tD8MzjZuFJQn2XnczsxtjoXr';
const CORE_EXAMPLE_XPUB =
  'xpub6DJ2dNUysrn5Vt36jH2KLBT2i1auw1tTSSomg8PhqNiUtx8QX2SvC9nrHu81fT41fvDUnhMjEzQgXnQjKEu3oaqMSzhSrHMxyyoEAmUHQbY';
// BIP32 test vector 3, chain m/0H: its private and public key.
const BIP32_XPRV =
  'xprv9uPDJpEQgRQfDcW7BkF7eTya6RPxXeJCqCJGHuCJ4GiRVLzkTXBAJMu2qaMWPrS7AANYqdq6vcBcBUdJCVVFceUvJFjaPdGZ2y9WACViL4L';
const BIP32_XPUB =
  'xpub68NZiKmJWnxxS6aaHmn81bvJeTESw724CRDs6HbuccFQN9Ku14VQrADWgqbhhTHBaohPX4CjNLf9fq9MYo6oDaPPLPxSb7gwQN3ih19Zm4Y';

describe('descriptorChecksum (BIP380)', () => {
  it('matches the published checksums', () => {
    // BIP380 test vector.
    expect(descriptorChecksum('raw(deadbeef)')).toBe('89f8spxm');
    // Bitcoin Core, deriveaddresses help example.
    expect(descriptorChecksum(`wpkh([d34db33f/84h/0h/0h]${CORE_EXAMPLE_XPUB}/0/*)`)).toBe('cjjspncu');
    // Bitcoin Core src/test/descriptor_tests.cpp, the checksum test pair.
    expect(
      descriptorChecksum(
        `sh(multi(2,[00000000/111'/222]xpub6ERApfZwUNrhLCkDtcHTcxd75RbzS1ed54G1LkBUHQVHQKqhMkhgbmJbZRkrgZw4koxb5JaHWkY4ALHY2grBGRjaDMzQLcgJvLJuZZvRcEL,${BIP32_XPUB}/0))`,
      ),
    ).toBe('tjg09x5t');
    expect(
      descriptorChecksum(
        `sh(multi(2,[00000000/111'/222]xprvA1RpRA33e1JQ7ifknakTFpgNXPmW2YvmhqLQYMmrj4xJXXWYpDPS3xz7iAxn8L39njGVyuoseXzU6rcxFLJ8HFsTjSyQbLYnMpCqE2VbFWc,${BIP32_XPRV}/0))`,
      ),
    ).toBe('ggrsrxfy');
  });

  it('has no checksum for a descriptor with a character outside the descriptor set (BIP380 "raw(Ü)")', () => {
    expect(descriptorChecksum('raw(Ü)')).toBeUndefined();
  });
});

describe('readBitcoinKey', () => {
  const read = (text: string) => {
    const result = readBitcoinKey(text);
    return result.ok
      ? { form: result.key.form, scheme: result.key.scheme, prefix: result.key.prefix }
      : result.code;
  };

  it('gives each key and descriptor its scheme: zpub and bare xpub p2wpkh, ypub p2sh-p2wpkh, descriptors by script', () => {
    expect(read(BIP84_ZPUB)).toEqual({ form: 'extended_key', scheme: 'p2wpkh', prefix: 'zpub' });
    expect(read(BIP86_XPUB)).toEqual({ form: 'extended_key', scheme: 'p2wpkh', prefix: 'xpub' });
    expect(read(SPARROW_YPUB)).toEqual({ form: 'extended_key', scheme: 'p2sh-p2wpkh', prefix: 'ypub' });
    expect(read(`tr(${BIP86_XPUB}/0/*)`)).toEqual({ form: 'descriptor', scheme: 'p2tr', prefix: 'xpub' });
    expect(read(`sh(wpkh(${BIP84_ZPUB}))`)).toEqual({
      form: 'descriptor',
      scheme: 'p2sh-p2wpkh',
      prefix: 'zpub',
    });
    expect(read(`wpkh(${SPARROW_YPUB}/<0;1>/*)`)).toEqual({
      form: 'descriptor',
      scheme: 'p2wpkh',
      prefix: 'ypub',
    });
  });

  it('returns the 78 serialized bytes of the key, whatever the wrapping', () => {
    const bare = readBitcoinKey(CORE_EXAMPLE_XPUB);
    const wrapped = readBitcoinKey(`wpkh([d34db33f/84h/0h/0h]${CORE_EXAMPLE_XPUB}/0/*)#cjjspncu`);
    expect(bare.ok && wrapped.ok).toBe(true);
    if (!bare.ok || !wrapped.ok) return;
    expect(bare.key.keyBytes).toHaveLength(78);
    expect(wrapped.key.keyBytes).toEqual(bare.key.keyBytes);
  });

  it('refuses a private key before any other problem, even with a broken checksum', () => {
    expect(read(`${BIP32_XPRV.slice(0, -1)}x`)).toBe('private_key');
    expect(read(`wpkh(${BIP32_XPRV}/0/*)#00000000`)).toBe('private_key');
    // BIP380's compressed WIF key, bare and in a descriptor.
    expect(read('L4rK1yDtCWekvXuE6oXD9jCYfFNV2cWRpVuPLBcCU2z8TrisoyY1')).toBe('private_key');
    expect(read('wpkh(L4rK1yDtCWekvXuE6oXD9jCYfFNV2cWRpVuPLBcCU2z8TrisoyY1)')).toBe('private_key');
  });

  it('refuses every descriptor shape other than the single-key receive chain', () => {
    for (const path of ['/1/*', '/0/*h', "/0/*'", '/0/5', '/*', '/0h/*', '/<1;0>/*', '/0/0/*']) {
      expect(read(`wpkh(${BIP84_ZPUB}${path})`), path).toBe('bad_format');
    }
    expect(read(`wpkh(${BIP84_ZPUB}))`)).toBe('bad_format');
    expect(read(`tr(${BIP86_XPUB},pk(${BIP84_ZPUB}))`)).toBe('bad_format');
    expect(read(`wsh(${BIP84_ZPUB})`)).toBe('bad_format');
    expect(read(`[d34db33f/84h/0h/0h]${BIP84_ZPUB}`)).toBe('bad_format');
    expect(read(`wpkh([d34db33f/84H/0h/0h]${BIP84_ZPUB})`)).toBe('bad_format');
    expect(read(`wpkh([d34db33f/2147483648]${BIP84_ZPUB})`)).toBe('bad_format');
    expect(read('wpkh(0330d54fd0dd420a6e5f8d3624f5f3482cae350f79d5f0753bf5beef9c2d91af3c)')).toBe(
      'bad_format',
    );
  });

  it('accepts origins with h, apostrophe or mixed hardening and the largest step', () => {
    expect(read(`wpkh([d34db33f/84'/0h/0']${BIP84_ZPUB}/0/*)`)).toMatchObject({ scheme: 'p2wpkh' });
    expect(read(`wpkh([D34DB33F/2147483647h]${BIP84_ZPUB})`)).toMatchObject({ scheme: 'p2wpkh' });
    expect(read(`wpkh([d34db33f]${BIP84_ZPUB})`)).toMatchObject({ scheme: 'p2wpkh' });
  });

  it('checks the checksum after # when there is one (BIP380 checksum vectors)', () => {
    const body = `wpkh([d34db33f/84h/0h/0h]${CORE_EXAMPLE_XPUB}/0/*)`;
    expect(read(`${body}#cjjspncu`)).toMatchObject({ form: 'descriptor' });
    expect(read(`${body}#`)).toBe('bad_length');
    expect(read(`${body}#cjjspncuq`)).toBe('bad_length');
    expect(read(`${body}#cjjspnc`)).toBe('bad_length');
    expect(read(`${body}#cjjspncv`)).toBe('checksum_mismatch');
    expect(read(`${body}##jjspncu`)).toBe('bad_character');
    expect(read(`${body}#CJJSPNCU`)).toBe('bad_character');
    expect(read(`${body.replace('84h', '85h')}#cjjspncu`)).toBe('checksum_mismatch');
  });
});
