// A small stand-in for the service's refund routes (docs/refunds.md), on loopback, until the reference
// server has them (packages/server/src/http/refund-routes.ts is being written): the PHP client and the
// kernel talk to it over real HTTP. It answers the documented shapes, checked with the core's zod
// schemas before they leave, and keeps the rules a client can observe: the Bearer credential, one
// refund per reference, never more than is refundable (422 naming `amount`), the status machine.
// Real-API-shaped controls stand in for the buyer and the merchant (the claim page's confirm step,
// POST /api/sandbox/refunds/pay, POST /api/refunds/:id/cancel); the few that have no API (`/__fake/…`:
// register a settled transaction, expire a refund, go down) are this fake's own.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  type Refund,
  type RefundStatus,
  refundCreatedSchema,
  refundCreateRequestSchema,
  refundSchema,
  refundsOfTransactionSchema,
} from '@cryptocheckout/core';
import { listenOnLoopback } from '@cryptocheckout/php-testkit';

/** The credential the fake accepts, as a merchant key would be. */
export const FAKE_MERCHANT_KEY = 'ccm_test_0123456789abcdef';

/** Asset amounts are kept in millionths (USDC's 6 decimals). */
const SCALE = 1_000_000n;

interface SettledTransaction {
  transaction_code: string;
  external_reference: string;
  received: bigint;
  asset: string;
  network: string;
  fiat_currency: string;
  /** Asset units per fiat unit, in millionths: the rate the checkout locked. */
  rate: bigint;
}

interface StoredRefund {
  refund: Refund;
  claimCode: string;
}

export interface FakeRequest {
  method: string;
  path: string;
  authorization: string | null;
}

export interface RefundServiceFake {
  /** Origin, `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Every request under /api, in order. */
  readonly requests: FakeRequest[];
  close(): Promise<void>;
}

function units(decimal: string): bigint {
  const [whole = '0', fraction = ''] = decimal.split('.');
  // Half up at the sixth decimal.
  const kept = BigInt(whole) * SCALE + BigInt((fraction.slice(0, 6) || '0').padEnd(6, '0'));
  return (fraction[6] ?? '0') >= '5' ? kept + 1n : kept;
}

