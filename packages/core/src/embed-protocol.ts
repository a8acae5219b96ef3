/**
 * The embed protocol between the hosted pay page and the merchant page that frames it
 * (docs/embed-protocol.md): message shapes and URL parameters. Free of DOM types, so the server and
 * the pay page's server-side rendering use it as well as the browser helpers.
 */

/** Value of `source` on every message of the embed protocol. */
export const EMBED_MESSAGE_SOURCE = 'cryptocheckout';

/** Protocol version carried by every message; receivers ignore other versions. */
export const EMBED_PROTOCOL_VERSION = 1;

export type EmbedMessageType = 'settled' | 'closed' | 'resize';

/** A message the hosted pay page posts to the merchant page that embeds it. */
export interface EmbedMessage {
  source: typeof EMBED_MESSAGE_SOURCE;
  version: typeof EMBED_PROTOCOL_VERSION;
  type: EmbedMessageType;
  transaction_code: string;
  /** Transaction status as the pay page last saw it. */
  status?: string;
  /** Content height in CSS pixels; required on `resize`. */
  height?: number;
}

export interface EmbedParams {
  embedded: boolean;
  /** The validated origin of the embedding page, or null when absent, invalid or not embedded. */
  parentOrigin: string | null;
}

// Plain arrays rather than Sets keep the module free of top-level calls, so bundlers drop it unused.
const MESSAGE_KEYS: readonly string[] = ['source', 'version', 'type', 'transaction_code', 'status', 'height'];
const MESSAGE_TYPES: readonly unknown[] = ['settled', 'closed', 'resize'];
const TRANSACTION_CODE = /^[A-Za-z0-9_-]{1,128}$/;
const STATUS = /^[a-z_]{1,32}$/;

/** Strict shape check for an embed message: known keys only, each with its expected form. */
export function isEmbedMessage(value: unknown): value is EmbedMessage {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  if (!Object.keys(record).every((key) => MESSAGE_KEYS.includes(key))) return false;
  if (record.source !== EMBED_MESSAGE_SOURCE || record.version !== EMBED_PROTOCOL_VERSION) {
    return false;
  }
  if (!MESSAGE_TYPES.includes(record.type)) return false;
  if (typeof record.transaction_code !== 'string' || !TRANSACTION_CODE.test(record.transaction_code)) {
    return false;
  }
  const { status, height } = record;
  if (status !== undefined && (typeof status !== 'string' || !STATUS.test(status))) return false;
  if (height !== undefined && !isValidHeight(height)) return false;
  return record.type !== 'resize' || height !== undefined;
}

/**
 * True when `value` is exactly an http(s) origin, `scheme://host[:port]`, in the canonical form a
 * browser reports (lower-case host, no default port, no path or trailing slash).
 */
export function isHttpOrigin(value: string): boolean {
  const url = parseHttpUrl(value);
  return url !== null && url.origin === value;
}

/**
 * Adds `embed=1` and `parent_origin` to a checkout URL so the pay page knows it runs in a frame
 * and which origin it may post messages to. Throws a TypeError on an invalid URL or origin.
 */
export function buildEmbedUrl(checkoutUrl: string, parentOrigin: string): string {
  const url = parseHttpUrl(checkoutUrl);
  if (!url) throw new TypeError('checkoutUrl must be an absolute http(s) URL');
  if (!isHttpOrigin(parentOrigin)) {
    throw new TypeError('parentOrigin must be an http(s) origin such as https://shop.example');
  }
  url.searchParams.set('embed', '1');
  url.searchParams.set('parent_origin', parentOrigin);
  return url.toString();
}

/** Reads the embed parameters of the pay page's own URL; anything malformed reads as not embedded. */
export function readEmbedParams(url: string | URL): EmbedParams {
  const parsed = parseHttpUrl(String(url));
  if (!parsed || parsed.searchParams.get('embed') !== '1') {
    return { embedded: false, parentOrigin: null };
  }
  const parentOrigin = parsed.searchParams.get('parent_origin');
  return {
    embedded: true,
    parentOrigin: parentOrigin !== null && isHttpOrigin(parentOrigin) ? parentOrigin : null,
  };
}

/** Parses an absolute http(s) URL; null for anything else. Shared with the browser helpers; not part of the root API. */
export function parseHttpUrl(value: string): URL | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
}

function isValidHeight(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}
