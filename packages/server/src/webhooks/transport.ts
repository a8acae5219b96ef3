import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { VettedTarget } from './target-policy.js';

/** Raised when the per-attempt deadline passes before the response headers arrived. */
export class WebhookTimeoutError extends Error {
  override name = 'TimeoutError';
}

/** Errors that mean "this address does not take connections": the next vetted address is tried. */
const CONNECT_ERRORS = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'EAFNOSUPPORT',
]);

/**
 * POSTs to a vetted target, connecting only to its vetted addresses (never resolving the host
 * again, so a rebinding DNS answer cannot redirect the connection) while sending the original host
 * name as Host header and TLS server name. Redirects are not followed. Resolves with the HTTP
 * status once the response headers arrived; the body is discarded.
 * @throws WebhookTimeoutError when `deadline` (a `performance.now()` value) passes first.
 */
export async function postToVettedTarget(
  target: VettedTarget,
  headers: Record<string, string>,
  body: string,
  deadline: number,
): Promise<number> {
  let lastError: unknown = new Error('no address to connect to');
  for (const address of target.addresses) {
    try {
      return await postOnce(target.url, address, headers, body, deadline);
    } catch (error) {
      lastError = error;
      const code = (error as { code?: string }).code;
      if (!code || !CONNECT_ERRORS.has(code)) throw error;
    }
  }
  throw lastError;
}

function postOnce(
  url: URL,
  address: string,
  headers: Record<string, string>,
  body: string,
  deadline: number,
): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const remaining = deadline - performance.now();
    if (remaining <= 0) {
      reject(new WebhookTimeoutError('deadline passed'));
      return;
    }
    const https = url.protocol === 'https:';
    const hostname = url.hostname.replace(/^\[|\]$/g, '');
    const payload = Buffer.from(body, 'utf8');
    let request: ClientRequest;
    const options = {
      host: address,
      port: url.port ? Number(url.port) : https ? 443 : 80,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: { ...headers, host: url.host, 'content-length': String(payload.length) },
      // A fresh connection per attempt: a pooled socket could belong to an address vetted earlier.
      agent: false,
      // Certificates are checked against the name in the URL, not the address connected to.
      ...(https && !isIP(hostname) ? { servername: hostname } : {}),
    };
    const onResponse = (response: IncomingMessage) => {
      clearTimeout(timer);
      resolve(response.statusCode ?? 0);
      response.destroy();
    };
    try {
      request = https ? httpsRequest(options, onResponse) : httpRequest(options, onResponse);
    } catch (error) {
      reject(error);
      return;
    }
    const timer = setTimeout(() => request.destroy(new WebhookTimeoutError('deadline passed')), remaining);
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.end(payload);
  });
}
