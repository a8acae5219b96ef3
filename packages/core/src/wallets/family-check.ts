/** Why an address was refused. Stable identifiers: the PHP port and the conformance vectors use the same set. */
export type AddressProblemCode =
  | 'empty'
  | 'whitespace'
  | 'unknown_network'
  | 'wrong_network'
  | 'testnet'
  | 'bad_format'
  | 'bad_length'
  | 'bad_character'
  | 'checksum_mismatch'
  /** A private key (xprv, zprv, WIF…) was entered where a public key or address belongs. */
  | 'private_key';

/** Outcome of checking an address against one address family, before any cross-family diagnosis. */
export type FamilyCheck =
  | { ok: true; canonical: string }
  | { ok: false; code: AddressProblemCode; message: string };

/** The fix for most typing and pasting mistakes, appended to messages about them. */
export const COPY_AGAIN = 'Copy the address again from your wallet.';

/** A failed family check. */
export function refuse(code: AddressProblemCode, message: string): FamilyCheck {
  return { ok: false, code, message };
}

/**
 * Quotes a character for a message. Non-ASCII characters also get their code point, because a
 * look-alike (Cyrillic "а" for Latin "a") is exactly what the reader cannot see; invisible ones get only the code point.
 */
export function showCharacter(character: string): string {
  if (/^[\x21-\x7e]$/.test(character)) return `"${character}"`;
  const codePoint = `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
  return /^[\p{L}\p{N}\p{P}\p{S}]$/u.test(character) ? `"${character}" (${codePoint})` : codePoint;
}
