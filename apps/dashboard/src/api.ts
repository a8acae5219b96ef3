import type {
  OperatorChainTransfer,
  OperatorIssuedMerchantKey,
  OperatorMerchantKey,
  OperatorOverview,
  OperatorRates,
  OperatorRefundDetail,
  OperatorRefundPage,
  OperatorResend,
  OperatorStats,
  OperatorTransactionDetail,
  OperatorTransactionPage,
  OperatorUnmatchedPage,
  Refund,
  RefundCreated,
  RefundCreateRequest,
  RefundsOfTransaction,
} from '@cryptocheckout/core';
import { filterParams, type RefundFilter, refundFilterParams, type TransactionFilter } from './router.js';

/**
 * A failed operator API call: the server's error envelope (`code`, `message`, `field`), or a
 * transport problem (`network`, `aborted`, `unexpected_response`, `http_error`).
 */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
    /** HTTP status of the answer; 0 when none came. */
    readonly httpStatus: number,
    readonly field: string | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The token is missing, wrong or no longer the server's. */
  get unauthorized(): boolean {
    return this.httpStatus === 401;
  }

  /** The request was cancelled by the page (a view closed); nobody needs to hear of it. */
  get aborted(): boolean {
    return this.code === 'aborted';
  }
}

export interface OperatorApiOptions {
  /** Base URL of the operator API, without a trailing slash: `/api/operator` on the page. */
  base: string;
  fetch: typeof fetch;
  /** The bearer token to send; read on every request so signing out takes effect at once. */
  token: () => string | null;
  /** URL of the public `GET /api/health`; default the operator base with `/operator` replaced by `/health`. */
  healthUrl?: string;
}

/** Identifies one chain transfer: a log of a transaction on a network. */
export type TransferKey = Pick<OperatorChainTransfer, 'network' | 'tx_hash' | 'log_index'>;

/**
 * A deposit network's forwarder in `GET /api/health` (`networks.<NETWORK>.forwarding`, deposit
 * mode only). Wei amounts are decimal strings of the network's native coin.
 */
export interface ForwardingHealth {
  /** Address of the sweeper key that pays the forwards' gas. */
  sweeper: string;
  /** Null before the server's first look. */
  sweeperBalanceWei: string | null;
  /** Set while forwards wait because the sweeper cannot pay for the next one. */
  needsGas: { neededWei: string; balanceWei: string } | null;
  depositsWaiting: number;
  forwardsInFlight: number;
  forwardsSent: number;
  /** False while another server node holds the right to send forwards. */
  sending: boolean;
  lastError: string | null;
}

/** One watched network in `GET /api/health` (live mode); only the parts the dashboard reads. */
export interface NetworkHealth {
  lastError?: string | null;
  forwarding?: ForwardingHealth;
  /** Deposit mode: why the configured DepositFactory is refused. */
  depositFactoryProblem?: string;
}

/** `GET /api/health` as the dashboard reads it. */
export interface ServerHealth {
  ok: true;
  mode: 'sandbox' | 'live';
  /** Live mode: per network name. */
  networks?: Record<string, NetworkHealth>;
}

/** A request body: JSON of strings and lists of strings. */
type JsonBody = Readonly<Record<string, string | readonly string[] | undefined>>;

/** Paging of a list: `limit` 1–200 (server default 50); `cursor` from the previous page. */
export interface PageRequest {
  limit?: number;
  cursor?: string | null;
}

/** Client of `/api/operator/…`: adds the bearer token and unwraps the status envelope. */
export class OperatorApi {
  constructor(private readonly options: OperatorApiOptions) {}

  /** What the server is (mode, storage, networks); also the check of a token at sign-in. */
  async overview(signal?: AbortSignal): Promise<OperatorOverview> {
    const data = await this.json('GET', 'overview', signal);
    if (!isRecord(data) || (data.mode !== 'sandbox' && data.mode !== 'live')) throw unexpected();
    return data as unknown as OperatorOverview;
  }

  /** One page of transactions, newest first. */
  async transactions(
    filter: TransactionFilter,
    page: PageRequest = {},
    signal?: AbortSignal,
  ): Promise<OperatorTransactionPage> {
    const query = pageParams(filterParams(filter), page);
    const data = await this.json('GET', `transactions${queryString(query)}`, signal);
    if (!isPage(data)) throw unexpected();
    return data as OperatorTransactionPage;
  }

