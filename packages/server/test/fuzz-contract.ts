// What every fuzzed answer must keep, and the heap figures that show the server keeps nothing.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ERROR_CODES } from '@cryptocheckout/core';
import type { FuzzRequest } from './fuzz-requests.js';

const KNOWN = ERROR_CODES as Record<string, number>;

/** Why a response breaks the contract, or null when it keeps it. */
export function violation(
  request: FuzzRequest,
  status: number,
  contentType: string,
  text: string,
): string | null {
  if (status >= 500) return `answered ${status}`;
  const path = request.path;
  const isApi = path.startsWith('/api/') || path === '/api';
  if (request.method.toUpperCase() === 'HEAD') return null;
  const isJson = contentType.includes('application/json');
  if (isApi && status >= 400 && !isJson) return `${status} on the API without a JSON body (${contentType})`;
  if (!isJson || path.startsWith('/api/openapi.json')) return null;
  let json: { status?: unknown; error?: { code?: string; message?: unknown } } | null;
  try {
    json = JSON.parse(text);
  } catch {
    return 'a body declared as JSON does not parse';
  }
  if (status >= 400) {
    if (json?.status !== 'error' || typeof json.error?.message !== 'string')
      return 'error outside the envelope';
    if (KNOWN[json.error?.code ?? ''] !== status)
      return `code ${json.error?.code} does not belong to ${status}`;
  } else if (isApi && json?.status !== 'success') return 'success outside the envelope';
  return null;
}

// A full collection before each sample makes heap figures comparable; V8 lends `gc` on request.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** Heap in use in MiB, after a full collection. */
export function sampleMemory(): number {
  collectGarbage();
  return Math.round(process.memoryUsage().heapUsed / 2 ** 20);
}
