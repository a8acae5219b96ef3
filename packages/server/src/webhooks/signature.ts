import { createHmac, timingSafeEqual } from 'node:crypto';

/** Header carrying the optional webhook signature. */
export const SIGNATURE_HEADER = 'x-cryptocheckout-signature';

/**
 * Signature header value `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, the scheme
 * documented in docs/api.md (opt-in; the spec's webhook is unsigned).
 */
export function signWebhook(secret: string, body: string, unixSeconds: number): string {
  const digest = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${digest}`;
}

/** Verifies a signature header against the body; `toleranceSeconds` bounds replay. */
export function verifyWebhookSignature(
  secret: string,
  body: string,
  header: string,
  nowSeconds: number,
  toleranceSeconds = 300,
): boolean {
  const parts = Object.fromEntries(header.split(',').map((part) => part.split('=', 2) as [string, string]));
  const timestamp = Number(parts.t);
  if (!Number.isInteger(timestamp) || Math.abs(nowSeconds - timestamp) > toleranceSeconds || !parts.v1)
    return false;
  const expected = Buffer.from(signWebhook(secret, body, timestamp).split('v1=')[1]!, 'hex');
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
