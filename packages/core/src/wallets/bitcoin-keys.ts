/**
 * Bitcoin receiving keys: an extended public key (xpub, ypub, zpub) or a single-key output
 * descriptor of one, from which the server derives a fresh receive address per checkout.
 * Byte-level checks only (base58check, versions, lengths, the BIP380 descriptor checksum): whether
 * the key is a point on the curve is left to the server, because the PHP port cannot check it.
 */
import { decodeBase58, firstNonBase58Character, hasBase58CheckChecksum } from './base58.js';
import { type AddressProblemCode, type FamilyCheck, showCharacter } from './family-check.js';

/** How the receive addresses of a key are built: native segwit, segwit nested in P2SH, or taproot (BIP86). */
export type BitcoinKeyScheme = 'p2wpkh' | 'p2sh-p2wpkh' | 'p2tr';

/** A receiving key as validated: what the server needs to derive its addresses. */
export interface BitcoinKeyReading {
  /** `extended_key` for a bare xpub/ypub/zpub, `descriptor` for wpkh(…), sh(wpkh(…)) or tr(…). */
  readonly form: 'extended_key' | 'descriptor';
  readonly scheme: BitcoinKeyScheme;
  /** The key's 4-letter prefix as entered. */
  readonly prefix: 'xpub' | 'ypub' | 'zpub';
  /** The 78 serialized bytes of the extended key (version, depth, parent fingerprint, child number, chain code, key), without the checksum. */
  readonly keyBytes: Uint8Array;
}

/** Outcome of reading text that looks like a Bitcoin key or descriptor. */
export type BitcoinKeyRead =
  | { ok: true; canonical: string; key: BitcoinKeyReading }
  | { ok: false; code: AddressProblemCode; message: string };

const COPY_KEY_AGAIN = 'Copy the key again from your wallet.';
const COPY_DESCRIPTOR_AGAIN = 'Copy the descriptor again from your wallet.';

const PRIVATE_KEY_MESSAGE =
  'This is a private key, which must never be shared: anyone who has it can spend the bitcoin of this wallet. Enter the extended public key (xpub or zpub) instead, from your wallet\'s "receive" or "account keys" view.';
const TESTNET_KEY_MESSAGE =
  'This is a Bitcoin testnet key, which cannot receive real bitcoin. Use the mainnet extended public key (it starts with xpub, ypub or zpub).';
const UNSUPPORTED_DESCRIPTOR_MESSAGE =
  'Only single-key receive descriptors are accepted: wpkh(KEY/0/*), sh(wpkh(KEY/0/*)) or tr(KEY/0/*), where KEY is an xpub, ypub or zpub, optionally preceded by its [fingerprint/path] origin. Export the receive descriptor of a single-signature wallet, or enter its xpub or zpub.';
const MULTISIG_KEY_MESSAGE =
  'This is a multisig extended key (Ypub, Zpub), which this checkout cannot receive to. Enter the xpub or zpub of a single-signature wallet.';

interface KeyVersion {
  readonly prefix: string;
  readonly kind: 'mainnet' | 'testnet' | 'multisig' | 'private';
}

// SLIP-0132 version bytes. Only the three mainnet single-signature public versions are accepted;
// the others are listed so that the message can say what the key is.
const KEY_VERSIONS: ReadonlyMap<number, KeyVersion> = new Map<number, KeyVersion>([
  [0x0488b21e, { prefix: 'xpub', kind: 'mainnet' }],
  [0x049d7cb2, { prefix: 'ypub', kind: 'mainnet' }],
  [0x04b24746, { prefix: 'zpub', kind: 'mainnet' }],
  [0x043587cf, { prefix: 'tpub', kind: 'testnet' }],
  [0x044a5262, { prefix: 'upub', kind: 'testnet' }],
  // Not registered, but named as upub in the issue; refusing it as testnet costs nothing.
  [0x044a5256, { prefix: 'upub', kind: 'testnet' }],
  [0x045f1cf6, { prefix: 'vpub', kind: 'testnet' }],
  [0x024289ef, { prefix: 'Upub', kind: 'testnet' }],
  [0x02575483, { prefix: 'Vpub', kind: 'testnet' }],
  [0x0295b43f, { prefix: 'Ypub', kind: 'multisig' }],
  [0x02aa7ed3, { prefix: 'Zpub', kind: 'multisig' }],
  [0x0488ade4, { prefix: 'xprv', kind: 'private' }],
  [0x049d7878, { prefix: 'yprv', kind: 'private' }],
  [0x04b2430c, { prefix: 'zprv', kind: 'private' }],
  [0x04358394, { prefix: 'tprv', kind: 'private' }],
  [0x044a4e28, { prefix: 'uprv', kind: 'private' }],
  [0x045f18bc, { prefix: 'vprv', kind: 'private' }],
  [0x024285b5, { prefix: 'Uprv', kind: 'private' }],
  [0x02575048, { prefix: 'Vprv', kind: 'private' }],
  [0x0295b005, { prefix: 'Yprv', kind: 'private' }],
  [0x02aa7a99, { prefix: 'Zprv', kind: 'private' }],
]);

