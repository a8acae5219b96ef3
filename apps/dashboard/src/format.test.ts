import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  attemptResult,
  currencyDigits,
  decimalText,
  formatAge,
  formatAssetAmount,
  formatBaseUnits,
  formatDecimal,
  formatFiat,
  formatInterval,
  formatLocalDateTime,
  formatUsd,
  formatUtcDate,
  httpUrlOrNull,
  shortCode,
  webhookLabel,
} from './format.js';

describe('formatLocalDateTime', () => {
  const originalTz = process.env.TZ;
  beforeEach(() => {
    // Node applies a changed TZ to Date at once: half-hour offset, so a wrong conversion shows.
    process.env.TZ = 'Asia/Kolkata';
  });
  afterEach(() => {
    process.env.TZ = originalTz;
  });

  it('shows a UTC instant in the local time zone', () => {
    expect(formatLocalDateTime('2025-01-31T20:45:07.000Z')).toBe('2025-02-01 02:15:07');
    process.env.TZ = 'America/New_York';
    expect(formatLocalDateTime('2025-01-31T20:45:07Z')).toBe('2025-01-31 15:45:07');
  });

  it('returns text that is no time unchanged', () => {
    expect(formatLocalDateTime('not a time')).toBe('not a time');
  });

  it('gives the UTC calendar date whatever the local zone', () => {
    expect(formatUtcDate(new Date('2025-03-04T23:30:00Z'))).toBe('2025-03-04');
  });
});

describe('amounts', () => {
  it('groups thousands and pads decimals without rounding or dropping digits', () => {
    expect(formatDecimal('1234567.5', 2)).toBe('1,234,567.50');
    expect(formatDecimal('999', 2)).toBe('999.00');
    expect(formatDecimal('0.123456789', 2)).toBe('0.123456789');
    expect(formatDecimal('12345678901234567890.01')).toBe('12,345,678,901,234,567,890.01');
    expect(formatDecimal('-1000.1', 2)).toBe('-1,000.10');
    expect(formatDecimal('abc')).toBe('abc');
  });

  it('writes JSON numbers without exponents', () => {
    expect(decimalText(1e-7)).toBe('0.0000001');
    expect(decimalText(12.5)).toBe('12.5');
    expect(decimalText('0.10')).toBe('0.10');
  });

  it('formats USD with cents and fiat with the currency’s usual decimals', () => {
    expect(formatUsd('1234.5')).toBe('$1,234.50');
    expect(formatUsd(0)).toBe('$0.00');
    expect(formatUsd('-3')).toBe('-$3.00');
    expect(currencyDigits('JPY')).toBe(0);
    expect(currencyDigits('EUR')).toBe(2);
    expect(currencyDigits('XX1')).toBe(2);
    expect(formatFiat('1500', 'JPY')).toBe('1,500 JPY');
    expect(formatFiat(19.9, 'EUR')).toBe('19.90 EUR');
    expect(formatAssetAmount('1000.000123', 'USDC')).toBe('1,000.000123 USDC');
  });
});

describe('labels', () => {
  it('shortens a transaction code to its first block', () => {
    expect(shortCode('3f1c2a9e-8b7d-4c6e-9f0a-1b2c3d4e5f60')).toBe('3f1c2a9e…');
    expect(shortCode('42')).toBe('42');
  });

  it('names webhook states in words', () => {
    expect(webhookLabel('failed')).toBe('Failed');
    expect(webhookLabel('none')).toBe('No webhook');
  });

  it('says plainly why a delivery attempt failed', () => {
    const attempt = { attempt_number: 1, attempted_at: '2025-01-01T00:00:00Z', duration_ms: 12 };
    expect(attemptResult({ ...attempt, http_status: 200, error: null })).toEqual({
      ok: true,
      text: 'HTTP 200',
    });
    expect(attemptResult({ ...attempt, http_status: 500, error: null })).toEqual({
      ok: false,
      text: 'Failed: HTTP 500',
    });
    expect(
      attemptResult({ ...attempt, http_status: null, error: 'connect ECONNREFUSED 127.0.0.1:9' }),
    ).toEqual({
      ok: false,
      text: 'Failed: connect ECONNREFUSED 127.0.0.1:9',
    });
    expect(attemptResult({ ...attempt, http_status: 410, error: 'HTTP 410' }).text).toBe('Failed: HTTP 410');
    expect(attemptResult({ ...attempt, http_status: 302, error: 'redirects are not followed' }).text).toBe(
      'Failed: HTTP 302 — redirects are not followed',
    );
    expect(attemptResult({ ...attempt, http_status: null, error: null }).text).toBe('Failed: no answer');
  });

  it('links only to http(s) URLs', () => {
    expect(httpUrlOrNull('https://polygonscan.com/tx/0xabc')).toBe('https://polygonscan.com/tx/0xabc');
    expect(httpUrlOrNull('javascript:alert(1)')).toBeNull();
    expect(httpUrlOrNull('data:text/html,hi')).toBeNull();
    expect(httpUrlOrNull(null)).toBeNull();
    expect(httpUrlOrNull('not a url')).toBeNull();
  });
});

describe('formatBaseUnits', () => {
  it('divides by 10^decimals exactly and drops trailing zeros', () => {
    expect(formatBaseUnits('1234500000000000000')).toBe('1.2345');
    expect(formatBaseUnits('1000000000000000000')).toBe('1');
    expect(formatBaseUnits('0')).toBe('0');
    expect(formatBaseUnits('1')).toBe('0.000000000000000001');
    expect(formatBaseUnits('123456789012345678901234567890')).toBe('123456789012.34567890123456789');
    expect(formatBaseUnits('1500000', 6)).toBe('1.5');
  });

  it('returns text that is no whole number unchanged', () => {
    expect(formatBaseUnits('-5')).toBe('-5');
    expect(formatBaseUnits('1.5')).toBe('1.5');
    expect(formatBaseUnits('')).toBe('');
  });
});

describe('formatAge and formatInterval', () => {
  const now = new Date('2026-11-27T15:00:00.000Z');

  it('says how long ago a time was, in its largest whole unit', () => {
    expect(formatAge('2026-11-27T14:59:58.000Z', now)).toBe('just now');
    expect(formatAge('2026-11-27T14:59:15.000Z', now)).toBe('45 s ago');
    expect(formatAge('2026-11-27T14:48:00.000Z', now)).toBe('12 min ago');
    expect(formatAge('2026-11-27T11:30:00.000Z', now)).toBe('3 h ago');
    expect(formatAge('2026-11-25T09:00:00.000Z', now)).toBe('2 d ago');
    // A clock ahead of the browser's is not a time in the future.
    expect(formatAge('2026-11-27T15:01:00.000Z', now)).toBe('just now');
    expect(formatAge('soon', now)).toBe('soon');
  });

  it('spells refresh intervals in the unit they are whole in', () => {
    expect(formatInterval(30)).toBe('30 s');
    expect(formatInterval(90)).toBe('90 s');
    expect(formatInterval(300)).toBe('5 min');
    expect(formatInterval(3_600)).toBe('1 h');
    expect(formatInterval(5_400)).toBe('90 min');
  });
});
