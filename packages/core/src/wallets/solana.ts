import { decodeBase58, firstNonBase58Character } from './base58.js';
import { COPY_AGAIN, type FamilyCheck, refuse, showCharacter } from './family-check.js';

const SOLANA_ADDRESS_BYTES = 32;
// 32 bytes always encode to 32 (all zero bytes) through 44 base58 characters; outside that range
// the text cannot be an address, and skipping the decode keeps huge inputs cheap.
const MIN_CHARACTERS = 32;
const MAX_CHARACTERS = 44;

/** Checks a Solana address: base58 text of exactly 32 bytes (a public key or program address). */
export function checkSolanaAddress(address: string): FamilyCheck {
  const badCharacter = firstNonBase58Character(address);
  if (badCharacter !== undefined) {
    return refuse(
      'bad_character',
      `The address contains ${showCharacter(badCharacter)}, which never appears in a Solana address (there is no 0, O, I or l). ${COPY_AGAIN}`,
    );
  }
  let tooShort = address.length < MIN_CHARACTERS;
  let tooLong = address.length > MAX_CHARACTERS;
  if (!tooShort && !tooLong) {
    const byteCount = decodeBase58(address).length;
    tooShort = byteCount < SOLANA_ADDRESS_BYTES;
    tooLong = byteCount > SOLANA_ADDRESS_BYTES;
  }
  if (tooShort || tooLong) {
    const shape = tooShort ? 'too short' : 'too long';
    return refuse(
      'bad_length',
      `The address is ${shape} for a Solana address, which is 32 to 44 characters long. ${COPY_AGAIN}`,
    );
  }
  return { ok: true, canonical: address };
}
