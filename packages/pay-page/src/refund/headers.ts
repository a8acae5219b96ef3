import { ownAssetsPolicy, payPageSecurityHeaders } from '../headers.js';

/**
 * Security headers of the refund claim page: the pay page's (own styles only, forms posted to the
 * page itself, no referrer since the URL holds the claim code, no caching), except that no other
 * page may frame it, so nobody can lay the confirm button under a decoy.
 */
export function refundPageSecurityHeaders(): Record<string, string> {
  return {
    ...payPageSecurityHeaders(),
    'Content-Security-Policy': ownAssetsPolicy("frame-ancestors 'none'"),
    'X-Frame-Options': 'DENY',
  };
}
