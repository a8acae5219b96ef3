import { isHttpOrigin } from '@cryptocheckout/core';

export interface PayPageHeaderOptions {
  /**
   * Origins allowed to embed the page in a frame, e.g. the origins of the order's success and
   * cancel URLs. Entries that are not exact http(s) origins are ignored. Without any, every
   * http(s) page may embed it, since the merchant plugins open it in a modal.
   */
  frameAncestors?: readonly string[];
}

/**
 * Security headers for the pay page: a CSP that only allows the page's own script, styles and API
 * (no inline scripts or styles), framing by merchant pages, no referrer (the URL carries the
 * transaction code), no caching of live payment state.
 */
export function payPageSecurityHeaders(options: PayPageHeaderOptions = {}): Record<string, string> {
  return {
    'Content-Security-Policy': ownAssetsPolicy(frameAncestorsDirective(options.frameAncestors)),
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
    'Cache-Control': 'no-store',
  };
}

/**
 * The CSP of a page that loads only its own script, styles and API (no inline script or style,
 * images from itself or data: URLs), with the `frame-ancestors` directive given. The pay page and
 * the operator dashboard share it.
 */
export function ownAssetsPolicy(frameAncestors: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    frameAncestors,
  ].join('; ');
}

/**
 * The CSP `frame-ancestors` directive of a checkout page (the pay page, the sandbox card page): the
 * merchant's exact http(s) origins, or any http(s) page when none is known.
 */
export function frameAncestorsDirective(origins: readonly string[] = []): string {
  const allowed = [...new Set(origins.filter(isHttpOrigin))];
  const frameAncestors = allowed.length > 0 ? ["'self'", ...allowed] : ["'self'", 'https:', 'http:'];
  return `frame-ancestors ${frameAncestors.join(' ')}`;
}
