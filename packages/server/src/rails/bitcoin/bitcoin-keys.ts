/**
 * A merchant's Bitcoin wallet as entered (an address, or an extended public key from which one
 * fresh receive address per checkout is derived), and the address <-> output script conversions of
 * every Bitcoin chain. Keys are public only: nothing here can spend.
 */
import { validateWalletAddress } from '@cryptocheckout/core';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { base58, bech32, bech32m, createBase58check } from '@scure/base';
import { HDKey } from '@scure/bip32';
import { Address, OutScript, p2sh, p2tr, p2wpkh } from '@scure/btc-signer';

export type BitcoinChain = 'main' | 'test' | 'testnet4' | 'signet' | 'regtest';
export type BitcoinScheme = 'p2wpkh' | 'p2tr' | 'p2sh-p2wpkh';

/** What a merchant entered as their Bitcoin wallet. */
export type BitcoinReceiver =
  | {
      kind: 'address';
      script: Uint8Array;
      /** the address as entered */
      address: string;
    }
  | {
      kind: 'extended_key';
      scheme: BitcoinScheme;
      /** stable id of key+scheme+chain path for database keys: hex sha256, 64 chars */
      id: string;
      /** short description e.g. "BIP84 native segwit (zpub)" */
      description: string;
      /** The output script of receive address `index` (chain 0, non-hardened: 0 ≤ index < 2^31). @throws RangeError for another index */
      scriptAt(index: number): Uint8Array;
    };

/** A Bitcoin wallet, key or address refused; `code` is stable, `message` names the fix. */
export class BitcoinKeyError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'BitcoinKeyError';
  }
}

interface ChainParameters {
  readonly name: string;
  readonly bech32: string;
  readonly pubKeyHash: number;
  readonly scriptHash: number;
  readonly wif: number;
  /** How its addresses start, for messages. */
  readonly starts: string;
}

// testnet3, testnet4 and signet share their address formats; regtest differs only in its bech32 prefix.
const TEST_PARAMETERS = {
  bech32: 'tb',
  pubKeyHash: 0x6f,
  scriptHash: 0xc4,
  wif: 0xef,
  starts: 'm, n, 2 or tb1',
};
const CHAINS: Readonly<Record<BitcoinChain, ChainParameters>> = {
  main: {
    name: 'mainnet',
    bech32: 'bc',
    pubKeyHash: 0x00,
    scriptHash: 0x05,
    wif: 0x80,
    starts: '1, 3 or bc1',
  },
  test: { name: 'testnet', ...TEST_PARAMETERS },
  testnet4: { name: 'testnet4', ...TEST_PARAMETERS },
  signet: { name: 'signet', ...TEST_PARAMETERS },
  regtest: { name: 'regtest', ...TEST_PARAMETERS, bech32: 'bcrt', starts: 'm, n, 2 or bcrt1' },
};
// Which chains an address format belongs to, for the wrong-chain message.
const BECH32_PREFIX_CHAINS: Readonly<Record<string, string>> = {
  bc: 'mainnet',
  tb: 'testnet or signet',
  bcrt: 'regtest',
};
const BASE58_VERSION_CHAINS: ReadonlyMap<number, string> = new Map([
  [0x00, 'mainnet'],
  [0x05, 'mainnet'],
  [0x6f, 'testnet, signet or regtest'],
  [0xc4, 'testnet, signet or regtest'],
]);

const base58check = createBase58check(sha256);
const HARDENED_OFFSET = 2 ** 31;
const RECEIVE_CHAIN = 0;
const COPY_AGAIN = 'Copy the address again from your wallet.';

/**
 * Reads a merchant's Bitcoin wallet: a mainnet address, or an xpub/ypub/zpub or single-key descriptor
 * (`validateWalletAddress` of @cryptocheckout/core says which). Schemes: zpub → p2wpkh; ypub →
 * p2sh-p2wpkh; a bare xpub → p2wpkh, because BIP84 native segwit is our default for a key that does
 * not say; `wpkh(…)` → p2wpkh; `sh(wpkh(…))` → p2sh-p2wpkh; `tr(…)` → p2tr with BIP86's key-path-only
 * tweak. Addresses are derived on the receive chain 0.
 * @throws BitcoinKeyError (code + message naming the fix) for anything validateWalletAddress refuses,
 *   for a key whose point is not on the curve, and for a taproot address whose key is not one.
 */