  /** The whole filtered list as CSV. */
  async transactionsCsv(filter: TransactionFilter, signal?: AbortSignal): Promise<Blob> {
    const response = await this.send('GET', `transactions.csv${queryString(filterParams(filter))}`, signal);
    return response.blob();
  }

  /** Everything the server knows of one transaction. */
  async transaction(code: string, signal?: AbortSignal): Promise<OperatorTransactionDetail> {
    const data = await this.json('GET', `transactions/${encodeURIComponent(code)}`, signal);
    if (!isRecord(data) || !isRecord(data.transaction) || !Array.isArray(data.deliveries)) throw unexpected();
    return data as unknown as OperatorTransactionDetail;
  }

  /** Queues the delivery's webhook again; an already pending resend is returned instead of a new one. */
  async resend(deliveryId: string, signal?: AbortSignal): Promise<OperatorResend> {
    const data = await this.json('POST', `deliveries/${encodeURIComponent(deliveryId)}/resend`, signal);
    if (!isRecord(data) || typeof data.delivery_id !== 'string') throw unexpected();
    return data as unknown as OperatorResend;
  }

  /** One page of chain transfers no checkout took, newest first. */
  async unmatched(page: PageRequest = {}, signal?: AbortSignal): Promise<OperatorUnmatchedPage> {
    const data = await this.json(
      'GET',
      `unmatched${queryString(pageParams(new URLSearchParams(), page))}`,
      signal,
    );
    if (!isPage(data)) throw unexpected();
    return data as OperatorUnmatchedPage;
  }

  /**
   * Counts a confirmed direct-mode transfer no checkout took as a payment of `transactionCode`.
   * @throws ApiError 409 (`conflict`, the server's reason) when refused, 404 for an unknown transfer.
   */
  async attachTransfer(
    transfer: TransferKey,
    transactionCode: string,
    note: string,
    signal?: AbortSignal,
  ): Promise<OperatorChainTransfer> {
    return this.transferAction(
      transfer,
      'attach',
      { transaction_code: transactionCode, ...noteOf(note) },
      signal,
    );
  }

  /** Records that a transfer was dealt with outside the service. @throws ApiError 409 when resolved already. */
  async markTransferHandled(
    transfer: TransferKey,
    note: string,
    signal?: AbortSignal,
  ): Promise<OperatorChainTransfer> {
    return this.transferAction(transfer, 'handled', noteOf(note), signal);
  }

  /**
   * Approves forwarding a deposit of a token its checkout did not ask for.
   * @throws ApiError 409 when the transfer is no such deposit or is resolved already.
   */
  async approveForward(
    transfer: TransferKey,
    note: string,
    signal?: AbortSignal,
  ): Promise<OperatorChainTransfer> {
    return this.transferAction(transfer, 'forward', noteOf(note), signal);
  }

  /** The public health summary (no token sent): per network, the watcher and in deposit mode the forwarder. */
  async health(signal?: AbortSignal): Promise<ServerHealth> {
    const url = this.options.healthUrl ?? `${this.options.base.replace(/\/operator\/?$/, '')}/health`;
    const data = await this.envelopeData(await this.sendTo('GET', url, signal, { withToken: false }));
    if (!isRecord(data) || data.ok !== true) throw unexpected();
    if (data.networks !== undefined && !isRecord(data.networks)) throw unexpected();
    return data as unknown as ServerHealth;
  }

  /** Checkouts and settled volume per UTC day, oldest first, for the last `days` days. */
  async stats(days: number, signal?: AbortSignal): Promise<OperatorStats> {
    const data = await this.json('GET', `stats?days=${days}`, signal);
    if (!isRecord(data) || !Array.isArray(data.days)) throw unexpected();
    return data as unknown as OperatorStats;
  }

  /** Where prices come from (live sources or the static table) and how each currency, asset and source stands. */
  async getRates(signal?: AbortSignal): Promise<OperatorRates> {
    const data = await this.json('GET', 'rates', signal);
    if (
      !isRecord(data) ||
      (data.source !== 'live' && data.source !== 'static') ||
      !Array.isArray(data.rates) ||
      !Array.isArray(data.sources)
    ) {
      throw unexpected();
    }
    return data as unknown as OperatorRates;
  }

