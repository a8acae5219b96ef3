import { validateWalletAddress } from '@cryptocheckout/core';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { bech32, bech32m, createBase58check } from '@scure/base';
import { HDKey } from '@scure/bip32';
import { p2wpkh } from '@scure/btc-signer';
import { describe, expect, it } from 'vitest';
import {
  addressOfScript,
  BitcoinKeyError,
  type BitcoinReceiver,
  isBitcoinExtendedKey,
  parseBitcoinReceiver,
  scriptOfAddress,
} from './bitcoin-keys.js';

// Every expected value below is published; where it comes from is said beside it.
const base58check = createBase58check(sha256);

function keyReceiver(text: string): Extract<BitcoinReceiver, { kind: 'extended_key' }> {
  const receiver = parseBitcoinReceiver(text);
  if (receiver.kind !== 'extended_key') throw new Error(`${text} is not read as a key`);
  return receiver;
}

function receiveAddresses(text: string, count: number, chain: 'main' | 'test' = 'main'): string[] {
  const receiver = keyReceiver(text);
  return Array.from({ length: count }, (_, index) => addressOfScript(receiver.scriptAt(index), chain));
}

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof BitcoinKeyError) return error.code;
    throw error;
  }
  throw new Error('expected a BitcoinKeyError');
}

/** The same 78 key bytes under other version bytes (which never change what is derived). */
function withVersion(key: string, version: number): string {
  const bytes = Uint8Array.from(base58check.decode(key));
  new DataView(bytes.buffer).setUint32(0, version);
  return base58check.encode(bytes);
}

describe('BIP32 public derivation (BIP32 test vectors 1 and 2)', () => {
  // Non-hardened steps of the published chains, derived from the parent's xpub alone.
  it.each([
    [
      'vector 1, m/0H -> m/0H/1',
      'xpub68Gmy5EdvgibQVfPdqkBBCHxA5htiqg55crXYuXoQRKfDBFA1WEjWgP6LHhwBZeNK1VTsfTFUHCdrfp1bgwQ9xv5ski8PX9rL2dZXvgGDnw',
      1,
      'xpub6ASuArnXKPbfEwhqN6e3mwBcDTgzisQN1wXN9BJcM47sSikHjJf3UFHKkNAWbWMiGj7Wf5uMash7SyYq527Hqck2AxYysAA7xmALppuCkwQ',
    ],
    [
      'vector 1, m/0H/1/2H -> m/0H/1/2H/2',
      'xpub6D4BDPcP2GT577Vvch3R8wDkScZWzQzMMUm3PWbmWvVJrZwQY4VUNgqFJPMM3No2dFDFGTsxxpG5uJh7n7epu4trkrX7x7DogT5Uv6fcLW5',
      2,
      'xpub6FHa3pjLCk84BayeJxFW2SP4XRrFd1JYnxeLeU8EqN3vDfZmbqBqaGJAyiLjTAwm6ZLRQUMv1ZACTj37sR62cfN7fe5JnJ7dh8zL4fiyLHV',
    ],
    [
      'vector 1, m/0H/1/2H/2 -> m/0H/1/2H/2/1000000000',
      'xpub6FHa3pjLCk84BayeJxFW2SP4XRrFd1JYnxeLeU8EqN3vDfZmbqBqaGJAyiLjTAwm6ZLRQUMv1ZACTj37sR62cfN7fe5JnJ7dh8zL4fiyLHV',
      1000000000,
      'xpub6H1LXWLaKsWFhvm6RVpEL9P4KfRZSW7abD2ttkWP3SSQvnyA8FSVqNTEcYFgJS2UaFcxupHiYkro49S8yGasTvXEYBVPamhGW6cFJodrTHy',
    ],
    [
      'vector 2, m -> m/0',
      'xpub661MyMwAqRbcFW31YEwpkMuc5THy2PSt5bDMsktWQcFF8syAmRUapSCGu8ED9W6oDMSgv6Zz8idoc4a6mr8BDzTJY47LJhkJ8UB7WEGuduB',
      0,
      'xpub69H7F5d8KSRgmmdJg2KhpAK8SR3DjMwAdkxj3ZuxV27CprR9LgpeyGmXUbC6wb7ERfvrnKZjXoUmmDznezpbZb7ap6r1D3tgFxHmwMkQTPH',
    ],
    [
      'vector 2, m/0/2147483647H -> m/0/2147483647H/1',
      'xpub6ASAVgeehLbnwdqV6UKMHVzgqAG8Gr6riv3Fxxpj8ksbH9ebxaEyBLZ85ySDhKiLDBrQSARLq1uNRts8RuJiHjaDMBU4Zn9h8LZNnBC5y4a',
      1,
      'xpub6DF8uhdarytz3FWdA8TvFSvvAh8dP3283MY7p2V4SeE2wyWmG5mg5EwVvmdMVCQcoNJxGoWaU9DCWh89LojfZ537wTfunKau47EL2dhHKon',
    ],
  ])('%s', (_step, parent, index, child) => {
    expect(HDKey.fromExtendedKey(parent).deriveChild(index).publicExtendedKey).toBe(child);
  });

  it('derives the receive chain of a key as its child 0: vector 2 master xpub -> the published m/0', () => {
    const master = keyReceiver(
      'xpub661MyMwAqRbcFW31YEwpkMuc5THy2PSt5bDMsktWQcFF8syAmRUapSCGu8ED9W6oDMSgv6Zz8idoc4a6mr8BDzTJY47LJhkJ8UB7WEGuduB',
    );
    const publishedChain = HDKey.fromExtendedKey(
      'xpub69H7F5d8KSRgmmdJg2KhpAK8SR3DjMwAdkxj3ZuxV27CprR9LgpeyGmXUbC6wb7ERfvrnKZjXoUmmDznezpbZb7ap6r1D3tgFxHmwMkQTPH',
    );
    for (const index of [0, 1, 7, 2 ** 31 - 1]) {
      const expected = p2wpkh(publishedChain.deriveChild(index).publicKey!).script;
      expect(bytesToHex(master.scriptAt(index)), `index ${index}`).toBe(bytesToHex(expected));
    }
  });
});