// The text of every extended key starts with its version's prefix, so these are recognisable even when damaged.
const EXTENDED_KEY_START = /^[xyztuvUVYZ](?:pub|prv)/u;
const PRIVATE_KEY_START = /^[xyztuvUVYZ]prv/u;
const EXTENDED_KEY_BYTES = 82; // 78 serialized bytes + 4-byte checksum
const EXTENDED_KEY_MAX_CHARACTERS = 120;

// Wallet import format: version 0x80 (mainnet) or 0xef (testnet), 32-byte key, 0x01 when compressed, checksum.
const WIF_VERSIONS: readonly number[] = [0x80, 0xef];
const WIF_CHARACTERS: readonly number[] = [51, 52];
const WIF_BYTES: readonly number[] = [37, 38];

/** Whether the text is shaped like an extended key or an output descriptor, so it is checked as one (and never as an address). */
export function looksLikeBitcoinKey(text: string): boolean {
  return EXTENDED_KEY_START.test(text) || text.includes('(') || text.startsWith('[') || isWifPrivateKey(text);
}

/**
 * Checks a Bitcoin receiving key (see `readBitcoinKey`) for `validateWalletAddress`; the canonical form is the text as entered.
 */
export function checkBitcoinKey(text: string): FamilyCheck {
  const read = readBitcoinKey(text);
  return read.ok ? { ok: true, canonical: read.canonical } : read;
}

/**
 * Reads a mainnet receiving key: an xpub, ypub or zpub (BIP32 serialization, base58check, 78 bytes,
 * key byte 02 or 03), or one of the descriptors wpkh(KEY), sh(wpkh(KEY)), tr(KEY) where KEY is such a
 * key with an optional [fingerprint/path] origin and the receive chain `/0/*` or `/<0;1>/*` (none
 * means `/0/*`), with an optional BIP380 `#checksum` that must match.
 * Refuses private keys (`private_key`) anywhere in the text, and testnet keys (`testnet`).
 * Scheme: zpub and bare xpub are p2wpkh (BIP84 is the default for an xpub), ypub is p2sh-p2wpkh; in a
 * descriptor the script function decides.
 */
export function readBitcoinKey(text: string): BitcoinKeyRead {
  if (containsPrivateKey(text)) return refused('private_key', PRIVATE_KEY_MESSAGE);
  const isDescriptor = text.includes('(') || text.includes('[') || text.includes('#');
  return isDescriptor ? readDescriptor(text) : readExtendedKey(text, 'extended_key', undefined);
}

function refused(code: AddressProblemCode, message: string): BitcoinKeyRead {
  return { ok: false, code, message };
}

// Private material is named before anything else: the writer must learn it leaked, whatever else is wrong.
function containsPrivateKey(text: string): boolean {
  return text
    .split(/[^1-9A-HJ-NP-Za-km-z]+/u)
    .some((token) => PRIVATE_KEY_START.test(token) || isWifPrivateKey(token));
}

function isWifPrivateKey(text: string): boolean {
  if (!WIF_CHARACTERS.includes(text.length) || firstNonBase58Character(text) !== undefined) return false;
  const bytes = decodeBase58(text);
  if (!WIF_BYTES.includes(bytes.length) || !hasBase58CheckChecksum(bytes)) return false;
  return WIF_VERSIONS.includes(bytes[0]!) && (bytes.length === 37 || bytes[33] === 0x01);
}