export function parseBitcoinReceiver(text: string): BitcoinReceiver {
  const validation = validateWalletAddress('BITCOIN', text);
  if (!validation.valid) throw new BitcoinKeyError(validation.code, validation.message);
  const key = EXTENDED_PUBLIC_KEY.exec(validation.address)?.[0];
  if (key === undefined) {
    return { kind: 'address', script: scriptOfAddress(validation.address, 'main'), address: text };
  }
  return extendedKeyReceiver(validation.address, key);
}

/**
 * Whether the text is a Bitcoin receiving key (an xpub/ypub/zpub or a descriptor of one) that
 * validateWalletAddress accepts, as opposed to an address: a refund must go to one address.
 */
export function isBitcoinExtendedKey(text: string): boolean {
  const validation = validateWalletAddress('BITCOIN', text);
  return validation.valid && EXTENDED_PUBLIC_KEY.test(validation.address);
}

// After validateWalletAddress has accepted the text, its one key is the only xpub/ypub/zpub in it
// (a fingerprint is hex, which has no p or u).
const EXTENDED_PUBLIC_KEY = /[xyz]pub[1-9A-HJ-NP-Za-km-z]+/u;

function extendedKeyReceiver(text: string, key: string): BitcoinReceiver {
  const { scheme, description } = schemeOf(text, key);
  const bytes = base58check.decode(key);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let account: HDKey;
  try {
    account = new HDKey({
      depth: bytes[4]!,
      parentFingerprint: view.getUint32(5),
      index: view.getUint32(9),
      chainCode: bytes.slice(13, 45),
      publicKey: bytes.slice(45, 78),
    });
  } catch {
    throw new BitcoinKeyError(
      'bad_format',
      'This extended public key is damaged: its key is not a point of the curve Bitcoin uses. Copy the key again from your wallet.',
    );
  }
  const receiveChain = account.deriveChild(RECEIVE_CHAIN);
  const id = bytesToHex(
    sha256(
      utf8ToBytes(
        `bitcoin:main:${scheme}:${bytesToHex(account.publicKey!)}:${bytesToHex(account.chainCode!)}:${RECEIVE_CHAIN}/*`,
      ),
    ),
  );
  return {
    kind: 'extended_key',
    scheme,
    id,
    description,
    scriptAt(index: number): Uint8Array {
      if (!Number.isSafeInteger(index) || index < 0 || index >= HARDENED_OFFSET) {
        throw new RangeError(
          `A receive address index is an integer from 0 to ${HARDENED_OFFSET - 1}, not ${index}.`,
        );
      }
      const child = receiveChain.deriveChild(index);
      // BIP32 skips an index whose tweak is out of range (odds about 2^-127) and @scure/bip32 then
      // returns the next index; the caller must know that this index has no address.
      if (child.index !== index) {
        throw new RangeError(`Receive address index ${index} has no key (BIP32); use the next index.`);
      }
      return scriptOfKey(scheme, child.publicKey!);
    },
  };
}

function schemeOf(text: string, key: string): { scheme: BitcoinScheme; description: string } {
  if (text.startsWith('sh(wpkh(')) {
    return { scheme: 'p2sh-p2wpkh', description: 'nested segwit (sh(wpkh()) descriptor)' };
  }
  if (text.startsWith('wpkh(')) return { scheme: 'p2wpkh', description: 'native segwit (wpkh() descriptor)' };
  if (text.startsWith('tr(')) return { scheme: 'p2tr', description: 'BIP86 taproot (tr() descriptor)' };
  if (key.startsWith('ypub')) return { scheme: 'p2sh-p2wpkh', description: 'BIP49 nested segwit (ypub)' };
  return { scheme: 'p2wpkh', description: `BIP84 native segwit (${key.slice(0, 4)})` };
}

