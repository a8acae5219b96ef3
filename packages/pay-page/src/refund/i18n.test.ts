import { describe, expect, it } from 'vitest';
import { SUPPORTED_LANGUAGES } from '../i18n.js';
import { REFUND_MESSAGES, refundMessagesFor } from './i18n.js';

describe('refund messages', () => {
  it('translate every text into every pay page language, with the same placeholders', () => {
    const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();
    const english = REFUND_MESSAGES.en;
    expect(Object.keys(REFUND_MESSAGES).sort()).toEqual([...SUPPORTED_LANGUAGES].sort());
    for (const lang of SUPPORTED_LANGUAGES) {
      const messages = REFUND_MESSAGES[lang];
      expect(Object.keys(messages).sort()).toEqual(Object.keys(english).sort());
      for (const [key, text] of Object.entries(messages)) {
        const englishText = english[key as keyof typeof english];
        expect(text.trim(), `${lang}.${key}`).not.toBe('');
        expect(placeholders(text), `${lang}.${key}`).toEqual(placeholders(englishText));
        if (lang !== 'en' && !['transaction', 'errorTitle', 'orderReference'].includes(key)) {
          // A text identical to English is almost always a forgotten translation.
          expect(text, `${lang}.${key}`).not.toBe(englishText);
        }
      }
    }
  });

  it('fall back to English for an unknown language', () => {
    expect(refundMessagesFor('xx')).toBe(REFUND_MESSAGES.en);
    expect(refundMessagesFor('es')).toBe(REFUND_MESSAGES.es);
  });
});