function readExtendedKey(
  key: string,
  form: BitcoinKeyReading['form'],
  descriptorScheme: BitcoinKeyScheme | undefined,
): BitcoinKeyRead {
  const badCharacter = firstNonBase58Character(key);
  if (badCharacter !== undefined) {
    return refused(
      'bad_character',
      `The key contains ${showCharacter(badCharacter)}, which never appears in an extended public key (there is no 0, O, I or l). ${COPY_KEY_AGAIN}`,
    );
  }
  const bytes = key.length > EXTENDED_KEY_MAX_CHARACTERS ? undefined : decodeBase58(key);
  if (bytes === undefined || bytes.length !== EXTENDED_KEY_BYTES) {
    const shape = bytes !== undefined && bytes.length < EXTENDED_KEY_BYTES ? 'too short' : 'too long';
    return refused(
      'bad_length',
      `The key is ${shape} for an extended public key, which is 111 characters long. ${COPY_KEY_AGAIN}`,
    );
  }
  if (!hasBase58CheckChecksum(bytes)) {
    return refused(
      'checksum_mismatch',
      `The key checksum does not match, so a character was probably changed. ${COPY_KEY_AGAIN}`,
    );
  }
  const version = ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0;
  const known = KEY_VERSIONS.get(version);
  if (known?.kind === 'private') return refused('private_key', PRIVATE_KEY_MESSAGE);
  if (known?.kind === 'testnet') return refused('testnet', TESTNET_KEY_MESSAGE);
  if (known?.kind === 'multisig') return refused('bad_format', MULTISIG_KEY_MESSAGE);
  if (known === undefined) {
    return refused(
      'bad_format',
      `This is not a Bitcoin extended public key; it starts with xpub, ypub or zpub. ${COPY_KEY_AGAIN}`,
    );
  }
  const keyByte = bytes[45]!;
  const depth = bytes[4]!;
  const parentAndChild = bytes.subarray(5, 13);
  // A depth-0 (master) key has no parent and no child number (BIP32); a public key starts with 02 or 03.
  if ((keyByte !== 0x02 && keyByte !== 0x03) || (depth === 0 && parentAndChild.some((byte) => byte !== 0))) {
    return refused(
      'bad_format',
      `This extended public key is damaged: its content is not a valid public key. ${COPY_KEY_AGAIN}`,
    );
  }
  const prefix = known.prefix as BitcoinKeyReading['prefix'];
  const scheme = descriptorScheme ?? (prefix === 'ypub' ? 'p2sh-p2wpkh' : 'p2wpkh');
  return { ok: true, canonical: key, key: { form, scheme, prefix, keyBytes: bytes.slice(0, 78) } };
}

// ---- Output descriptors (BIP380-386, BIP389 for <0;1>) ----

