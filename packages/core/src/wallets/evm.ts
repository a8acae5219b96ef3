import { keccak_256 } from '@noble/hashes/sha3.js';
import { COPY_AGAIN, type FamilyCheck, refuse, showCharacter } from './family-check.js';

const HEX_DIGITS = 40;
const textEncoder = new TextEncoder();

/**
 * EIP-55 form of 40 lowercase hex digits: a letter is uppercased when the matching nibble of
 * keccak-256(lowercase hex text) is 8 or more.
 */
export function toChecksumAddress(lowercaseHex: string): string {
  // A shop sends its one payout wallet with every checkout: remembering recent answers spares a
  // keccak-256 per request. Bounded, so arbitrary input cannot grow it.
  let checksummed = recentChecksums.get(lowercaseHex);
  if (checksummed === undefined) {
    checksummed = computeChecksumAddress(lowercaseHex);
    if (recentChecksums.size >= RECENT_CHECKSUMS_LIMIT) recentChecksums.clear();
    recentChecksums.set(lowercaseHex, checksummed);
  }
  return checksummed;
}

const RECENT_CHECKSUMS_LIMIT = 256;
const recentChecksums = new Map<string, string>();

function computeChecksumAddress(lowercaseHex: string): string {
  const hash = keccak_256(textEncoder.encode(lowercaseHex));
  let out = '0x';
  for (let i = 0; i < lowercaseHex.length; i++) {
    const character = lowercaseHex[i]!;
    const hashByte = hash[i >> 1]!;
    const nibble = i % 2 === 0 ? hashByte >> 4 : hashByte & 0x0f;
    out += nibble >= 8 ? character.toUpperCase() : character;
  }
  return out;
}

/** Checks an EVM address: 0x + 40 hex digits; single-case is accepted, mixed case must carry a valid EIP-55 checksum. */
export function checkEvmAddress(address: string): FamilyCheck {
  if (!address.startsWith('0x')) {
    return refuse('bad_format', 'An EVM address starts with 0x followed by 40 hexadecimal characters.');
  }
  const hex = address.slice(2);
  const badCharacter = /[^0-9a-fA-F]/u.exec(hex)?.[0];
  if (badCharacter !== undefined) {
    return refuse(
      'bad_character',
      `The address contains ${showCharacter(badCharacter)}; after 0x an EVM address has only 0-9 and a-f. ${COPY_AGAIN}`,
    );
  }
  if (hex.length !== HEX_DIGITS) {
    const shape = hex.length < HEX_DIGITS ? 'too short' : 'too long';
    return refuse(
      'bad_length',
      `The address is ${shape}: it has ${hex.length} characters after 0x, an EVM address has 40. ${COPY_AGAIN}`,
    );
  }
  const lower = hex.toLowerCase();
  const checksummed = toChecksumAddress(lower);
  // A single-case address carries no checksum, so it cannot be checked, only normalised.
  const singleCase = hex === lower || hex === hex.toUpperCase();
  if (singleCase || address === checksummed) return { ok: true, canonical: checksummed };
  return refuse(
    'checksum_mismatch',
    `The mix of capital and small letters does not match the address checksum (EIP-55), so a character was probably changed. ${COPY_AGAIN}`,
  );
}
