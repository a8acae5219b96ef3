import { bech32, bech32m } from '@scure/base';
import { decodeBase58, firstNonBase58Character, hasBase58CheckChecksum } from './base58.js';
import { checkBitcoinKey, looksLikeBitcoinKey } from './bitcoin-keys.js';
import { COPY_AGAIN, type FamilyCheck, refuse, showCharacter } from './family-check.js';

const MAINNET_HRP = 'bc';
const TESTNET_HRPS: readonly string[] = ['tb', 'bcrt'];
const BECH32_MAX_LENGTH = 90;
const NOT_BECH32 = /[^qpzry9x8gf2tvdw0s3jn54khce6mua7lQPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]/u;
const CHECKSUM_WORDS = 6;

const P2PKH_VERSION = 0x00;
const P2SH_VERSION = 0x05;
const TESTNET_VERSIONS: readonly number[] = [0x6f, 0xc4];
const BASE58CHECK_BYTES = 25; // version + 20-byte hash + 4-byte checksum
const BASE58CHECK_MAX_CHARACTERS = 35;
// Mainnet 1 (P2PKH) and 3 (P2SH); testnet m, n (P2PKH) and 2 (P2SH) pass on so they can be named as testnet.
const BASE58_FIRST_CHARACTERS: readonly string[] = ['1', '3', 'm', 'n', '2'];

const TESTNET_MESSAGE =
  'This is a Bitcoin testnet address, which cannot receive real bitcoin. Use a mainnet address (it starts with 1, 3 or bc1).';

/**
 * Checks a Bitcoin mainnet address: base58check P2PKH (1…) or P2SH (3…), segwit v0 in bech32
 * (bc1q…, 20- or 32-byte program) or taproot v1 in bech32m (bc1p…, 32-byte program).
 * Well-formed testnet and regtest addresses are reported as `testnet`.
 * Text shaped like an extended key or an output descriptor is checked as a receiving key instead (bitcoin-keys.ts).
 */
export function checkBitcoinAddress(address: string): FamilyCheck {
  if (looksLikeBitcoinKey(address)) return checkBitcoinKey(address);
  const lower = asciiLowerCase(address);
  const hrp = [MAINNET_HRP, ...TESTNET_HRPS].find((prefix) => lower.startsWith(`${prefix}1`));
  return hrp === undefined ? checkBase58Address(address) : checkSegwitAddress(address, hrp);
}

function checkSegwitAddress(address: string, hrp: string): FamilyCheck {
  const lower = asciiLowerCase(address);
  // BIP-173 allows all-uppercase (compact QR codes) but never a mix, which hides transcription errors.
  if (address !== lower && address !== asciiUpperCase(address)) {
    return refuse(
      'bad_format',
      `The address mixes capital and small letters; a bc1 address is all small or all capital letters. ${COPY_AGAIN}`,
    );
  }
  const data = address.slice(hrp.length + 1);
  const badCharacter = NOT_BECH32.exec(data)?.[0];
  if (badCharacter !== undefined) {
    return refuse(
      'bad_character',
      `The address contains ${showCharacter(badCharacter)}, which never appears after the bc1 prefix (there is no 1, b, i or o). ${COPY_AGAIN}`,
    );
  }
  if (lower.length > BECH32_MAX_LENGTH) {
    return refuse('bad_length', `The address is too long for a Bitcoin address. ${COPY_AGAIN}`);
  }
  if (data.length < CHECKSUM_WORDS + 1) {
    return refuse('bad_length', `The address is too short for a Bitcoin address. ${COPY_AGAIN}`);
  }
  const asBech32 = bech32.decodeUnsafe(lower, BECH32_MAX_LENGTH);
  const asBech32m = bech32m.decodeUnsafe(lower, BECH32_MAX_LENGTH);
  const decoded = asBech32 ?? asBech32m;
  if (!decoded) {
    return refuse(
      'checksum_mismatch',
      `The address checksum does not match, so a character was probably changed. ${COPY_AGAIN}`,
    );
  }
  const [version, ...programWords] = decoded.words;
  if (version === undefined || version > 16) {
    return refuse('bad_format', `This is not a valid Bitcoin segwit address. ${COPY_AGAIN}`);
  }
  // BIP-350: version 0 keeps the original bech32 checksum, every later version must use bech32m.
  if (version === 0 && !asBech32) {
    return refuse(
      'checksum_mismatch',
      `The address uses the bech32m checksum, but a bc1q address must use bech32. ${COPY_AGAIN}`,
    );
  }
  if (version > 0 && !asBech32m) {
    return refuse(
      'checksum_mismatch',
      `The address uses the old bech32 checksum, but a segwit v${version} address must use bech32m. ${COPY_AGAIN}`,
    );
  }
  const program = bech32.fromWordsUnsafe(programWords);
  if (!program) {
    return refuse('bad_format', `This is not a valid Bitcoin segwit address. ${COPY_AGAIN}`);
  }
  if (version === 0 && program.length !== 20 && program.length !== 32) {
    return refuse('bad_length', `The address has the wrong length for a bc1q address. ${COPY_AGAIN}`);
  }
  if (version === 1 && program.length !== 32) {
    return refuse(
      'bad_length',
      `The address has the wrong length for a bc1p (taproot) address. ${COPY_AGAIN}`,
    );
  }
  // Versions 2-16 are reserved for future upgrades; coins sent there today can be taken by anyone.
  if (version > 1) {
    return refuse(
      'bad_format',
      `The address uses segwit version ${version}, which Bitcoin does not use yet; a payment to it could be lost.`,
    );
  }
  if (hrp !== MAINNET_HRP) return refuse('testnet', TESTNET_MESSAGE);
  return { ok: true, canonical: lower };
}

// Case mapping limited to A-Z so that non-ASCII input gets the same verdict in every port
// (Unicode-aware lowercasing differs between languages and locales).
function asciiLowerCase(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}

function asciiUpperCase(text: string): string {
  return text.replace(/[a-z]/g, (letter) => letter.toUpperCase());
}

function checkBase58Address(address: string): FamilyCheck {
  if (!BASE58_FIRST_CHARACTERS.includes(address[0] ?? '')) {
    return refuse('bad_format', 'This is not a Bitcoin address; a Bitcoin address starts with 1, 3 or bc1.');
  }
  const badCharacter = firstNonBase58Character(address);
  if (badCharacter !== undefined) {
    return refuse(
      'bad_character',
      `The address contains ${showCharacter(badCharacter)}, which never appears in a Bitcoin address starting with 1 or 3 (there is no 0, O, I or l). ${COPY_AGAIN}`,
    );
  }
  const bytes = address.length > BASE58CHECK_MAX_CHARACTERS ? undefined : decodeBase58(address);
  if (bytes === undefined || bytes.length !== BASE58CHECK_BYTES) {
    const shape = bytes !== undefined && bytes.length < BASE58CHECK_BYTES ? 'too short' : 'too long';
    return refuse('bad_length', `The address is ${shape} for a Bitcoin address. ${COPY_AGAIN}`);
  }
  if (!hasBase58CheckChecksum(bytes)) {
    return refuse(
      'checksum_mismatch',
      `The address checksum does not match, so a character was probably changed. ${COPY_AGAIN}`,
    );
  }
  const version = bytes[0]!;
  if (version === P2PKH_VERSION || version === P2SH_VERSION) return { ok: true, canonical: address };
  if (TESTNET_VERSIONS.includes(version)) return refuse('testnet', TESTNET_MESSAGE);
  return refuse('bad_format', 'This is not a Bitcoin address; a Bitcoin address starts with 1, 3 or bc1.');
}