function scriptOfKey(scheme: BitcoinScheme, publicKey: Uint8Array): Uint8Array {
  switch (scheme) {
    case 'p2wpkh':
      return p2wpkh(publicKey).script;
    case 'p2sh-p2wpkh':
      return p2sh(p2wpkh(publicKey)).script;
    case 'p2tr':
      // BIP86: the x-only key tweaked with no script tree, so only the key path can spend.
      return p2tr(publicKey.subarray(1)).script;
  }
}

const STANDARD_TYPES: readonly string[] = ['pkh', 'sh', 'wpkh', 'wsh', 'tr'];

/**
 * The address of an output script on a chain: bc1…/1…/3… on main, tb1…/m…/n…/2… on test, testnet4
 * and signet, bcrt1… on regtest.
 * @throws BitcoinKeyError `unsupported_script` for a script that is not P2PKH, P2SH, P2WPKH, P2WSH or P2TR in its standard encoding
 */
export function addressOfScript(script: Uint8Array, chain: BitcoinChain): string {
  const refused = () =>
    new BitcoinKeyError(
      'unsupported_script',
      'This output script has no standard Bitcoin address (P2PKH, P2SH, P2WPKH, P2WSH or P2TR).',
    );
  const decoded = decodeOutputScript(script);
  if (decoded === undefined) throw refused();
  // The same script must come back: a push written the long way is not the standard form.
  if (
    !STANDARD_TYPES.includes(decoded.type) ||
    bytesToHex(OutScript.encode(decoded)) !== bytesToHex(script)
  ) {
    throw refused();
  }
  const coder = Address(CHAINS[chain]);
  return coder.encode(decoded as Parameters<typeof coder.encode>[0]);
}

function decodeOutputScript(script: Uint8Array) {
  try {
    return OutScript.decode(script);
  } catch {
    return undefined;
  }
}

/**
 * The output script of a standard address of the given chain: P2PKH, P2SH, P2WPKH, P2WSH or P2TR,
 * checksums checked, bech32 in one case only (any case), no trimming. Used for refund addresses.
 * @throws BitcoinKeyError with code `empty`, `bad_character`, `bad_length`, `bad_format`,
 *   `checksum_mismatch`, `wrong_chain` (an address of another chain) or `unspendable` (a taproot
 *   key that is not a point, so nothing sent there could ever be spent)
 */
export function scriptOfAddress(address: string, chain: BitcoinChain): Uint8Array {
  if (typeof address !== 'string' || address === '') {
    throw new BitcoinKeyError('empty', 'Enter the Bitcoin address.');
  }
  const lower = asciiLowerCase(address);
  const prefix = Object.keys(BECH32_PREFIX_CHAINS).find((hrp) => lower.startsWith(`${hrp}1`));
  return prefix === undefined ? base58Script(address, chain) : segwitScript(address, prefix, chain);
}

// Case mapping limited to A-Z, as in the core: Unicode lowercasing turns the Kelvin sign into k.
function asciiLowerCase(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}

function asciiUpperCase(text: string): string {
  return text.replace(/[a-z]/g, (letter) => letter.toUpperCase());
}

function wrongChain(addressChains: string, chain: BitcoinChain): BitcoinKeyError {
  const { name, starts } = CHAINS[chain];
  return new BitcoinKeyError(
    'wrong_chain',
    `This is a Bitcoin ${addressChains} address, but payments here are on ${name}. Enter a ${name} address (it starts with ${starts}).`,
  );
}

