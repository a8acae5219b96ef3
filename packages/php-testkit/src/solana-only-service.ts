/**
 * A stand-in for a live Crypto Checkout server that watches only Solana, answering GET
 * /payment_options as the real one did in the real WooCommerce shop: USDC on Polygon is listed but
 * not offered, with the server's reason. The plugins' settings checks and the kernel's probe use it.
 */
import { createServer } from 'node:http';
import { listenOnLoopback } from './loopback.js';

/** The server's reason for the rail it does not watch. */
export const SOLANA_ONLY_REASON = 'Not offered: this server does not watch USDC on Polygon PoS.';

/** One rail of a GET /payment_options answer, as the service lists it. */
function rail(slug: string, asset: string, network: string, reason?: string) {
  return {
    slug,
    name: slug,
    kind: 'crypto',
    asset,
    network,
    amount: '10',
    amount_usd: 10,
    min_usd: 0.5,
    max_usd: 100000,
    available: reason === undefined,
    ...(reason === undefined ? {} : { unavailable_reason: reason }),
  };
}

/** The `data` of its GET /payment_options answer. */
export const SOLANA_ONLY_PAYMENT_OPTIONS = {
  fiat_amount: 10,
  fiat_currency: 'USD',
  amount_in_usd: 10,
  payment_options: [
    rail('usdc_polygon', 'USDC', 'POLYGON', SOLANA_ONLY_REASON),
    rail('usdc_solana', 'USDC', 'SOLANA'),
    rail('sol_solana', 'SOL', 'SOLANA', 'Not offered right now: Solana cannot be watched.'),
  ],
};

/** Starts it on a loopback port; every path answers the payment options. */
export async function startSolanaOnlyService(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((_request, response) => {
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ status: 'success', data: SOLANA_ONLY_PAYMENT_OPTIONS }));
  });
  const url = await listenOnLoopback(server);
  return {
    url,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
