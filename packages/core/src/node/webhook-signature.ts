import { createHmac, timingSafeEqual } from 'node:crypto';

/** Header carrying the optional webhook signature (docs/api.md, "Webhook signature"). */
export const SIGNATURE_HEADER = 'x-cryptocheckout-signature';

/** Replay window `verifyWebhookSignature` allows by default, in seconds either side of now. */
const DEFAULT_TOLERANCE_SECONDS = 300;

// What the signer writes: a canonical decimal of at most 15 digits (a safe integer, so the text and
// the number agree) and a lower-case hex SHA-256 digest. Anything else is refused, never normalised.
const TIMESTAMP = /^(0|[1-9][0-9]{0,14})$/;
const DIGEST = /^[0-9a-f]{64}$/;

/**
 * Signature header value `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` keyed with
 * `secret`, as the server sends it when a webhook secret is configured (docs/api.md, "Webhook
 * signature"). `body` is hashed as UTF-8.
 */
export function signWebhook(secret: string, body: string, unixSeconds: number): string {
  const digest = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${digest}`;
}

/**
 * True when `header` is a valid signature of the raw request `body` under `secret`, made within
 * `toleranceSeconds` of `nowSeconds` (both Unix seconds) either way, which bounds replays. Pass
 * the body exactly as received (a string is hashed as UTF-8; bytes are hashed as they are) and
 * the header as Node gives it (`request.headers[SIGNATURE_HEADER]`).
 * Never throws: a missing or malformed header (an array: the header came more than once), an
 * empty secret, a duplicated part, a non-hex or wrong-length digest all give false. Parts other
 * than `t` and `v1` are ignored, so a later scheme can be sent alongside.
 */
export function verifyWebhookSignature(
  secret: string,
  body: string | Uint8Array,
  header: string | readonly string[] | undefined,
  nowSeconds: number,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
): boolean {
  try {
    if (typeof secret !== 'string' || secret === '' || typeof header !== 'string') return false;
    const parts = parseSignatureHeader(header);
    const timestamp = parts?.get('t');
    const given = parts?.get('v1');
    if (timestamp === undefined || given === undefined) return false;
    if (!TIMESTAMP.test(timestamp) || !DIGEST.test(given)) return false;
    if (!(Math.abs(nowSeconds - Number(timestamp)) <= toleranceSeconds)) return false;
    const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
    return timingSafeEqual(Buffer.from(given, 'hex'), expected);
  } catch {
    // Only a body of the wrong type (from JavaScript callers) gets here; it verifies nothing.
    return false;
  }
}

/** `key=value` parts separated by commas; null when a part has no key or a key repeats. */
function parseSignatureHeader(header: string): Map<string, string> | null {
  const parts = new Map<string, string>();
  for (const part of header.split(',')) {
    const separator = part.indexOf('=');
    if (separator <= 0) return null;
    const key = part.slice(0, separator);
    if (parts.has(key)) return null;
    parts.set(key, part.slice(separator + 1));
  }
  return parts;
}