function segwitScript(address: string, prefix: string, chain: BitcoinChain): Uint8Array {
  const lower = asciiLowerCase(address);
  if (address !== lower && address !== asciiUpperCase(address)) {
    throw new BitcoinKeyError(
      'bad_format',
      `The address mixes capital and small letters; a segwit address is all small or all capital letters. ${COPY_AGAIN}`,
    );
  }
  const badCharacter = /[^qpzry9x8gf2tvdw0s3jn54khce6mua7l]/u.exec(lower.slice(prefix.length + 1))?.[0];
  if (badCharacter !== undefined) {
    throw new BitcoinKeyError(
      'bad_character',
      `The address contains "${badCharacter}", which never appears in a segwit address after its prefix. ${COPY_AGAIN}`,
    );
  }
  if (lower.length > 90) {
    throw new BitcoinKeyError('bad_length', `The address is too long for a Bitcoin address. ${COPY_AGAIN}`);
  }
  if (prefix !== CHAINS[chain].bech32) throw wrongChain(BECH32_PREFIX_CHAINS[prefix]!, chain);
  const asBech32 = bech32.decodeUnsafe(lower, 90);
  const asBech32m = bech32m.decodeUnsafe(lower, 90);
  const [version, ...programWords] = (asBech32 ?? asBech32m)?.words ?? [];
  // BIP350: version 0 keeps bech32, every later version uses bech32m.
  if (version === undefined || (version === 0 && !asBech32) || (version > 0 && !asBech32m)) {
    throw new BitcoinKeyError(
      'checksum_mismatch',
      `The address checksum does not match, so a character was probably changed. ${COPY_AGAIN}`,
    );
  }
  const program = bech32.fromWordsUnsafe(programWords);
  if (version > 16 || program === undefined) {
    throw new BitcoinKeyError('bad_format', `This is not a valid Bitcoin segwit address. ${COPY_AGAIN}`);
  }
  if (version === 0) {
    if (program.length === 20) return OutScript.encode({ type: 'wpkh', hash: program });
    if (program.length === 32) return OutScript.encode({ type: 'wsh', hash: program });
  }
  if (version === 1 && program.length === 32) return taprootScript(program);
  // Version 1 of another length includes the pay-to-anchor output, which anyone can spend.
  if (version <= 1) {
    throw new BitcoinKeyError(
      'bad_length',
      `The address has the wrong length for its segwit version. ${COPY_AGAIN}`,
    );
  }
  throw new BitcoinKeyError(
    'bad_format',
    `The address uses segwit version ${version}, which Bitcoin does not use yet; a payment to it could be lost.`,
  );
}

function taprootScript(outputKey: Uint8Array): Uint8Array {
  try {
    return OutScript.encode({ type: 'tr', pubkey: outputKey });
  } catch {
    throw new BitcoinKeyError(
      'unspendable',
      'This taproot address does not hold a valid key, so bitcoin sent to it could never be spent. Check the address with its owner.',
    );
  }
}

function base58Script(address: string, chain: BitcoinChain): Uint8Array {
  const badCharacter = /[^1-9A-HJ-NP-Za-km-z]/u.exec(address)?.[0];
  if (badCharacter !== undefined) {
    throw new BitcoinKeyError(
      'bad_character',
      `The address contains "${badCharacter}", which never appears in a Bitcoin address of this kind (there is no 0, O, I or l). ${COPY_AGAIN}`,
    );
  }
  const bytes = address.length > 35 ? undefined : base58.decode(address);
  if (bytes === undefined || bytes.length !== 25) {
    const shape = bytes !== undefined && bytes.length < 25 ? 'too short' : 'too long';
    throw new BitcoinKeyError('bad_length', `The address is ${shape} for a Bitcoin address. ${COPY_AGAIN}`);
  }
  const expected = sha256(sha256(bytes.subarray(0, 21))).subarray(0, 4);
  if (bytesToHex(expected) !== bytesToHex(bytes.subarray(21))) {
    throw new BitcoinKeyError(
      'checksum_mismatch',
      `The address checksum does not match, so a character was probably changed. ${COPY_AGAIN}`,
    );
  }
  const version = bytes[0]!;
  const hash = bytes.slice(1, 21);
  if (version === CHAINS[chain].pubKeyHash) return OutScript.encode({ type: 'pkh', hash });
  if (version === CHAINS[chain].scriptHash) return OutScript.encode({ type: 'sh', hash });
  const addressChains = BASE58_VERSION_CHAINS.get(version);
  if (addressChains !== undefined) throw wrongChain(addressChains, chain);
  throw new BitcoinKeyError(
    'bad_format',
    'This is not a Bitcoin address; it starts with 1, 3, m, n, 2 or a segwit prefix.',
  );
}
