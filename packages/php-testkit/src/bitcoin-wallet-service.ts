/**
 * A stand-in for a Crypto Checkout server in live mode with Bitcoin, answering GET /api/wallet_check
 * (packages/server/src/http/wallet-check-routes.ts) as the real one does, and GET
 * /api/payment_options offering BTC on Bitcoin, so a settings save probes it without a warning. The
 * kernel's wallet check and the plugins' settings tests use it.
 *
 * Paths pick the behaviour, whatever comes before /api (the service URL may have a path):
 *   <url>/api/…             the service as it is now
 *   <url>/older/api/…       a service from before the wallet check: 404 for it, in its error envelope
 *   <url>/failing/api/…     503 in the error envelope for the wallet check
 *   <url>/slow/api/…        the wallet check answers after three seconds
 * Every request's path and query are recorded in `requests`.
 */
import { createServer } from 'node:http';
import { listenOnLoopback } from './loopback.js';

/** BIP84's published account key (mnemonic "abandon … about", m/84'/0'/0'). */
export const BIP84_ZPUB =
  'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
/** Its first three receive addresses (m/84'/0'/0'/0/0 to /0/2), as BIP84 lists the first two. */
export const BIP84_FIRST_ADDRESSES = [
  'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
  'bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g',
  'bc1qp59yckz4ae5c4efgw2s5wfyvrz0ala7rgvuz8z',
] as const;
/** How the service describes it. */
export const BIP84_DESCRIPTION = 'BIP84 native segwit (zpub): each checkout gets the next receive address';
/** A plain mainnet address (BIP173's P2WPKH example). */
export const BITCOIN_ADDRESS = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
/**
 * A well-formed public key (BIP32 test vector 3, m/0H: depth 1) that the stand-in refuses, as the
 * service refuses a key it cannot derive receive addresses from.
 */
export const REFUSED_BITCOIN_KEY =
  'xpub68NZiKmJWnxxS6aaHmn81bvJeTESw724CRDs6HbuccFQN9Ku14VQrADWgqbhhTHBaohPX4CjNLf9fq9MYo6oDaPPLPxSb7gwQN3ih19Zm4Y';
/** The service's reason for refusing it (its message without the leading "wallet_address: "). */
export const REFUSED_BITCOIN_KEY_REASON =
  "This key is not an account key (depth 1); export the account's zpub (m/84'/0'/0') from your wallet.";

const envelope = (status: number, body: unknown) => ({ status, body: JSON.stringify(body) });
const error = (status: number, code: string, message: string, field?: string) =>
  envelope(status, { status: 'error', error: { code, message, ...(field ? { field } : {}) } });

/** The `data` of its GET /payment_options answer: BTC on Bitcoin, offered. */
export const BITCOIN_PAYMENT_OPTIONS = {
  fiat_amount: 10,
  fiat_currency: 'USD',
  amount_in_usd: 10,
  payment_options: [
    {
      slug: 'btc_bitcoin',
      name: 'Bitcoin',
      kind: 'crypto',
      asset: 'BTC',
      network: 'BITCOIN',
      amount: '0.0001',
      amount_usd: 10,
      min_usd: 1,
      max_usd: 100000,
      available: true,
    },
  ],
};

/** The wallet check's answer for `network` and `wallet`, as the service gives it. */
function walletCheck(network: string, wallet: string): { status: number; body: string } {
  const text = wallet.trim();
  if (network.trim().toUpperCase() !== 'BITCOIN') {
    return envelope(200, {
      status: 'success',
      data: {
        network,
        wallet_address: text,
        kind: 'address',
        description: 'an address',
        first_addresses: [],
      },
    });
  }
  if (text === BIP84_ZPUB) {
    return envelope(200, {
      status: 'success',
      data: {
        network: 'BITCOIN',
        wallet_address: text,
        kind: 'extended_key',
        description: BIP84_DESCRIPTION,
        first_addresses: BIP84_FIRST_ADDRESSES,
      },
    });
  }
  if (/^(bc1|[13])[a-zA-Z0-9]{20,90}$/.test(text)) {
    return envelope(200, {
      status: 'success',
      data: {
        network: 'BITCOIN',
        wallet_address: text.startsWith('bc1') ? text.toLowerCase() : text,
        kind: 'address',
        description: 'a Bitcoin address: buyers pay exact amounts',
        first_addresses: [],
      },
    });
  }
  const reason =
    text === REFUSED_BITCOIN_KEY
      ? REFUSED_BITCOIN_KEY_REASON
      : 'This is not a Bitcoin address or extended public key.';
  return error(400, 'invalid_request', `wallet_address: ${reason}`, 'wallet_address');
}

export interface BitcoinWalletService {
  url: string;
  /** Path and query of every request, in order. */
  requests: string[];
  close(): Promise<void>;
}

/** Starts it on a loopback port. */
export async function startBitcoinWalletService(): Promise<BitcoinWalletService> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(request.url ?? '');
    const url = new URL(request.url ?? '/', 'http://stand-in');
    const at = url.pathname.indexOf('/api/');
    const prefix = at === -1 ? url.pathname : url.pathname.slice(0, at);
    const endpoint = at === -1 ? '' : url.pathname.slice(at);
    let answer: { status: number; body: string; delayMs?: number };
    if (endpoint === '/api/payment_options') {
      answer = envelope(200, { status: 'success', data: BITCOIN_PAYMENT_OPTIONS });
    } else if (endpoint === '/api/wallet_check' && prefix === '/older') {
      answer = error(404, 'not_found', 'Route GET:/api/wallet_check not found');
    } else if (endpoint === '/api/wallet_check' && prefix === '/failing') {
      answer = error(503, 'unavailable', 'The service is starting; try again in a minute.');
    } else if (endpoint === '/api/wallet_check') {
      answer = walletCheck(
        url.searchParams.get('network') ?? '',
        url.searchParams.get('wallet_address') ?? '',
      );
      if (prefix === '/slow') answer = { ...answer, delayMs: 3_000 };
    } else {
      answer = error(404, 'not_found', `Route ${request.method}:${url.pathname} not found`);
    }
    const send = () => {
      if (!response.destroyed)
        response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
    };
    if (answer.delayMs) setTimeout(send, answer.delayMs);
    else send();
  });
  const url = await listenOnLoopback(server);
  return {
    url,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
