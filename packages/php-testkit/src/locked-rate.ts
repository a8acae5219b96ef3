import { createServer } from 'node:http';
import type { Transaction } from '@cryptocheckout/core';
import { listenOnLoopback } from './loopback.js';

/**
 * The price line the PHP client's LockedRate::priceLine() writes for a lookup's locked rate, for
 * the plugins' tests to find in notes and logs: "Priced at 1 EUR = 1.0612 USD (sources), held
 * until 2026-11-29 15:02 UTC." (held_until as the server sends it, in UTC).
 */
export function expectedPriceLine(transaction: Pick<Transaction, 'rate' | 'fiat_currency'>): string {
  const rate = transaction.rate;
  if (rate === undefined) throw new Error('the lookup carries no locked rate');
  if (transaction.fiat_currency === 'USD') return 'Priced in USD (no conversion).';
  const spread = Number(rate.spread_percent) > 0 ? `, including a ${rate.spread_percent}% spread` : '';
  const heldUntil = new Date(rate.held_until).toISOString().slice(0, 16).replace('T', ' ');
  return `Priced at 1 ${transaction.fiat_currency} = ${rate.usd_per_unit} USD${spread} (${rate.source}), held until ${heldUntil} UTC.`;
}

/** A proxy on a loopback port in front of a Crypto Checkout service. */
export interface ServiceProxy {
  /** `http://127.0.0.1:<port>`, without a trailing slash: use it as the plugin's service URL. */
  readonly url: string;
  /** How many `GET /api/transaction` answers it passed on, rewritten. */
  readonly lookups: number;
  close(): Promise<void>;
}

/**
 * Serves every request by passing it on to `target` (the reference server's origin), and answers
 * `GET /api/transaction` as a service from before the locked rate does: its `data` without `rate`.
 * A plugin configured with the proxy's URL keeps it on its checkouts, so their lookups come here.
 */
export async function startServiceWithoutLockedRate(target: string): Promise<ServiceProxy> {
  let lookups = 0;
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      void (async () => {
        try {
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(incoming.headers)) {
            if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name)) {
              headers[name] = value;
            }
          }
          const method = incoming.method ?? 'GET';
          const answer = await fetch(`${target}${incoming.url ?? '/'}`, {
            method,
            headers,
            body: method === 'GET' || method === 'HEAD' ? undefined : Buffer.concat(chunks),
            redirect: 'manual',
          });
          let body = await answer.text();
          if (new URL(incoming.url ?? '/', target).pathname === '/api/transaction' && answer.status === 200) {
            const parsed = JSON.parse(body) as { data?: Record<string, unknown> };
            if (parsed.data) delete parsed.data.rate;
            body = JSON.stringify(parsed);
            lookups += 1;
          }
          const passed: Record<string, string> = {};
          answer.headers.forEach((value, name) => {
            if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(name)) {
              passed[name] = value;
            }
          });
          outgoing.writeHead(answer.status, passed);
          outgoing.end(body);
        } catch (error) {
          outgoing.writeHead(502, { 'content-type': 'text/plain' });
          outgoing.end(String(error));
        }
      })();
    });
  });
  const url = await listenOnLoopback(server);
  return {
    url,
    get lookups() {
      return lookups;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
