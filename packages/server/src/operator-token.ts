import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** File in the data directory that keeps a generated operator token. */
export const OPERATOR_TOKEN_FILE = 'operator-token';

/** Shortest operator token accepted from the options, in characters. */
const MINIMUM_TOKEN_LENGTH = 24;

/** The token the operator API takes, and where it came from (the start banner says so). */
export interface OperatorToken {
  token: string;
  source: 'option' | 'file' | 'generated';
  /** The file that holds it, for `file` and `generated`. */
  path?: string;
}

/**
 * The operator token: the one given in the options, else the one stored in `dataDir`, else a new
 * random one (32 bytes, base64url) written there readable by the owner only, so it survives restarts
 * and is printed only when it is made.
 * @throws Error naming `--operator-token` when the given token is too short or not printable ASCII.
 */
export function resolveOperatorToken(given: string | undefined, dataDir: string): OperatorToken {
  if (given !== undefined && given !== '') {
    if (given.length < MINIMUM_TOKEN_LENGTH || !/^[\x21-\x7e]+$/.test(given)) {
      throw new Error(
        `--operator-token must be at least ${MINIMUM_TOKEN_LENGTH} printable characters without spaces (for example the output of \`openssl rand -base64 32\`).`,
      );
    }
    return { token: given, source: 'option' };
  }
  const path = join(dataDir, OPERATOR_TOKEN_FILE);
  try {
    const stored = readFileSync(path, 'utf8').trim();
    if (stored.length >= MINIMUM_TOKEN_LENGTH) return { token: stored, source: 'file', path };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const token = `cco_${randomBytes(32).toString('base64url')}`;
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  return { token, source: 'generated', path };
}

/**
 * Checks an `Authorization` header against the token in constant time: both sides are hashed to
 * the same length first, so neither the content nor the length of the token leaks through timing.
 */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  const offered = createHash('sha256')
    .update(match?.[1] ?? '')
    .digest();
  const expected = createHash('sha256').update(token).digest();
  return timingSafeEqual(offered, expected) && match !== null;
}
