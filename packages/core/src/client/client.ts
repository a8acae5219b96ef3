import type { z } from 'zod';
import { ApiError, NetworkError, TimeoutError, UnexpectedResponseError } from '../errors.js';
import { type CheckoutCreated, type CheckoutRequest, checkoutCreatedSchema } from '../schemas/checkout.js';
import { errorEnvelopeSchema, successEnvelopeSchema } from '../schemas/envelope.js';
import { type PaymentLink, paymentLinkSchema } from '../schemas/payment-link.js';
import { type PaymentOptions, paymentOptionsSchema } from '../schemas/payment-options.js';
import {
  type Refund,
  type RefundCreated,
  type RefundCreateRequest,
  type RefundsOfTransaction,
  refundCreatedSchema,
  refundSchema,
  refundsOfTransactionSchema,
} from '../schemas/refund.js';
import { type Transaction, transactionSchema } from '../schemas/transaction.js';

export interface ClientOptions {
  /** The service's API base, `<public origin>/api`, e.g. `http://127.0.0.1:8787/api`. */
  baseUrl: string;
  /** Default per-call timeout in milliseconds (10 000). */
  timeoutMs?: number;
  /** A `fetch` implementation; defaults to the global one (Node ≥ 18 and browsers). */
  fetch?: typeof fetch;
  /**
   * A merchant key (or the operator token), sent only with the two calls that need one: creating and
   * cancelling a refund (docs/refunds.md).
   */
  credential?: string;
}

export interface CallOptions {
  /** Aborts the call; the client then throws {@link NetworkError}. */
  signal?: AbortSignal;
  /** Overrides the client's timeout for this call, in milliseconds. */
  timeoutMs?: number;
}

/** Typed client for the four endpoints of the Crypto Checkout API (docs/api.md) and refunds (docs/refunds.md). */
export interface CheckoutClient {
  /** `POST /checkout`: creates a pending order; redirect the buyer to `checkout_url`. */
  createCheckout(request: CheckoutRequest, options?: CallOptions): Promise<CheckoutCreated>;
  /** `GET /transaction`: the authoritative live state of an order. */
  getTransaction(transactionCode: string, options?: CallOptions): Promise<Transaction>;
  /** `GET /payment_options`: the rails available for an amount, priced. */
  getPaymentOptions(
    query: { fiat_amount: string | number; fiat_currency: string },
    options?: CallOptions,
  ): Promise<PaymentOptions>;
  /** `GET /payment_link`: payment instructions for one rail of a transaction. */
  getPaymentLink(
    query: { transaction_code: string; payment_method: string },
    options?: CallOptions,
  ): Promise<PaymentLink>;
  /** `POST /refunds` (needs `credential`): a refund of a settled order; send the buyer `claim_url`. */
  createRefund(request: RefundCreateRequest, options?: CallOptions): Promise<RefundCreated>;
  /** `POST /refunds/<refund_id>/cancel` (needs `credential`): cancels a refund not yet paid. */
  cancelRefund(refundId: string, reason?: string, options?: CallOptions): Promise<Refund>;
  /** `GET /refund`: a refund's state; `paid` carries `tx_id`. */
  getRefund(refundId: string, options?: CallOptions): Promise<Refund>;
  /** `GET /refunds`: an order's refunds with what it received and what is left to refund. */
  getRefunds(transactionCode: string, options?: CallOptions): Promise<RefundsOfTransaction>;
}

/**
 * Creates a client. Every call validates the response against the wire schemas and throws
 * `ApiError` (the service's error envelope), `TimeoutError`, `NetworkError` or
 * `UnexpectedResponseError`.
 */