function decimal(value: bigint): string {
  const fraction = (value % SCALE).toString().padStart(6, '0').replace(/0+$/, '');
  return `${value / SCALE}${fraction === '' ? '' : `.${fraction}`}`;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/** Starts the fake on a free loopback port. */
export async function startRefundServiceFake(): Promise<RefundServiceFake> {
  const transactions = new Map<string, SettledTransaction>();
  const refunds = new Map<string, StoredRefund>();
  const requests: FakeRequest[] = [];
  let down = false;
  let url = '';

  const now = () => new Date().toISOString();
  const ofTransaction = (code: string) =>
    [...refunds.values()].filter((stored) => stored.refund.transaction_code === code);
  const refundable = (tx: SettledTransaction) =>
    ofTransaction(tx.transaction_code)
      .filter(({ refund }) => refund.status !== 'cancelled' && refund.status !== 'expired')
      .reduce((left, { refund }) => left - units(refund.amount), tx.received);

  const findRefund = (id: string | undefined | null) => {
    const stored = id ? refunds.get(id.toLowerCase()) : undefined;
    if (stored === undefined) throw new ApiError(404, 'not_found', 'No refund has this refund_id.');
    return stored;
  };
  const move = (stored: StoredRefund, status: RefundStatus, note: string | null) => {
    const at = now();
    stored.refund.status = status;
    stored.refund.history.push({ status, at, note });
    return at;
  };
  const authorize = (request: IncomingMessage) => {
    if (request.headers.authorization !== `Bearer ${FAKE_MERCHANT_KEY}`) {
      throw new ApiError(401, 'unauthorized', 'A valid merchant key or operator token is required.');
    }
  };

  function create(body: unknown): { status: number; data: unknown } {
    const parsed = refundCreateRequestSchema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ApiError(400, 'invalid_request', issue?.message ?? 'invalid', issue?.path.join('.'));
    }
    const request = parsed.data;
    const code = request.transaction_code.toLowerCase();
    const tx = transactions.get(code);
    if (tx === undefined) throw new ApiError(404, 'not_found', 'No transaction has this transaction_code.');
    let amount: bigint;
    let fiatAmount: string | null = null;
    if (request.currency === tx.asset) {
      amount = units(request.amount);
    } else if (request.currency === tx.fiat_currency) {
      amount = (units(request.amount) * tx.rate + SCALE / 2n) / SCALE;
      fiatAmount = request.amount;
    } else {
      throw new ApiError(
        422,
        'unprocessable',
        `currency must be ${tx.fiat_currency} (the order's currency) or ${tx.asset} (the paid asset).`,
        'currency',
      );
    }
    const again = ofTransaction(code).find(
      ({ refund }) => request.reference !== undefined && refund.reference === request.reference,
    );
    if (again !== undefined) {
      if (units(again.refund.amount) !== amount) {
        throw new ApiError(409, 'conflict', 'This reference already names a refund of another amount.');
      }
      return { status: 200, data: created(again, false) };
    }
    if (amount <= 0n) throw new ApiError(422, 'unprocessable', 'amount must be more than 0.', 'amount');
    const left = refundable(tx);
    if (amount > left) {
      throw new ApiError(
        422,
        'unprocessable',
        `amount is more than can be refunded: at most ${decimal(left)} ${tx.asset}.`,
        'amount',
      );
    }
    const createdAt = now();
    const stored: StoredRefund = {
      claimCode: randomBytes(32).toString('base64url'),
      refund: {
        refund_id: randomUUID(),
        transaction_code: code,
        external_reference: tx.external_reference,
        reference: request.reference ?? null,
        status: 'awaiting_address',
        amount: decimal(amount),
        asset: tx.asset,
        network: tx.network,
        fiat_amount: fiatAmount,
        fiat_currency: tx.fiat_currency,
        reason: request.reason ?? null,
        address: null,
        payment_request: null,
        tx_id: null,
        tx_url: null,
        created_at: createdAt,
        claim_expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString(),
        address_confirmed_at: null,
        paid_at: null,
        cancelled_at: null,
        history: [{ status: 'awaiting_address', at: createdAt, note: null }],
      },
    };
    refunds.set(stored.refund.refund_id, stored);
    return { status: 201, data: created(stored, true) };
  }

  function created(stored: StoredRefund, isNew: boolean) {
    return refundCreatedSchema.parse({
      ...stored.refund,
      claim_url: `${url}/refund/${stored.claimCode}`,
      created: isNew,
    });
  }

  function confirmAddress(claimCode: string, form: URLSearchParams) {
    const stored = [...refunds.values()].find((candidate) => candidate.claimCode === claimCode);
    if (stored === undefined) throw new ApiError(404, 'not_found', 'Not found.');
    const address = form.get('address') ?? '';
    if (form.get('step') !== 'confirm' || form.get('confirmed') !== 'yes' || address === '') {
      throw new ApiError(400, 'invalid_request', 'This fake knows the confirm step only.', 'step');
    }
    if (stored.refund.status === 'awaiting_address') {
      const { refund } = stored;
      refund.address = address;
      refund.address_confirmed_at = move(stored, 'awaiting_payment', null);
      const micro = units(refund.amount).toString();
      refund.payment_request = {
        text: `Send ${refund.amount} ${refund.asset} on ${refund.network} to ${address}`,
        uri: `ethereum:0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359@137/transfer?address=${address}&uint256=${micro}`,
      };
    }
  }

  async function route(request: IncomingMessage, path: string, query: URLSearchParams) {
    const method = request.method ?? 'GET';
    const text = method === 'POST' ? await readBody(request) : '';
    const json = () => (text === '' ? {} : (JSON.parse(text) as Record<string, unknown>));
    if (method === 'POST' && path === '/__fake/transactions') {
      const body = json() as Record<string, string>;
      const code = String(body.transaction_code).toLowerCase();
      for (const stored of ofTransaction(code)) refunds.delete(stored.refund.refund_id);
      transactions.set(code, {
        transaction_code: code,
        external_reference: body.external_reference ?? '',
        received: units(body.received ?? '0'),
        asset: body.asset ?? 'USDC',
        network: body.network ?? 'POLYGON',
        fiat_currency: body.fiat_currency ?? 'EUR',
        rate: units(body.rate ?? '1'),
      });
      return { status: 200, data: { registered: code } };
    }
    if (method === 'POST' && path === '/__fake/down') {
      down = json().down === true;
      return { status: 200, data: { down } };
    }
    if (method === 'POST' && path === '/__fake/expire') {
      const stored = findRefund(String(json().refund_id));
      if (stored.refund.status !== 'awaiting_address')
        throw new ApiError(409, 'conflict', 'Not awaiting an address.');
      move(stored, 'expired', 'claim not confirmed in time');
      return { status: 200, data: refundSchema.parse(stored.refund) };
    }
    if (method === 'POST' && path.startsWith('/refund/')) {
      confirmAddress(path.slice('/refund/'.length), new URLSearchParams(text));
      return { status: 303, data: null };
    }
    if (method === 'POST' && path === '/api/refunds') {
      authorize(request);
      return create(json());
    }
    if (method === 'GET' && path === '/api/refund') {
      return { status: 200, data: refundSchema.parse(findRefund(query.get('refund_id')).refund) };
    }
    if (method === 'GET' && path === '/api/refunds') {
      const tx = transactions.get((query.get('transaction_code') ?? '').toLowerCase());
      if (tx === undefined) throw new ApiError(404, 'not_found', 'No transaction has this transaction_code.');
      return {
        status: 200,
        data: refundsOfTransactionSchema.parse({
          transaction_code: tx.transaction_code,
          asset: tx.asset,
          network: tx.network,
          received: decimal(tx.received),
          refundable: decimal(refundable(tx)),
          refunds: ofTransaction(tx.transaction_code).map(({ refund }) => refund),
        }),
      };
    }
    const cancel = /^\/api\/refunds\/([^/]+)\/cancel$/.exec(path);
    if (method === 'POST' && cancel) {
      authorize(request);
      const stored = findRefund(decodeURIComponent(cancel[1] ?? ''));
      if (stored.refund.status !== 'awaiting_address' && stored.refund.status !== 'awaiting_payment') {
        throw new ApiError(
          409,
          'conflict',
          `The refund is ${stored.refund.status}; it can no longer be cancelled.`,
        );
      }
      const reason = json().reason;
      stored.refund.cancelled_at = move(stored, 'cancelled', typeof reason === 'string' ? reason : null);
      return { status: 200, data: refundSchema.parse(stored.refund) };
    }
    if (method === 'POST' && path === '/api/sandbox/refunds/pay') {
      const stored = findRefund(String(json().refund_id));
      if (stored.refund.status !== 'awaiting_payment') {
        throw new ApiError(409, 'conflict', `The refund is ${stored.refund.status}, not awaiting payment.`);
      }
      stored.refund.paid_at = move(stored, 'paid', null);
      stored.refund.tx_id = `sandbox-refund-${stored.refund.refund_id.slice(0, 8)}`;
      stored.refund.tx_url = `${url}/sandbox/tx/${stored.refund.tx_id}`;
      return { status: 200, data: refundSchema.parse(stored.refund) };
    }
    throw new ApiError(404, 'not_found', `No route ${method} ${path}.`);
  }

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const parsed = new URL(request.url ?? '/', 'http://fake');
    if (parsed.pathname.startsWith('/api/')) {
      requests.push({
        method: request.method ?? 'GET',
        path: `${parsed.pathname}${parsed.search}`,
        authorization: request.headers.authorization ?? null,
      });
      if (down) {
        // No answer at all: what a client sees when the service is down mid-connection.
        request.socket.destroy();
        return;
      }
    }
    let status: number;
    let body: unknown;
    try {
      const answer = await route(request, parsed.pathname, parsed.searchParams);
      status = answer.status;
      body = { status: 'success', data: answer.data };
    } catch (error) {
      const apiError = error instanceof ApiError ? error : new ApiError(500, 'internal_error', String(error));
      status = apiError.status;
      body = {
        status: 'error',
        error: {
          code: apiError.code,
          message: apiError.message,
          ...(apiError.field === undefined ? {} : { field: apiError.field }),
        },
      };
    }
    response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    response.end(JSON.stringify(body));
  }

  const server = createServer((request, response) => {
    void handle(request, response);
  });
  url = await listenOnLoopback(server);
  return {
    url,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
