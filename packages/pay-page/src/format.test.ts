import { describe, expect, it } from 'vitest';
import {
  formatCountdown,
  formatFiat,
  formatText,
  formatUsd,
  isHttpUrl,
  isSafeWalletUri,
  usdStillDue,
} from './format.js';

describe('formatText', () => {
  it('fills known placeholders and leaves unknown ones', () => {
    expect(formatText('Pay {merchant} {amount}', { merchant: 'shop', amount: '1' })).toBe('Pay shop 1');
    expect(formatText('Pay {merchant}', {})).toBe('Pay {merchant}');
  });

  it('inserts values literally, even ones that look like placeholders or replacement patterns', () => {
    expect(formatText('{a}-{b}', { a: '{b}', b: '$&' })).toBe('{b}-$&');
    expect(formatText('{toString}', {})).toBe('{toString}');
  });
});

describe('money', () => {
  it('formats fiat by the currency’s own decimals and the page language', () => {
    expect(formatFiat(12.5, 'EUR', 'en')).toBe('€12.50');
    expect(formatFiat(12.5, 'EUR', 'de').replace(/\s/g, ' ')).toBe('12,50 €');
    expect(formatFiat(1500, 'JPY', 'en')).toBe('¥1,500');
    expect(formatFiat(1.5, 'BHD', 'en')).toMatch(/1\.500/);
    expect(formatUsd(13.6, 'fr').replace(/\s/g, ' ')).toBe('13,60 $US');
  });

  it('does not throw on a currency code the runtime rejects', () => {
    expect(formatFiat(3, 'not a code', 'en')).toBe('3 not a code');
  });

  it('computes the USD still due in whole cents, never below zero', () => {
    expect(usdStillDue(13.6, 10.2)).toBe(3.4);
    expect(usdStillDue(0.3, 0.1)).toBe(0.2);
    expect(usdStillDue(10, 10.01)).toBe(0);
    expect(usdStillDue(10, 10)).toBe(0);
  });
});

describe('formatCountdown', () => {
  it.each([
    [59 * 60_000 + 5_000, '59:05'],
    [60 * 60_000, '1:00:00'],
    [2 * 3_600_000 + 61_000, '2:01:01'],
    [1_200, '0:02'],
    [0, '0:00'],
    [-5_000, '0:00'],
  ])('%i ms reads %s', (milliseconds, text) => {
    expect(formatCountdown(milliseconds)).toBe(text);
  });
});

describe('link safety', () => {
  it.each([
    'ethereum:0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359@137/transfer?address=0xabc&uint256=1',
    'bitcoin:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq?amount=0.0004',
    'solana:7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU?amount=1&spl-token=EPjF',
  ])('accepts the wallet URI %s', (uri) => {
    expect(isSafeWalletUri(uri)).toBe(true);
  });

  it.each([
    'javascript:alert(1)',
    'JavaScript:alert(1)',
    'data:text/html,x',
    'vbscript:x',
    'file:///etc/passwd',
    '',
    'no scheme',
    'ethereum: spaced',
  ])('rejects %s as a wallet URI', (uri) => {
    expect(isSafeWalletUri(uri)).toBe(false);
  });

  it('accepts only absolute http(s) URLs for navigation', () => {
    expect(isHttpUrl('https://shop.example/thanks')).toBe(true);
    expect(isHttpUrl('http://127.0.0.1:8080/x')).toBe(true);
    expect(isHttpUrl('javascript:alert(1)')).toBe(false);
    expect(isHttpUrl('/relative')).toBe(false);
  });
});
