import { ServiceProblem } from './service-problem.js';

/** An opaque keyset cursor for a list page: its parts as base64url JSON. */
export function encodeCursor(parts: Array<string | number>): string {
  return Buffer.from(JSON.stringify(parts)).toString('base64url');
}

/**
 * The parts of a cursor made by {@link encodeCursor}, checked against their types.
 * @throws ServiceProblem `invalid_request` (field `cursor`) for a cursor this server did not make.
 */
export function decodeCursorParts(cursor: string, shape: Array<'string' | 'number'>): Array<string | number> {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parts = undefined;
  }
  if (
    !Array.isArray(parts) ||
    parts.length !== shape.length ||
    parts.some((part, index) => typeof part !== shape[index])
  ) {
    throw new ServiceProblem(
      'invalid_request',
      'cursor is not one this server handed out; pass next_cursor from the previous page unchanged, or leave it out for the first page.',
      'cursor',
    );
  }
  return parts as Array<string | number>;
}
