import { describe, expect, it } from 'vitest';
import { MESSAGES, messagesFor, resolveLanguage, SUPPORTED_LANGUAGES } from './i18n.js';

describe('resolveLanguage', () => {
  it('prefers a supported lang parameter, in any case or region', () => {
    expect(resolveLanguage('de', 'fr')).toBe('de');
    expect(resolveLanguage('ES-mx', undefined)).toBe('es');
    expect(resolveLanguage('fr_CA', 'de')).toBe('fr');
  });

  it('falls back to Accept-Language when the parameter is missing or unsupported', () => {
    expect(resolveLanguage(undefined, 'de-DE,de;q=0.9,en;q=0.8')).toBe('de');
    expect(resolveLanguage('xx', 'fr-FR')).toBe('fr');
    expect(resolveLanguage('', 'es')).toBe('es');
  });

  it('ranks Accept-Language entries by q-value, keeping header order on ties', () => {
    expect(resolveLanguage(undefined, 'en;q=0.5, de;q=0.9, fr;q=0.9')).toBe('de');
    expect(resolveLanguage(undefined, 'ja, fr;q=0.2, es;q=0.3')).toBe('es');
  });

  it('skips unsupported and refused (q=0) languages', () => {
    expect(resolveLanguage(undefined, 'ja, zh-CN;q=0.9, de;q=0, fr;q=0.1')).toBe('fr');
    expect(resolveLanguage(undefined, 'de;q=abc, es;q=0.4')).toBe('es');
  });

  it('falls back to English', () => {
    expect(resolveLanguage(undefined, undefined)).toBe('en');
    expect(resolveLanguage(undefined, 'ja, *;q=0.1')).toBe('en');
    expect(resolveLanguage(undefined, ',,;;')).toBe('en');
  });

  it('looks only at the start of an absurdly long header', () => {
    const header = `${'xx, '.repeat(5_000)}de`;
    expect(resolveLanguage(undefined, header)).toBe('en');
  });
});

describe('messages', () => {
  it('translates every text into every language, with the same placeholders', () => {
    const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();
    const english = MESSAGES.en;
    for (const lang of SUPPORTED_LANGUAGES) {
      const messages = MESSAGES[lang];
      expect(Object.keys(messages).sort()).toEqual(Object.keys(english).sort());
      for (const [key, text] of Object.entries(messages)) {
        expect(text.trim(), `${lang}.${key}`).not.toBe('');
        expect(placeholders(text), `${lang}.${key}`).toEqual(
          placeholders(english[key as keyof typeof english]),
        );
        if (lang !== 'en' && !['copy', 'address', 'network', 'amount', 'securedBy'].includes(key)) {
          // A text identical to English is almost always a forgotten translation.
          expect(text, `${lang}.${key}`).not.toBe(english[key as keyof typeof english]);
        }
      }
    }
  });

  it('gives English messages for an unknown language', () => {
    expect(messagesFor('xx')).toBe(MESSAGES.en);
    expect(messagesFor('de')).toBe(MESSAGES.de);
  });
});
