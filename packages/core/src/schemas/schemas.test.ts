import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FIAT_CURRENCY_CODES } from '../money/currencies.js';
import { formatMinorUnits } from '../money/fiat.js';
import { checkoutRequestSchema } from './checkout.js';
import { errorEnvelopeSchema, successEnvelopeSchema } from './envelope.js';
import { jsonSchemas } from './json-schema.js';
import { paymentLinkSchema } from './payment-link.js';
import { lockedRateSchema, transactionSchema } from './transaction.js';
import { settledWebhookSchema } from './webhook.js';

const readVectors = (file: string) =>
  JSON.parse(readFileSync(new URL(`../../vectors/${file}`, import.meta.url), 'utf8')) as {
    valid: Array<{ name: string; body?: unknown; data?: unknown; rate?: unknown }>;
    invalid: Array<{ name: string; body?: unknown; data?: unknown; rate?: unknown; field: string }>;
  };

function firstIssuePath(result: { success: boolean; error?: { issues: Array<{ path: PropertyKey[] }> } }) {
  return result.error?.issues[0]?.path.join('.');
}

describe.each([
  ['webhooks.json', settledWebhookSchema, 'body'],
  ['lookups.json', transactionSchema, 'data'],
  ['locked-rates.json', lockedRateSchema, 'rate'],
] as const)('%s', (file, schema, key) => {
  const vectors = readVectors(file);
  it.each(vectors.valid.map((v) => [v.name, v] as const))('accepts %s', (_name, vector) => {
    expect(schema.safeParse(vector[key]).success).toBe(true);
  });
  it.each(vectors.invalid.map((v) => [v.name, v] as const))('refuses %s', (_name, vector) => {
    const result = schema.safeParse(vector[key]);
    expect(result.success).toBe(false);
    expect(firstIssuePath(result)).toBe(vector.field);
  });
});

const validRequest = {
  fiat_amount: 25,
  fiat_currency: 'EUR',
  external_reference: 'order-1001',
  webhook_url: 'https://shop.example/wc-api/cryptocheckout',
  customer: {
    wallet_address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
    crypto_currency: 'USDC',
    crypto_currency_network: 'POLYGON',
  },
};

describe('checkout request', () => {
  it('accepts a valid request with the amount as number or string', () => {
    expect(checkoutRequestSchema.safeParse(validRequest).success).toBe(true);
    expect(checkoutRequestSchema.safeParse({ ...validRequest, fiat_amount: '25.00' }).success).toBe(true);
  });

  it.each([
    ['fiat_amount', { fiat_amount: 0 }],
    ['fiat_amount', { fiat_amount: '12.345' }],
    ['fiat_amount', { fiat_amount: true }],
    ['fiat_currency', { fiat_currency: 'EURO' }],
    ['external_reference', { external_reference: '' }],
    ['external_reference', { external_reference: 'x'.repeat(129) }],
    ['external_reference', { external_reference: 'line\nbreak' }],
    ['webhook_url', { webhook_url: 'ftp://shop.example/hook' }],
    ['success_url', { success_url: 'not a url' }],
    ['cancel_url', { cancel_url: `https://shop.example/${'a'.repeat(2100)}` }],
    [
      'customer.crypto_currency_network',
      { customer: { ...validRequest.customer, crypto_currency_network: 'DOGE' } },
    ],
    ['customer.crypto_currency', { customer: { ...validRequest.customer, crypto_currency: 'BTC' } }],
    [
      'customer.wallet_address',
      {
        customer: { ...validRequest.customer, wallet_address: '0x3c499c542cef5e3811e1192ce70d8cC03d5c3359' },
      },
    ],
    [
      'customer.wallet_address',
      { customer: { ...validRequest.customer, wallet_address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' } },
    ],
    ['customer', { customer: undefined }],
  ])('names %s when it is wrong', (field, override) => {
    const result = checkoutRequestSchema.safeParse({ ...validRequest, ...override });
    expect(result.success).toBe(false);
    expect(firstIssuePath(result)).toBe(field);
    expect(result.error?.issues[0]?.message).toMatch(/\w+/);
  });

  it('round-trips any valid amount in any currency (property)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        fc.constantFrom(...FIAT_CURRENCY_CODES),
        (minor, code) => {
          const amount = formatMinorUnits(minor, code);
          const parsed = checkoutRequestSchema.parse({
            ...validRequest,
            fiat_amount: amount,
            fiat_currency: code,
          });
          const again = checkoutRequestSchema.parse(JSON.parse(JSON.stringify(parsed)));
          expect(again).toEqual(parsed);
          expect(again.fiat_amount).toBe(amount);
        },
      ),
    );
  });
});

describe('envelopes and links', () => {
  it('tells success from error envelopes', () => {
    const error = { status: 'error', error: { code: 'not_found', message: 'No such transaction.' } };
    expect(errorEnvelopeSchema.safeParse(error).success).toBe(true);
    expect(successEnvelopeSchema(transactionSchema).safeParse(error).success).toBe(false);
  });
  it('discriminates crypto and fiat payment links', () => {
    const expires_at = '2026-11-01T11:00:00.000Z';
    const crypto = paymentLinkSchema.parse({
      kind: 'crypto',
      payment_method: 'btc_bitcoin',
      address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
      amount: '0.0004',
      asset: 'BTC',
      network: 'BITCOIN',
      uri: 'bitcoin:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq?amount=0.0004',
      expires_at,
    });
    expect(crypto.kind).toBe('crypto');
    expect(
      paymentLinkSchema.safeParse({
        kind: 'fiat',
        payment_method: 'card',
        address: 'x',
        amount: '1',
        expires_at,
      }).success,
    ).toBe(false);
  });
  it('publishes a JSON Schema for every wire shape', () => {
    const schemas = jsonSchemas();
    expect(Object.keys(schemas).sort()).toEqual(
      [
        'checkoutCreated',
        'checkoutRequest',
        'errorEnvelope',
        'paymentLink',
        'paymentOptions',
        'settledWebhook',
        'transaction',
      ].sort(),
    );
    const webhook = schemas.settledWebhook as { required: string[]; properties: Record<string, unknown> };
    expect(webhook.required).toContain('timestamp');
    expect(Object.keys(webhook.properties)).toHaveLength(11);
  });
});