describe('parseBitcoinReceiver: receive addresses of published keys', () => {
  it("BIP84 account zpub (mnemonic \"abandon … about\", m/84'/0'/0'): the published receive addresses 0 and 1", () => {
    const zpub =
      'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
    expect(receiveAddresses(zpub, 2)).toEqual([
      'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
      'bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g',
    ]);
    expect(keyReceiver(zpub)).toMatchObject({ scheme: 'p2wpkh', description: 'BIP84 native segwit (zpub)' });
  });

  it('BIP86 account xpub as tr(xpub…/0/*): the published scriptPubKeys and addresses 0 and 1', () => {
    const descriptor =
      'tr(xpub6BgBgsespWvERF3LHQu6CnqdvfEvtMcQjYrcRzx53QJjSxarj2afYWcLteoGVky7D3UKDP9QyrLprQ3VCECoY49yfdDEHGCtMMj92pReUsQ/0/*)';
    const receiver = keyReceiver(descriptor);
    expect(receiver.scheme).toBe('p2tr');
    expect(bytesToHex(receiver.scriptAt(0))).toBe(
      '5120a60869f0dbcf1dc659c9cecbaf8050135ea9e8cdc487053f1dc6880949dc684c',
    );
    expect(bytesToHex(receiver.scriptAt(1))).toBe(
      '5120a82f29944d65b86ae6b5e5cc75e294ead6c59391a1edc5e016e3498c67fc7bbb',
    );
    expect(receiveAddresses(descriptor, 2)).toEqual([
      'bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr',
      'bc1p4qhjn9zdvkux4e44uhx8tc55attvtyu358kutcqkudyccelu0was9fqzwh',
    ]);
  });

  it("BIP49's published key (testnet upub, m/49'/1'/0'): refused as testnet, and its bytes as a ypub give the published first script", () => {
    const upub =
      'upub5EFU65HtV5TeiSHmZZm7FUffBGy8UKeqp7vw43jYbvZPpoVsgU93oac7Wk3u6moKegAEWtGNF8DehrnHtv21XXEMYRUocHqguyjknFHYfgY';
    expect(refusal(() => parseBitcoinReceiver(upub))).toBe('testnet');
    const receiver = keyReceiver(withVersion(upub, 0x049d7cb2));
    expect(receiver).toMatchObject({ scheme: 'p2sh-p2wpkh', description: 'BIP49 nested segwit (ypub)' });
    // BIP49: addressBytes = HASH160(0014 38971f73930f6c141d977ac4fd4a727c854935b3), address 2Mww8… on testnet.
    expect(bytesToHex(receiver.scriptAt(0))).toBe('a914336caa13e08b96080a32b5d818d59b4ab3b3674287');
    expect(addressOfScript(receiver.scriptAt(0), 'test')).toBe('2Mww8dCYPUpKHofjgcXcBCEGmniw9CoaiD2');
  });

  it("BIP49 mainnet account ypub of the same mnemonic (m/49'/0'/0'): 37VucYSa… and 3LtMnn87…", () => {
    // Published with this key in independent wallet test suites (bitcoinjs-lib and Caravan verified
    // vectors, Ian Coleman's BIP39 tool's BIP49 tab for "abandon … about").
    const ypub =
      'ypub6Ww3ibxVfGzLrAH1PNcjyAWenMTbbAosGNB6VvmSEgytSER9azLDWCxoJwW7Ke7icmizBMXrzBx9979FfaHxHcrArf3zbeJJJUZPf663zsP';
    expect(receiveAddresses(ypub, 2)).toEqual([
      '37VucYSaXLCAsxYyAPfbSi9eh4iEcbShgf',
      '3LtMnn87fqUeHBUG414p9CWwnoV6E2pNKS',
    ]);
  });

  it("Sparrow Wallet's watch-wallet tests (drongo WatchWalletTest): an Electrum zpub and a ypub", () => {
    expect(
      receiveAddresses(
        'zpub6njbcfTHEfK4U96Z8dBaTULdb1LGWMtj73yYZ76kfmE9nuf3KhNSsXfzDefz5KV6TreWjnQbgvnSmSttudzTugesV2HFunYu7gWYJUD4eoR',
        2,
      ),
    ).toEqual(['bc1q4s5v0u9qmmcp25mnr3mfzhyftjzw8mccqawmwf', 'bc1qffy90ge6wljh53t07q4al2pgsmuqgy48wrk8wq']);
    expect(
      receiveAddresses(
        'ypub6XiW9nhToS1gjVsFKzgmtWZuqo6V1YY7xaCns37aR3oYhFyAsTehAqV1iW2UCNtgWFQFkz3aNSZZbkfe5d1tD8MzjZuFJQn2XnczsxtjoXr',
        1,
      ),
    ).toEqual(['34TBBnwqv338BT6BVnTKqziFq8HWY6BNbw']);
  });

  it("a bare xpub is BIP84 native segwit: the example of Swan's xpub-lib README", () => {
    const xpub =
      'xpub6EuV33a2DXxAhoJTRTnr8qnysu81AA4YHpLY6o8NiGkEJ8KADJ35T64eJsStWsmRf1xXkEANVjXFXnaUKbRtFwuSPCLfDdZwYNZToh4LBCd';
    expect(receiveAddresses(xpub, 1)).toEqual(['bc1qdx0pd4h65d7mekkhk7n6jwzfwgqath7s0e368g']);
    expect(keyReceiver(xpub).description).toBe('BIP84 native segwit (xpub)');
  });

  it('reads the descriptor functions: wpkh and sh(wpkh) of the same key give the BIP84 and nested scripts', () => {
    const zpub =
      'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
    const xpub = withVersion(zpub, 0x0488b21e);
    expect(receiveAddresses(`wpkh([73c5da0a/84h/0h/0h]${xpub}/<0;1>/*)`, 1)).toEqual([
      'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
    ]);
    const nested = keyReceiver(`sh(wpkh(${zpub}))`);
    expect(nested.scheme).toBe('p2sh-p2wpkh');
    expect(addressOfScript(nested.scriptAt(0), 'main')).toMatch(/^3/);
  });
});

