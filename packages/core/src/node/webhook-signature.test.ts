import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SIGNATURE_HEADER, signWebhook, verifyWebhookSignature } from './webhook-signature.js';

interface SignatureVectors {
  sign: Array<{ name: string; secret: string; body: string; timestamp: number; header: string }>;
  verify: Array<{
    name: string;
    secret: string;
    body: string;
    header: string;
    now: number;
    toleranceSeconds?: number;
    valid: boolean;
  }>;
}
// The same file runs through the PHP client (packages/php-client/test/vectors.test.ts).
const vectors = JSON.parse(
  readFileSync(new URL('../../vectors/signatures.json', import.meta.url), 'utf8'),
) as SignatureVectors;

const SECRET = 'whsec_test';
const BODY = '{"event":"transaction.settled","transaction_code":"7d3f2a10-5b6c-4e8d-9f01-23456789abcd"}';
const NOW = 1_793_527_200;

describe('signature vectors', () => {
  it.each(vectors.sign.map((vector) => [vector.name, vector] as const))('sign: %s', (_name, vector) => {
    expect(signWebhook(vector.secret, vector.body, vector.timestamp)).toBe(vector.header);
    expect(verifyWebhookSignature(vector.secret, vector.body, vector.header, vector.timestamp)).toBe(true);
  });

  it.each(vectors.verify.map((vector) => [vector.name, vector] as const))('verify: %s', (_name, vector) => {
    const { secret, body, header, now, toleranceSeconds, valid } = vector;
    expect(verifyWebhookSignature(secret, body, header, now, toleranceSeconds)).toBe(valid);
    // The raw bytes of the request verify exactly as their UTF-8 text does.
    expect(verifyWebhookSignature(secret, Buffer.from(body, 'utf8'), header, now, toleranceSeconds)).toBe(
      valid,
    );
  });

  it('keep negative cases for every way a header can be malformed', () => {
    const refused = vectors.verify.filter((vector) => !vector.valid).map((vector) => vector.name);
    for (const name of ['empty header', 'missing v1', 'non-hex digest', 'duplicate t', 'tampered body']) {
      expect(refused).toContain(name);
    }
  });
});

describe('verifyWebhookSignature', () => {
  const header = signWebhook(SECRET, BODY, NOW);

  it('names the header the server sends', () => {
    expect(SIGNATURE_HEADER).toBe('x-cryptocheckout-signature');
    expect(header).toMatch(/^t=1793527200,v1=[0-9a-f]{64}$/);
  });

  it('accepts its own signature and refuses a tampered body, another secret or a stale time', () => {
    expect(verifyWebhookSignature(SECRET, BODY, header, NOW)).toBe(true);
    expect(verifyWebhookSignature(SECRET, BODY.replace('settled', 'refunded'), header, NOW)).toBe(false);
    expect(verifyWebhookSignature('whsec_other', BODY, header, NOW)).toBe(false);
    expect(verifyWebhookSignature(SECRET, BODY, header, NOW + 301)).toBe(false);
    expect(verifyWebhookSignature(SECRET, BODY, header, NOW + 3600, 3600)).toBe(true);
  });

  it('refuses a missing or repeated header and a non-finite clock or tolerance', () => {
    expect(verifyWebhookSignature(SECRET, BODY, undefined, NOW)).toBe(false);
    expect(verifyWebhookSignature(SECRET, BODY, [header, header], NOW)).toBe(false);
    expect(verifyWebhookSignature(SECRET, BODY, header, Number.NaN)).toBe(false);
    expect(verifyWebhookSignature(SECRET, BODY, header, NOW, Number.NaN)).toBe(false);
  });

  it('returns false instead of throwing on arguments of the wrong type from JavaScript callers', () => {
    const loose = verifyWebhookSignature as (...args: unknown[]) => boolean;
    expect(loose(SECRET, { body: BODY }, header, NOW)).toBe(false);
    expect(loose(SECRET, null, header, NOW)).toBe(false);
    expect(loose(undefined, BODY, header, NOW)).toBe(false);
    expect(loose(SECRET, BODY, 42, NOW)).toBe(false);
  });

  it('never throws and never accepts an arbitrary header', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.integer(), (text, body, now) => {
        expect(verifyWebhookSignature(SECRET, body, text, now)).toBe(false);
      }),
    );
  });

  it('accepts every body signed at any time within the tolerance', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme' }),
        fc.integer({ min: 0, max: 4_000_000_000 }),
        fc.integer({ min: -300, max: 300 }),
        (body, signedAt, skew) => {
          const signed = signWebhook(SECRET, body, signedAt);
          expect(verifyWebhookSignature(SECRET, body, signed, signedAt + skew)).toBe(true);
        },
      ),
    );
  });
});