  /** One page of refunds, newest first, filtered by status and `q` (refund id, transaction code or exact reference). */
  async refunds(
    filter: RefundFilter,
    page: PageRequest = {},
    signal?: AbortSignal,
  ): Promise<OperatorRefundPage> {
    const query = pageParams(refundFilterParams(filter), page);
    const data = await this.json('GET', `refunds${queryString(query)}`, signal);
    if (!isPage(data)) throw unexpected();
    return data as OperatorRefundPage;
  }

  /** One refund with its history, claim link and who created (and cancelled) it. @throws ApiError 404 when unknown. */
  async refund(refundId: string, signal?: AbortSignal): Promise<OperatorRefundDetail> {
    const data = await this.json('GET', `refunds/${encodeURIComponent(refundId)}`, signal);
    if (!isRefund(data) || typeof data.claim_url !== 'string') throw unexpected();
    return data as unknown as OperatorRefundDetail;
  }

  /**
   * Creates a refund of a settled order (`POST /api/refunds`, the operator token as credential).
   * `created` is false when `reference` already named a refund of that order: that one is returned.
   * @throws ApiError 422 naming `amount` (more than refundable) or `currency`, 409 when the order is
   * not settled or the reference was used with another amount, 404 for an unknown order.
   */
  async createRefund(request: RefundCreateRequest, signal?: AbortSignal): Promise<RefundCreated> {
    const data = await this.publicJson('POST', 'refunds', signal, { ...request });
    if (!isRefund(data) || typeof data.claim_url !== 'string') throw unexpected();
    return data as unknown as RefundCreated;
  }

  /** Cancels a refund not paid yet (`POST /api/refunds/<id>/cancel`). @throws ApiError 409 once paid or final. */
  async cancelRefund(refundId: string, reason: string, signal?: AbortSignal): Promise<Refund> {
    const trimmed = reason.trim();
    const data = await this.publicJson(
      'POST',
      `refunds/${encodeURIComponent(refundId)}/cancel`,
      signal,
      trimmed ? { reason: trimmed } : {},
    );
    if (!isRefund(data)) throw unexpected();
    return data as unknown as Refund;
  }

  /** The refunds of one order, oldest first, with what it received and what is left to refund. */
  async refundsOfTransaction(transactionCode: string, signal?: AbortSignal): Promise<RefundsOfTransaction> {
    const query = new URLSearchParams({ transaction_code: transactionCode });
    const data = await this.publicJson('GET', `refunds?${query}`, signal);
    if (!isRecord(data) || !Array.isArray(data.refunds) || typeof data.refundable !== 'string') {
      throw unexpected();
    }
    return data as unknown as RefundsOfTransaction;
  }

  /** Every merchant key, revoked ones included (never the keys themselves). */
  async merchantKeys(signal?: AbortSignal): Promise<OperatorMerchantKey[]> {
    const data = await this.json('GET', 'merchant-keys', signal);
    if (!Array.isArray(data)) throw unexpected();
    return data as OperatorMerchantKey[];
  }

  /**
   * Issues a merchant key that may refund orders paid to `walletAddresses`; the answer carries the
   * key, which the server never shows again. @throws ApiError 400 naming `label` or `wallet_addresses`.
   */
  async issueMerchantKey(
    label: string,
    walletAddresses: readonly string[],
    signal?: AbortSignal,
  ): Promise<OperatorIssuedMerchantKey> {
    const data = await this.json('POST', 'merchant-keys', signal, {
      label,
      wallet_addresses: [...walletAddresses],
    });
    if (!isRecord(data) || typeof data.key !== 'string' || typeof data.key_id !== 'string')
      throw unexpected();
    return data as unknown as OperatorIssuedMerchantKey;
  }

  /** Revokes a merchant key: it can no longer create or cancel refunds. */
  async revokeMerchantKey(keyId: string, signal?: AbortSignal): Promise<OperatorMerchantKey> {
    const data = await this.json('POST', `merchant-keys/${encodeURIComponent(keyId)}/revoke`, signal);
    if (!isRecord(data) || typeof data.key_id !== 'string') throw unexpected();
    return data as unknown as OperatorMerchantKey;
  }