describe('parseBitcoinReceiver: descriptor checksums (BIP380, Bitcoin Core)', () => {
  const body =
    'wpkh([d34db33f/84h/0h/0h]xpub6DJ2dNUysrn5Vt36jH2KLBT2i1auw1tTSSomg8PhqNiUtx8QX2SvC9nrHu81fT41fvDUnhMjEzQgXnQjKEu3oaqMSzhSrHMxyyoEAmUHQbY/0/*)';

  it("accepts Bitcoin Core's deriveaddresses example with its checksum #cjjspncu, and without", () => {
    expect(keyReceiver(`${body}#cjjspncu`).scheme).toBe('p2wpkh');
    expect(keyReceiver(body).id).toBe(keyReceiver(`${body}#cjjspncu`).id);
  });

  it('refuses a tampered checksum or payload', () => {
    expect(refusal(() => parseBitcoinReceiver(`${body}#cjjspncv`))).toBe('checksum_mismatch');
    expect(refusal(() => parseBitcoinReceiver(`${body.replace('d34db33f', 'd34db33e')}#cjjspncu`))).toBe(
      'checksum_mismatch',
    );
  });

  it('checks the checksum before the shape: BIP380 raw(deadbeef)#89f8spxm passes it, raw(deedbeef)#89f8spxm does not', () => {
    expect(refusal(() => parseBitcoinReceiver('raw(deadbeef)#89f8spxm'))).toBe('bad_format');
    expect(refusal(() => parseBitcoinReceiver('raw(deedbeef)#89f8spxm'))).toBe('checksum_mismatch');
    expect(refusal(() => parseBitcoinReceiver('raw(deadbeef)#89f8spx'))).toBe('bad_length');
  });
});

