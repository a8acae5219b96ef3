import { describe, expect, it } from 'vitest';
import { payPageSecurityHeaders } from './headers.js';

function directives(headers: Record<string, string>): Map<string, string> {
  return new Map(
    headers['Content-Security-Policy']!.split(';').map((directive) => {
      const [name = '', ...values] = directive.trim().split(/\s+/);
      return [name, values.join(' ')];
    }),
  );
}

describe('payPageSecurityHeaders', () => {
  it('allows only the page’s own scripts, styles and API, with no inline code', () => {
    const csp = directives(payPageSecurityHeaders());
    expect(csp.get('default-src')).toBe("'none'");
    expect(csp.get('script-src')).toBe("'self'");
    expect(csp.get('style-src')).toBe("'self'");
    expect(csp.get('connect-src')).toBe("'self'");
    expect(csp.get('base-uri')).toBe("'none'");
    expect([...csp.values()].join(' ')).not.toMatch(/unsafe|\*/);
  });

  it('lets the order’s own origins frame the page', () => {
    const csp = directives(
      payPageSecurityHeaders({
        frameAncestors: ['https://shop.example', 'http://localhost:8080', 'https://shop.example'],
      }),
    );
    expect(csp.get('frame-ancestors')).toBe("'self' https://shop.example http://localhost:8080");
  });

  it('ignores entries that are not plain origins, so nothing can be injected into the policy', () => {
    const csp = directives(
      payPageSecurityHeaders({
        frameAncestors: [
          "https://shop.example; script-src 'unsafe-inline'",
          'https://shop.example/path',
          '*',
        ],
      }),
    );
    expect(csp.get('frame-ancestors')).toBe("'self' https: http:");
    expect(csp.get('script-src')).toBe("'self'");
  });

  it('sends no referrer and forbids caching and sniffing', () => {
    const headers = payPageSecurityHeaders();
    expect(headers['Referrer-Policy']).toBe('no-referrer');
    expect(headers['Cache-Control']).toBe('no-store');
    expect(headers['X-Content-Type-Options']).toBe('nosniff');
  });
});
