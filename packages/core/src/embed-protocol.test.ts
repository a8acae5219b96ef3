import { describe, expect, it } from 'vitest';
import {
  buildEmbedUrl,
  EMBED_MESSAGE_SOURCE,
  type EmbedMessage,
  isEmbedMessage,
  isHttpOrigin,
  readEmbedParams,
} from './embed-protocol.js';

const CODE = '3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f';

const settled: EmbedMessage = {
  source: 'cryptocheckout',
  version: 1,
  type: 'settled',
  transaction_code: CODE,
  status: 'settled',
};

describe('isEmbedMessage', () => {
  it('accepts each message type in its documented shape', () => {
    expect(EMBED_MESSAGE_SOURCE).toBe('cryptocheckout');
    expect(isEmbedMessage(settled)).toBe(true);
    expect(isEmbedMessage({ ...settled, type: 'closed', status: 'pending' })).toBe(true);
    expect(isEmbedMessage({ ...settled, type: 'closed', status: undefined })).toBe(true);
    expect(isEmbedMessage({ ...settled, type: 'resize', height: 640 })).toBe(true);
  });

  it.each([
    ['null', null],
    ['a string', JSON.stringify(settled)],
    ['an array', [settled]],
    ['another source', { ...settled, source: 'other' }],
    ['another version', { ...settled, version: 2 }],
    ['a version given as string', { ...settled, version: '1' }],
    ['an unknown type', { ...settled, type: 'paid' }],
    ['a missing transaction code', { ...settled, transaction_code: undefined }],
    ['an empty transaction code', { ...settled, transaction_code: '' }],
    ['a transaction code with markup', { ...settled, transaction_code: '<img src=x>' }],
    ['an overlong transaction code', { ...settled, transaction_code: 'a'.repeat(129) }],
    ['a non-string status', { ...settled, status: 1 }],
    ['a malformed status', { ...settled, status: 'Settled!' }],
    ['an unknown key', { ...settled, redirect: 'https://evil.example' }],
    ['a resize without height', { ...settled, type: 'resize' }],
    ['a negative height', { ...settled, type: 'resize', height: -1 }],
    ['an infinite height', { ...settled, type: 'resize', height: Number.POSITIVE_INFINITY }],
    ['a height given as string', { ...settled, type: 'resize', height: '640' }],
  ])('rejects %s', (_label, value) => {
    expect(isEmbedMessage(value)).toBe(false);
  });
});

describe('isHttpOrigin', () => {
  it.each([
    'https://shop.example',
    'http://localhost:8080',
    'https://127.0.0.1:8443',
  ])('accepts %s', (origin) => expect(isHttpOrigin(origin)).toBe(true));

  it.each([
    'https://shop.example/',
    'https://shop.example/cart',
    'https://shop.example?x=1',
    'https://Shop.example',
    'https://shop.example:443',
    'https://user@shop.example',
    'ftp://shop.example',
    'javascript:alert(1)',
    'null',
    '*',
    'shop.example',
    '',
  ])('rejects %s', (origin) => expect(isHttpOrigin(origin)).toBe(false));
});

describe('buildEmbedUrl', () => {
  it('adds embed and parent_origin, keeping the rest of the URL', () => {
    const built = new URL(
      buildEmbedUrl(`https://pay.example/pay/${CODE}?lang=de#top`, 'https://shop.example'),
    );
    expect(built.origin).toBe('https://pay.example');
    expect(built.pathname).toBe(`/pay/${CODE}`);
    expect(built.hash).toBe('#top');
    expect(built.searchParams.get('lang')).toBe('de');
    expect(built.searchParams.get('embed')).toBe('1');
    expect(built.searchParams.get('parent_origin')).toBe('https://shop.example');
  });

  it('replaces embed parameters already on the URL instead of duplicating them', () => {
    const built = new URL(
      buildEmbedUrl(
        'https://pay.example/pay/x?embed=0&parent_origin=https%3A%2F%2Fevil.example',
        'https://shop.example',
      ),
    );
    expect(built.searchParams.getAll('embed')).toEqual(['1']);
    expect(built.searchParams.getAll('parent_origin')).toEqual(['https://shop.example']);
  });

  it('round-trips through readEmbedParams', () => {
    const built = buildEmbedUrl('https://pay.example/pay/x', 'http://localhost:8080');
    expect(readEmbedParams(built)).toEqual({ embedded: true, parentOrigin: 'http://localhost:8080' });
  });

  it('rejects relative or non-http checkout URLs and invalid origins', () => {
    expect(() => buildEmbedUrl('/pay/x', 'https://shop.example')).toThrow(TypeError);
    expect(() => buildEmbedUrl('javascript:alert(1)', 'https://shop.example')).toThrow(TypeError);
    expect(() => buildEmbedUrl('https://pay.example/pay/x', 'null')).toThrow(TypeError);
    expect(() => buildEmbedUrl('https://pay.example/pay/x', 'https://shop.example/')).toThrow(TypeError);
  });
});

describe('readEmbedParams', () => {
  it('reads a URL object as well as a string', () => {
    const url = new URL('https://pay.example/pay/x?embed=1&parent_origin=https%3A%2F%2Fshop.example');
    expect(readEmbedParams(url)).toEqual({ embedded: true, parentOrigin: 'https://shop.example' });
  });

  it('reports not embedded without embed=1, and then ignores parent_origin', () => {
    expect(readEmbedParams('https://pay.example/pay/x')).toEqual({ embedded: false, parentOrigin: null });
    expect(
      readEmbedParams('https://pay.example/pay/x?embed=true&parent_origin=https%3A%2F%2Fshop.example'),
    ).toEqual({ embedded: false, parentOrigin: null });
  });

  it.each([
    'https://shop.example/cart',
    'https://shop.example/',
    '*',
    'null',
    'javascript:alert(1)',
    'https://shop.example:443',
  ])('keeps embedded but drops the invalid parent origin %s', (origin) => {
    const url = `https://pay.example/pay/x?embed=1&parent_origin=${encodeURIComponent(origin)}`;
    expect(readEmbedParams(url)).toEqual({ embedded: true, parentOrigin: null });
  });

  it('treats an unparsable URL as not embedded', () => {
    expect(readEmbedParams('not a url')).toEqual({ embedded: false, parentOrigin: null });
  });
});
