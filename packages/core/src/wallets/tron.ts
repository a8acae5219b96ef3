import { decodeBase58, firstNonBase58Character, hasBase58CheckChecksum } from './base58.js';
import { COPY_AGAIN, type FamilyCheck, refuse, showCharacter } from './family-check.js';

const TRON_ADDRESS_CHARACTERS = 34;
const TRON_ADDRESS_BYTES = 25; // 0x41 + 20-byte account id + 4-byte checksum
const TRON_MAINNET_PREFIX = 0x41;

/** Checks a TRON base58check account address (T…, 34 characters, version byte 0x41). */
export function checkTronAddress(address: string): FamilyCheck {
  if (!address.startsWith('T')) {
    return refuse('bad_format', 'A TRON address starts with T and is 34 characters long.');
  }
  const badCharacter = firstNonBase58Character(address);
  if (badCharacter !== undefined) {
    return refuse(
      'bad_character',
      `The address contains ${showCharacter(badCharacter)}, which never appears in a TRON address (there is no 0, O, I or l). ${COPY_AGAIN}`,
    );
  }
  if (address.length !== TRON_ADDRESS_CHARACTERS) {
    const shape = address.length < TRON_ADDRESS_CHARACTERS ? 'too short' : 'too long';
    return refuse(
      'bad_length',
      `The address is ${shape}: it has ${address.length} characters, a TRON address has 34. ${COPY_AGAIN}`,
    );
  }
  const bytes = decodeBase58(address);
  if (bytes.length !== TRON_ADDRESS_BYTES) {
    return refuse('bad_format', `This is not a TRON account address. ${COPY_AGAIN}`);
  }
  if (!hasBase58CheckChecksum(bytes)) {
    return refuse(
      'checksum_mismatch',
      `The address checksum does not match, so a character was probably changed. ${COPY_AGAIN}`,
    );
  }
  if (bytes[0] !== TRON_MAINNET_PREFIX) {
    return refuse('bad_format', `This is not a TRON account address. ${COPY_AGAIN}`);
  }
  return { ok: true, canonical: address };
}
