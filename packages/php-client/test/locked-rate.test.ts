import { describeEachPhp } from '@cryptocheckout/php-testkit';
import { describe, expect, it } from 'vitest';
import { CLIENT_MOUNTS, LOAD_CLIENT } from './harness.js';

// The locked rate of GET /transaction (LockedRate): read strictly, left out when it does not read,
// never a reason for a lookup to fail; its price line, and the note of a booked payment (Decision).

const RATE = {
  usd_per_unit: '1.0612',
  source: 'ECB 2026-11-27 · ExchangeRate-API 2026-11-28 00:02 UTC',
  sources: ['ECB', 'ExchangeRate-API'],
  as_of: '2026-11-27T15:00:00.000Z',
  spread_percent: '0',
  held_until: '2026-11-29T15:02:00.000Z',
};

const LOOKUP = {
  transaction_code: '3f2a9c1e-7b4d-4e8a-9c21-5d6e7f8a9b0c',
  status: 'settled',
  external_reference: 'order-1',
  fiat_amount: 25,
  fiat_currency: 'EUR',
  amount_in_usd: 26.53,
  received_usd: 26.53,
  checkout_url: 'https://pay.example.com/pay/3f2a9c1e-7b4d-4e8a-9c21-5d6e7f8a9b0c',
  wallet_address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
  wallet_currency: 'USDC',
  wallet_network: 'POLYGON',
  payout_dispatched: true,
  payment_method: 'usdc_polygon',
  late: false,
  created_at: '2026-11-29T14:02:00.000Z',
  expires_at: '2026-11-29T15:02:00.000Z',
  settled_at: '2026-11-29T14:10:00.000Z',
  payments: [],
};

const LINE =
  'Priced at 1 EUR = 1.0612 USD (ECB 2026-11-27 · ExchangeRate-API 2026-11-28 00:02 UTC), held until 2026-11-29 15:02 UTC.';