describe('parseBitcoinReceiver: refusals', () => {
  it('refuses private keys', () => {
    // BIP84 account zprv; BIP32 test vector 1 master xprv; BIP84's first receive key in WIF.
    for (const secret of [
      'zprvAdG4iTXWBoARxkkzNpNh8r6Qag3irQB8PzEMkAFeTRXxHpbF9z4QgEvBRmfvqWvGp42t42nvgGpNgYSJA9iefm1yYNZKEm7z6qUWCroSQnE',
      'xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi',
      'KyZpNDKnfs94vbrwhJneDi77V6jF64PWPF8x5cdJb8ifgg2DUc9d',
    ]) {
      expect(refusal(() => parseBitcoinReceiver(secret))).toBe('private_key');
    }
  });

  it('refuses a key whose point is not on the curve, which the byte checks of the core let through (BIP32 test vector 5)', () => {
    const offCurve =
      'xpub661MyMwAqRbcEYS8w7XLSVeEsBXy79zSzH1J8vCdxAZningWLdN3zgtU6Q5JXayek4PRsn35jii4veMimro1xefsM58PgBMrvdYre8QyULY';
    expect(validateWalletAddress('BITCOIN', offCurve).valid).toBe(true);
    expect(refusal(() => parseBitcoinReceiver(offCurve))).toBe('bad_format');
    expect(refusal(() => parseBitcoinReceiver(`tr(${offCurve})`))).toBe('bad_format');
  });

  it('passes on the code of validateWalletAddress', () => {
    expect(refusal(() => parseBitcoinReceiver(''))).toBe('empty');
    expect(refusal(() => parseBitcoinReceiver(' bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'))).toBe(
      'whitespace',
    );
    expect(refusal(() => parseBitcoinReceiver('tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx'))).toBe('testnet');
    expect(refusal(() => parseBitcoinReceiver('0xdAC17F958D2ee523a2206206994597C13D831ec7'))).toBe(
      'wrong_network',
    );
  });
});

