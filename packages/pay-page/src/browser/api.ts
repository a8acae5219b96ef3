import type { PaymentLink, Transaction } from '@cryptocheckout/core';

/** A failed API call: the server's error envelope, or a transport or shape problem. */
export class ApiFailure extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly httpStatus: number,
  ) {
    super(message);
    this.name = 'ApiFailure';
  }
}

const STATUSES: readonly string[] = ['pending', 'processing', 'underpaid', 'settled', 'expired'];

/** The slice of a transaction the page shows; checked field by field instead of trusted. */
export type TransactionView = Pick<
  Transaction,
  'status' | 'amount_in_usd' | 'received_usd' | 'late' | 'expires_at'
>;

/** Thin client for the JSON API under `apiBase`, unwrapping the status envelope. */
export class PayApi {
  constructor(
    private readonly apiBase: string,
    private readonly code: string,
    private readonly fetchImpl: typeof fetch,
  ) {}

  async transaction(signal?: AbortSignal): Promise<TransactionView> {
    const data = await this.request('GET', `transaction?${this.query()}`, undefined, signal);
    if (!isTransactionView(data)) throw new ApiFailure('Unexpected transaction response', 'unexpected', 200);
    return data;
  }

  async paymentLink(method: string, signal?: AbortSignal): Promise<PaymentLink> {
    const data = await this.request(
      'GET',
      `payment_link?${this.query({ payment_method: method })}`,
      undefined,
      signal,
    );
    if (!isPaymentLink(data)) throw new ApiFailure('Unexpected payment link response', 'unexpected', 200);
    return data;
  }

  /** Sandbox only: records a simulated payment of `size` by rail `method`. */
  async simulatePayment(
    method: string,
    size: 'full' | 'partial' | 'over',
    confirmed: boolean,
  ): Promise<void> {
    await this.request('POST', 'sandbox/pay', {
      transaction_code: this.code,
      payment_method: method,
      size,
      confirmed,
    });
  }

  private query(extra: Record<string, string> = {}): string {
    return new URLSearchParams({ transaction_code: this.code, ...extra }).toString();
  }

  private async request(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<unknown> {
    const init: RequestInit = {
      method,
      headers:
        body === undefined
          ? { accept: 'application/json' }
          : { accept: 'application/json', 'content-type': 'application/json' },
      credentials: 'same-origin',
      cache: 'no-store',
    };
    if (body !== undefined) init.body = JSON.stringify(body);
    if (signal) init.signal = signal;
    const response = await this.fetchImpl(`${this.apiBase}/${path}`, init);
    const envelope = (await response.json().catch(() => null)) as {
      status?: unknown;
      data?: unknown;
      error?: { code?: unknown; message?: unknown };
    } | null;
    if (response.ok && envelope?.status === 'success') return envelope.data;
    const error = envelope?.error;
    throw new ApiFailure(
      typeof error?.message === 'string' ? error.message : `HTTP ${response.status}`,
      typeof error?.code === 'string' ? error.code : 'http_error',
      response.status,
    );
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function isTransactionView(value: unknown): value is TransactionView {
  return (
    isRecord(value) &&
    typeof value.status === 'string' &&
    STATUSES.includes(value.status) &&
    typeof value.amount_in_usd === 'number' &&
    typeof value.received_usd === 'number' &&
    typeof value.late === 'boolean' &&
    typeof value.expires_at === 'string'
  );
}

function isPaymentLink(value: unknown): value is PaymentLink {
  if (!isRecord(value) || typeof value.payment_method !== 'string') return false;
  if (value.kind === 'fiat') return typeof value.redirect_url === 'string';
  return (
    value.kind === 'crypto' &&
    typeof value.address === 'string' &&
    typeof value.amount === 'string' &&
    typeof value.asset === 'string' &&
    typeof value.network === 'string' &&
    typeof value.uri === 'string'
  );
}