const DESCRIPTOR_CHECKSUM_LENGTH = 8;
const NOT_CHECKSUM_CHARACTER = /[^qpzry9x8gf2tvdw0s3jn54khce6mua7l]/u;
// The script functions accepted, outermost first, with the scheme each gives.
const DESCRIPTOR_WRAPPERS: ReadonlyArray<{ open: string; close: string; scheme: BitcoinKeyScheme }> = [
  { open: 'sh(wpkh(', close: '))', scheme: 'p2sh-p2wpkh' },
  { open: 'wpkh(', close: ')', scheme: 'p2wpkh' },
  { open: 'tr(', close: ')', scheme: 'p2tr' },
];
// [8 hex digits of the master fingerprint, then /NUM steps, each hardened with h or ' or not].
const KEY_ORIGIN = /^\[[0-9a-fA-F]{8}((?:\/[0-9]{1,10}['h]?)*)\]/u;
const HARDENED_LIMIT = 2 ** 31;
// The receive chain: none (meaning /0/*), /0/*, or BIP389's /<0;1>/* whose first path is the receive chain.
const RECEIVE_CHAINS: readonly string[] = ['', '/0/*', '/<0;1>/*'];
// Letters and digits only: a typo inside the key is then reported by the key check, anything else
// (a comma of a second key or script, a parenthesis too many) as an unsupported descriptor.
const KEY_TOKEN = /^[0-9A-Za-z]+$/u;

function readDescriptor(text: string): BitcoinKeyRead {
  const hash = text.indexOf('#');
  const body = hash === -1 ? text : text.slice(0, hash);
  if (hash !== -1) {
    const problem = checkDescriptorChecksum(body, text.slice(hash + 1));
    if (problem !== undefined) return problem;
  }
  const wrapper = DESCRIPTOR_WRAPPERS.find(
    ({ open, close }) => body.startsWith(open) && body.endsWith(close),
  );
  if (wrapper === undefined || body.length < wrapper.open.length + wrapper.close.length) {
    return refused('bad_format', UNSUPPORTED_DESCRIPTOR_MESSAGE);
  }
  let keyExpression = body.slice(wrapper.open.length, body.length - wrapper.close.length);
  const origin = KEY_ORIGIN.exec(keyExpression);
  if (origin !== null) {
    const steps = origin[1]!.split('/').slice(1);
    if (steps.some((step) => Number.parseInt(step, 10) >= HARDENED_LIMIT)) {
      return refused('bad_format', UNSUPPORTED_DESCRIPTOR_MESSAGE);
    }
    keyExpression = keyExpression.slice(origin[0].length);
  }
  const slash = keyExpression.indexOf('/');
  const key = slash === -1 ? keyExpression : keyExpression.slice(0, slash);
  const chain = slash === -1 ? '' : keyExpression.slice(slash);
  if (!EXTENDED_KEY_START.test(key) || !KEY_TOKEN.test(key) || !RECEIVE_CHAINS.includes(chain)) {
    return refused('bad_format', UNSUPPORTED_DESCRIPTOR_MESSAGE);
  }
  const read = readExtendedKey(key, 'descriptor', wrapper.scheme);
  return read.ok ? { ok: true, canonical: text, key: read.key } : read;
}

function checkDescriptorChecksum(body: string, checksum: string): BitcoinKeyRead | undefined {
  // Characters first, so that the length counts ASCII characters in every port.
  const badChecksumCharacter = NOT_CHECKSUM_CHARACTER.exec(checksum)?.[0];
  if (badChecksumCharacter !== undefined) {
    return refused(
      'bad_character',
      `The descriptor checksum contains ${showCharacter(badChecksumCharacter)}, which never appears in a checksum (there is no 1, b, i or o, and no capital letter). ${COPY_DESCRIPTOR_AGAIN}`,
    );
  }
  if (checksum.length !== DESCRIPTOR_CHECKSUM_LENGTH) {
    return refused(
      'bad_length',
      `The descriptor checksum after # must be ${DESCRIPTOR_CHECKSUM_LENGTH} characters long. ${COPY_DESCRIPTOR_AGAIN}`,
    );
  }
  const expected = descriptorChecksum(body);
  if (expected === undefined) {
    const badCharacter = [...body].find((character) => !INPUT_CHARSET.includes(character)) ?? '';
    return refused(
      'bad_character',
      `The descriptor contains ${showCharacter(badCharacter)}, which never appears in a descriptor. ${COPY_DESCRIPTOR_AGAIN}`,
    );
  }
  if (expected !== checksum) {
    return refused(
      'checksum_mismatch',
      `The descriptor checksum (after #) does not match, so a character was probably changed. ${COPY_DESCRIPTOR_AGAIN}`,
    );
  }
  return undefined;
}

// BIP380: the characters a descriptor may hold, in the groups of 32 its checksum reads them in.
const INPUT_CHARSET =
  '0123456789()[],\'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#"\\ ';
const CHECKSUM_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATOR: readonly bigint[] = [
  0xf5dee51989n,
  0xa9fdca3312n,
  0x1bab10e32dn,
  0x3706b1677an,
  0x644d626ffdn,
];

/**
 * The BIP380 checksum (8 characters) of a descriptor without its `#checksum`, or undefined when the
 * descriptor holds a character outside the descriptor character set. The 40-bit arithmetic uses bigint.
 */
export function descriptorChecksum(descriptor: string): string | undefined {
  const symbols: number[] = [];
  let groups: number[] = [];
  for (const character of descriptor) {
    const position = INPUT_CHARSET.indexOf(character);
    if (position === -1) return undefined;
    symbols.push(position & 31);
    groups.push(position >> 5);
    if (groups.length === 3) {
      symbols.push(groups[0]! * 9 + groups[1]! * 3 + groups[2]!);
      groups = [];
    }
  }
  if (groups.length === 1) symbols.push(groups[0]!);
  if (groups.length === 2) symbols.push(groups[0]! * 3 + groups[1]!);
  const checksum = polymod([...symbols, 0, 0, 0, 0, 0, 0, 0, 0]) ^ 1n;
  let text = '';
  for (let index = 0; index < DESCRIPTOR_CHECKSUM_LENGTH; index++) {
    text += CHECKSUM_CHARSET[Number((checksum >> BigInt(5 * (7 - index))) & 31n)];
  }
  return text;
}

function polymod(symbols: readonly number[]): bigint {
  let checksum = 1n;
  for (const value of symbols) {
    const top = checksum >> 35n;
    checksum = ((checksum & 0x7ffffffffn) << 5n) ^ BigInt(value);
    for (let bit = 0; bit < 5; bit++) {
      if ((top >> BigInt(bit)) & 1n) checksum ^= GENERATOR[bit]!;
    }
  }
  return checksum;
}