describe('parseBitcoinReceiver: addresses and ids', () => {
  it('keeps an address as entered, with its output script', () => {
    // BIP173: the P2WPKH example, in capitals as a QR code carries it.
    const receiver = parseBitcoinReceiver('BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4');
    expect(receiver).toEqual({
      kind: 'address',
      address: 'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4',
      script: hexToBytes('0014751e76e8199196d454941c45d1b3a323f1433bd6'),
    });
    expect(isBitcoinExtendedKey('BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4')).toBe(false);
  });

  it('gives one 64-hex id per key, scheme and chain: the same key in any wrapping shares it, another scheme does not', () => {
    const zpub =
      'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
    const xpub = withVersion(zpub, 0x0488b21e);
    const id = keyReceiver(zpub).id;
    expect(id).toMatch(/^[0-9a-f]{64}$/);
    expect(keyReceiver(xpub).id).toBe(id);
    expect(keyReceiver(`wpkh([73c5da0a/84h/0h/0h]${xpub}/0/*)`).id).toBe(id);
    expect(keyReceiver(`sh(wpkh(${zpub}))`).id).not.toBe(id);
    expect(keyReceiver(`tr(${xpub})`).id).not.toBe(id);
    expect(isBitcoinExtendedKey(zpub)).toBe(true);
  });

  it('derives only non-hardened indexes', () => {
    const receiver = keyReceiver(
      'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs',
    );
    for (const index of [-1, 2 ** 31, 1.5, Number.NaN]) {
      expect(() => receiver.scriptAt(index), String(index)).toThrow(RangeError);
    }
  });
});