  private async transferAction(
    transfer: TransferKey,
    action: 'attach' | 'handled' | 'forward',
    body: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<OperatorChainTransfer> {
    const path = ['transfers', transfer.network, transfer.tx_hash, String(transfer.log_index), action]
      .map(encodeURIComponent)
      .join('/');
    const data = await this.json('POST', path, signal, body);
    if (!isRecord(data) || typeof data.tx_hash !== 'string') throw unexpected();
    return data as unknown as OperatorChainTransfer;
  }

  private async json(
    method: 'GET' | 'POST',
    path: string,
    signal?: AbortSignal,
    body?: JsonBody,
  ): Promise<unknown> {
    return this.envelopeData(await this.send(method, path, signal, body));
  }

  /** A call to the public API beside the operator API (`/api/<path>`), with the token as credential. */
  private async publicJson(
    method: 'GET' | 'POST',
    path: string,
    signal?: AbortSignal,
    body?: JsonBody,
  ): Promise<unknown> {
    const url = `${this.options.base.replace(/\/operator\/?$/, '')}/${path}`;
    return this.envelopeData(await this.sendTo(method, url, signal, { withToken: true, body }));
  }

  private async envelopeData(response: Response): Promise<unknown> {
    const envelope = await response.json().catch(() => null);
    if (!isRecord(envelope) || envelope.status !== 'success') throw unexpected(response.status);
    return envelope.data;
  }

  /** Sends the request and returns a 2xx response; anything else becomes an ApiError. */
  private send(
    method: 'GET' | 'POST',
    path: string,
    signal?: AbortSignal,
    body?: JsonBody,
  ): Promise<Response> {
    return this.sendTo(method, `${this.options.base}/${path}`, signal, { withToken: true, body });
  }

  private async sendTo(
    method: 'GET' | 'POST',
    url: string,
    signal: AbortSignal | undefined,
    options: { withToken: boolean; body?: JsonBody | undefined },
  ): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json' };
    const token = options.withToken ? this.options.token() : null;
    if (token) headers.authorization = `Bearer ${token}`;
    const init: RequestInit = { method, headers, cache: 'no-store', credentials: 'omit' };
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(options.body);
    }
    if (signal) init.signal = signal;
    let response: Response;
    try {
      response = await this.options.fetch(url, init);
    } catch (error) {
      if (signal?.aborted) throw new ApiError('The request was cancelled.', 'aborted', 0);
      throw new ApiError(
        `The server could not be reached (${error instanceof Error ? error.message : String(error)}). Check that it is running, then try again.`,
        'network',
        0,
      );
    }
    if (response.ok) return response;
    throw await errorFromResponse(response);
  }
}

async function errorFromResponse(response: Response): Promise<ApiError> {
  const envelope = await response.json().catch(() => null);
  const error = isRecord(envelope) && isRecord(envelope.error) ? envelope.error : null;
  const code =
    typeof error?.code === 'string' ? error.code : response.status === 401 ? 'unauthorized' : 'http_error';
  const message =
    typeof error?.message === 'string' && error.message
      ? error.message
      : `The server answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}.`;
  const field = typeof error?.field === 'string' ? error.field : null;
  return new ApiError(message, code, response.status, field);
}

function unexpected(httpStatus = 200): ApiError {
  return new ApiError(
    'The server sent an answer the dashboard does not understand.',
    'unexpected_response',
    httpStatus,
  );
}

/** The optional note as a body field: left out when empty (the server trims and keeps 500 characters). */
function noteOf(note: string): { note?: string } {
  const trimmed = note.trim();
  return trimmed ? { note: trimmed } : {};
}

function pageParams(params: URLSearchParams, page: PageRequest): URLSearchParams {
  if (page.limit !== undefined) params.set('limit', String(page.limit));
  if (page.cursor) params.set('cursor', page.cursor);
  return params;
}

function queryString(params: URLSearchParams): string {
  const query = params.toString();
  return query ? `?${query}` : '';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isRefund(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && typeof value.refund_id === 'string' && typeof value.status === 'string';
}

function isPage(value: unknown): boolean {
  return (
    isRecord(value) &&
    Array.isArray(value.items) &&
    (value.next_cursor === null || typeof value.next_cursor === 'string')
  );
}