describeEachPhp(
  'LockedRate',
  ({ php }) => {
    /** Runs PHP after loading the client; `input` arrives as `$input`, decoded from JSON (objects as stdClass). */
    const run = <T>(body: string, input: unknown = null) =>
      php().runJson(
        `${LOAD_CLIENT}
        use CryptoCheckout\\Client\\LockedRate;
        use CryptoCheckout\\Client\\ResponseValidator;
        use CryptoCheckout\\Client\\Kernel\\Decision;
        use CryptoCheckout\\Client\\Kernel\\StoredCheckout;
        $input = json_decode(file_get_contents('php://input'), false);
        ${body}`,
        { body: JSON.stringify(input) },
      ) as Promise<T>;

    /** LockedRate::fromArray(rate)->priceLine(currency), or null. */
    const line = (rate: unknown, currency = 'EUR') =>
      run<string | null>(
        `$rate = LockedRate::fromArray($input->rate); echo json_encode($rate === null ? null : $rate->priceLine($input->currency), JSON_UNESCAPED_UNICODE);`,
        { rate, currency },
      );

    describe('the price line', () => {
      it('names the rate, its sources and until when it holds', async () => {
        expect(await line(RATE)).toBe(LINE);
      });

      it('says the spread when there is one, and reads an offset as UTC', async () => {
        expect(
          await line({ ...RATE, spread_percent: '1.5', held_until: '2026-11-29T16:02:59+01:00' }, 'CHF'),
        ).toBe(
          'Priced at 1 CHF = 1.0612 USD, including a 1.5% spread (ECB 2026-11-27 · ExchangeRate-API 2026-11-28 00:02 UTC), held until 2026-11-29 15:02 UTC.',
        );
        expect(await line({ ...RATE, spread_percent: '0.00' })).toBe(LINE);
      });

      it('is short for USD, where nothing is converted', async () => {
        expect(await line({ ...RATE, usd_per_unit: '1', source: 'static table 2026-11-01' }, 'USD')).toBe(
          'Priced in USD (no conversion).',
        );
      });

      it('is null for a currency that is not an ISO 4217 code', async () => {
        expect(await line(RATE, 'eur')).toBeNull();
        expect(await line(RATE, 'EU<R')).toBeNull();
      });
    });

    describe('a rate that does not read is left out', () => {
      const bad: Array<[string, unknown]> = [
        ['not an object', 'ECB'],
        ['a list', [RATE]],
        ['a missing member', { ...RATE, held_until: undefined }],
        ['a number for the rate', { ...RATE, usd_per_unit: 1.0612 }],
        ['a zero rate', { ...RATE, usd_per_unit: '0' }],
        ['a negative rate', { ...RATE, usd_per_unit: '-1.06' }],
        ['an exponent', { ...RATE, usd_per_unit: '1e3' }],
        ['an overlong decimal', { ...RATE, usd_per_unit: `1.${'0'.repeat(40)}1` }],
        ['markup in the source', { ...RATE, source: 'ECB <script>alert(1)</script>' }],
        ['a quote in the source', { ...RATE, source: 'ECB" onmouseover="x' }],
        ['an ampersand in the source', { ...RATE, source: 'ECB &amp; others' }],
        ['a control character in the source', { ...RATE, source: 'ECB\n2026-11-27' }],
        ['a bidi override in the source', { ...RATE, source: 'ECB \u202e2026' }],
        ['an empty source', { ...RATE, source: '' }],
        ['an overlong source', { ...RATE, source: 'E'.repeat(201) }],
        ['a source name that is not text', { ...RATE, sources: ['ECB', 7] }],
        ['sources that are an object', { ...RATE, sources: { a: 'ECB' } }],
        ['too many sources', { ...RATE, sources: Array.from({ length: 17 }, (_, i) => `S${i}`) }],
        ['a date that is not ISO 8601', { ...RATE, as_of: 'yesterday' }],
        ['a date that does not exist', { ...RATE, held_until: '2026-02-30T10:00:00Z' }],
        ['a spread that is not a decimal string', { ...RATE, spread_percent: 'none' }],
      ];

      it.each(bad)('%s', async (_name, rate) => {
        expect(await line(rate)).toBeNull();
      });

      it('keeps a rate at the limits', async () => {
        expect(await line({ ...RATE, source: 'E'.repeat(200), sources: [] })).toContain('Priced at 1 EUR');
      });
    });

    describe('GET /transaction', () => {
      const validate = (data: unknown) =>
        run<Record<string, unknown>>(
          'echo json_encode(ResponseValidator::transaction($input), JSON_UNESCAPED_UNICODE);',
          data,
        );

      it('keeps a rate that reads, in its wire form', async () => {
        expect((await validate({ ...LOOKUP, rate: { ...RATE, extra: 'dropped' } })).rate).toEqual(RATE);
      });

      it('answers without one when the service sent none (an older service) or one that does not read', async () => {
        expect(await validate(LOOKUP)).not.toHaveProperty('rate');
        expect(await validate({ ...LOOKUP, rate: null })).not.toHaveProperty('rate');
        const malformed = await validate({ ...LOOKUP, rate: { ...RATE, usd_per_unit: 'lots' } });
        expect(malformed).not.toHaveProperty('rate');
        expect(malformed).toMatchObject({ transaction_code: LOOKUP.transaction_code, status: 'settled' });
      });
    });

    describe('the note of a booked payment', () => {
      /** Decision($action, $reason)->noteWithPriceLine() for a EUR checkout and $input->lookup. */
      const note = (action: string, reason: string, lookup: unknown) =>
        run<string>(
          `$checkout = StoredCheckout::fromArray(['transaction_code' => $input->lookup->transaction_code, 'fiat_amount' => '25.00', 'fiat_currency' => 'EUR']);
          $lookup = ResponseValidator::transaction($input->lookup);
          $decision = new Decision($input->action, $input->reason, 'Crypto Checkout: payment of 26.53 USD settled.', $checkout, $lookup, 'awaiting_payment');
          echo json_encode($decision->noteWithPriceLine(), JSON_UNESCAPED_UNICODE);`,
          { action, reason, lookup },
        );

      it('carries the price line when the payment is booked', async () => {
        expect(await note('mark_paid', 'settled', { ...LOOKUP, rate: RATE })).toBe(
          `Crypto Checkout: payment of 26.53 USD settled. ${LINE}`,
        );
      });

      it('is the note alone without a rate, for a repair, and for decisions that book nothing', async () => {
        const plain = 'Crypto Checkout: payment of 26.53 USD settled.';
        expect(await note('mark_paid', 'settled', LOOKUP)).toBe(plain);
        expect(await note('mark_paid', 'booked_undone', { ...LOOKUP, rate: RATE })).toBe(plain);
        expect(await note('hold_underpaid', 'underpaid', { ...LOOKUP, rate: RATE })).toBe(plain);
      });
    });
  },
  { mounts: CLIENT_MOUNTS },
);