describe('addressOfScript and scriptOfAddress', () => {
  // BIP173 P2WPKH/P2WSH, BIP350 taproot, the genesis block's P2PKH, BIP13's P2SH example.
  const published: Array<[string, string, string]> = [
    ['P2WPKH', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', '0014751e76e8199196d454941c45d1b3a323f1433bd6'],
    [
      'P2WSH',
      'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3',
      '00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262',
    ],
    [
      'P2TR',
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
      '512079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798',
    ],
    ['P2PKH', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', '76a91462e907b15cbf27d5425399ebf6f0fb50ebb88f1888ac'],
  ];

  it.each(published)('%s on mainnet round-trips', (_type, address, script) => {
    expect(bytesToHex(scriptOfAddress(address, 'main'))).toBe(script);
    expect(addressOfScript(hexToBytes(script), 'main')).toBe(address);
  });

  it('writes one script on each chain: BIP173 testnet, the regtest form, testnet4 and signet like testnet', () => {
    const script = hexToBytes('0014751e76e8199196d454941c45d1b3a323f1433bd6');
    expect(addressOfScript(script, 'test')).toBe('tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx');
    expect(addressOfScript(script, 'testnet4')).toBe('tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx');
    expect(addressOfScript(script, 'signet')).toBe('tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx');
    expect(addressOfScript(script, 'regtest')).toBe('bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080');
    expect(bytesToHex(scriptOfAddress('bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080', 'regtest'))).toBe(
      bytesToHex(script),
    );
    expect(bytesToHex(scriptOfAddress('tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', 'signet'))).toBe(
      bytesToHex(script),
    );
    // The genesis P2PKH hash under the testnet version, and the BIP49 testnet P2SH address.
    const p2pkh = hexToBytes('76a91462e907b15cbf27d5425399ebf6f0fb50ebb88f1888ac');
    expect(addressOfScript(scriptOfAddress(addressOfScript(p2pkh, 'regtest'), 'regtest'), 'main')).toBe(
      '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa',
    );
    expect(bytesToHex(scriptOfAddress('2Mww8dCYPUpKHofjgcXcBCEGmniw9CoaiD2', 'testnet4'))).toBe(
      'a914336caa13e08b96080a32b5d818d59b4ab3b3674287',
    );
  });

  it('round-trips the receive scripts of a key on every chain', () => {
    const receiver = keyReceiver(
      'tr(xpub6BgBgsespWvERF3LHQu6CnqdvfEvtMcQjYrcRzx53QJjSxarj2afYWcLteoGVky7D3UKDP9QyrLprQ3VCECoY49yfdDEHGCtMMj92pReUsQ)',
    );
    for (const chain of ['main', 'test', 'testnet4', 'signet', 'regtest'] as const) {
      const script = receiver.scriptAt(5);
      expect(bytesToHex(scriptOfAddress(addressOfScript(script, chain), chain)), chain).toBe(
        bytesToHex(script),
      );
    }
  });

  it('refuses addresses of another chain, damaged addresses and outputs nobody can spend safely', () => {
    expect(refusal(() => scriptOfAddress('tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', 'main'))).toBe(
      'wrong_chain',
    );
    expect(refusal(() => scriptOfAddress('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 'regtest'))).toBe(
      'wrong_chain',
    );
    expect(refusal(() => scriptOfAddress('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 'signet'))).toBe(
      'wrong_chain',
    );
    expect(refusal(() => scriptOfAddress('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5', 'main'))).toBe(
      'checksum_mismatch',
    );
    expect(refusal(() => scriptOfAddress('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb', 'main'))).toBe(
      'checksum_mismatch',
    );
    // BIP350: taproot written with the bech32 checksum, and v0 with bech32m.
    expect(
      refusal(() =>
        scriptOfAddress('bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd', 'main'),
      ),
    ).toBe('checksum_mismatch');
    expect(refusal(() => scriptOfAddress('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh', 'main'))).toBe(
      'checksum_mismatch',
    );
    expect(refusal(() => scriptOfAddress('bc1qW508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 'main'))).toBe(
      'bad_format',
    );
    expect(refusal(() => scriptOfAddress('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3tb', 'main'))).toBe(
      'bad_character',
    );
    expect(refusal(() => scriptOfAddress('1A1zP1eP5QGefi2DMPTfTL5SLmv7D', 'main'))).toBe('bad_length');
    expect(refusal(() => scriptOfAddress('', 'main'))).toBe('empty');
    // BIP350: segwit version 2 is not in use; BIP433's pay-to-anchor can be spent by anyone.
    expect(refusal(() => scriptOfAddress('bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs', 'main'))).toBe('bad_format');
    expect(refusal(() => scriptOfAddress('bc1pfeessrawgf', 'main'))).toBe('bad_length');
    // x = 5 is no point of secp256k1 (5^3 + 7 is not a square mod p): no key can ever spend it.
    const notAPoint = new Uint8Array(32);
    notAPoint[31] = 5;
    const unspendable = bech32m.encode('bc', [1, ...bech32m.toWords(notAPoint)]);
    expect(refusal(() => scriptOfAddress(unspendable, 'main'))).toBe('unspendable');
  });

  it('refuses scripts without a standard address', () => {
    // The generator point G as a public key, for a P2PK and a bare 1-of-1 multisig output.
    const generator = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
    for (const script of [
      hexToBytes('6a0568656c6c6f'), // OP_RETURN "hello"
      hexToBytes('51024e73'), // pay-to-anchor
      hexToBytes(`21${generator}ac`),
      hexToBytes(`5121${generator}51ae`),
      hexToBytes('00'),
      new Uint8Array(0),
      // A v0 program pushed the long way (OP_PUSHDATA1) is not the standard encoding.
      hexToBytes('004c14751e76e8199196d454941c45d1b3a323f1433bd6'),
    ]) {
      expect(
        refusal(() => addressOfScript(script, 'main')),
        bytesToHex(script),
      ).toBe('unsupported_script');
    }
    // Only the program is encoded, never a guessed one: bech32 of a 20-byte program under 'bc'.
    expect(addressOfScript(hexToBytes('0014751e76e8199196d454941c45d1b3a323f1433bd6'), 'main')).toBe(
      bech32.encode('bc', [0, ...bech32.toWords(hexToBytes('751e76e8199196d454941c45d1b3a323f1433bd6'))]),
    );
  });
});
