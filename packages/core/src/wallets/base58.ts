import { sha256 } from '@noble/hashes/sha2.js';
import { base58 } from '@scure/base';

// Bitcoin's base58 alphabet: no 0, O, I or l, which are too easy to confuse.
const NOT_BASE58 = /[^1-9A-HJ-NP-Za-km-z]/u;

/** The first character that cannot appear in base58 text, or undefined when every character can. */
export function firstNonBase58Character(text: string): string | undefined {
  return NOT_BASE58.exec(text)?.[0];
}

/** Decodes base58 text already known to hold only base58 characters. */
export function decodeBase58(text: string): Uint8Array {
  return base58.decode(text);
}

/** Whether the last 4 bytes are the double-SHA-256 checksum of the rest (Base58Check, used by Bitcoin and TRON). */
export function hasBase58CheckChecksum(bytes: Uint8Array): boolean {
  if (bytes.length < 5) return false;
  const payload = bytes.subarray(0, bytes.length - 4);
  const expected = sha256(sha256(payload));
  for (let i = 0; i < 4; i++) {
    if (bytes[bytes.length - 4 + i] !== expected[i]) return false;
  }
  return true;
}