export function createCheckoutClient(options: ClientOptions): CheckoutClient {
  const base = options.baseUrl.replace(/\/+$/, '');
  const defaultTimeout = options.timeoutMs ?? 10_000;
  const fetchImplementation = options.fetch ?? globalThis.fetch.bind(globalThis);

  async function call<Data extends z.ZodType>(
    method: 'GET' | 'POST',
    path: string,
    dataSchema: Data,
    input: { query?: Record<string, string>; body?: unknown; credential?: boolean },
    callOptions: CallOptions = {},
  ): Promise<z.infer<Data>> {
    const url = new URL(`${base}${path}`);
    for (const [key, value] of Object.entries(input.query ?? {})) url.searchParams.set(key, value);
    const timeoutMs = callOptions.timeoutMs ?? defaultTimeout;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new TimeoutError(timeoutMs)), timeoutMs);
    const forwardAbort = () => controller.abort(callOptions.signal?.reason);
    callOptions.signal?.addEventListener('abort', forwardAbort, { once: true });
    if (callOptions.signal?.aborted) forwardAbort();

    let response: Response;
    let text: string;
    try {
      response = await fetchImplementation(url, {
        method,
        headers: {
          accept: 'application/json',
          ...(input.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(input.credential && options.credential
            ? { authorization: `Bearer ${options.credential}` }
            : {}),
        },
        body: input.body === undefined ? null : JSON.stringify(input.body),
        signal: controller.signal,
      });
      text = await response.text();
    } catch (error) {
      if (controller.signal.reason instanceof TimeoutError) throw controller.signal.reason;
      if (callOptions.signal?.aborted) throw new NetworkError('The request was aborted.', { cause: error });
      throw new NetworkError(
        `Could not reach the Crypto Checkout service at ${url.origin}: ${describe(error)}`,
        {
          cause: error,
        },
      );
    } finally {
      clearTimeout(timer);
      callOptions.signal?.removeEventListener('abort', forwardAbort);
    }

    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new UnexpectedResponseError(
        `The service answered ${method} ${path} with HTTP ${response.status} and a body that is not JSON.`,
        response.status,
        { cause: error },
      );
    }
    const failure = errorEnvelopeSchema.safeParse(json);
    if (failure.success) {
      const { code, message, field } = failure.data.error;
      throw new ApiError(code, message, response.status, field);
    }
    const success = successEnvelopeSchema(dataSchema).safeParse(json);
    if (!response.ok || !success.success) {
      const problem = success.success ? 'no error envelope' : success.error.issues[0];
      const where =
        problem && typeof problem === 'object' ? ` at ${problem.path.join('.')}: ${problem.message}` : '';
      throw new UnexpectedResponseError(
        `The service answered ${method} ${path} with HTTP ${response.status} in an unexpected shape${where}.`,
        response.status,
      );
    }
    return (success.data as { data: z.infer<Data> }).data;
  }

  return {
    createRefund: (request, callOptions) =>
      call('POST', '/refunds', refundCreatedSchema, { body: request, credential: true }, callOptions),
    cancelRefund: (refundId, reason, callOptions) =>
      call(
        'POST',
        `/refunds/${encodeURIComponent(refundId)}/cancel`,
        refundSchema,
        { body: reason === undefined ? {} : { reason }, credential: true },
        callOptions,
      ),
    getRefund: (refundId, callOptions) =>
      call('GET', '/refund', refundSchema, { query: { refund_id: refundId } }, callOptions),
    getRefunds: (transactionCode, callOptions) =>
      call(
        'GET',
        '/refunds',
        refundsOfTransactionSchema,
        { query: { transaction_code: transactionCode } },
        callOptions,
      ),
    createCheckout: (request, callOptions) =>
      call('POST', '/checkout', checkoutCreatedSchema, { body: request }, callOptions),
    getTransaction: (transactionCode, callOptions) =>
      call(
        'GET',
        '/transaction',
        transactionSchema,
        { query: { transaction_code: transactionCode } },
        callOptions,
      ),
    getPaymentOptions: (query, callOptions) =>
      call(
        'GET',
        '/payment_options',
        paymentOptionsSchema,
        { query: { fiat_amount: String(query.fiat_amount), fiat_currency: query.fiat_currency } },
        callOptions,
      ),
    getPaymentLink: (query, callOptions) =>
      call('GET', '/payment_link', paymentLinkSchema, { query }, callOptions),
  };
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return cause?.code ? `${error.message} (${cause.code})` : error.message;
  }
  return String(error);
}
