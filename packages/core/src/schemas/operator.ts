import type { TransactionStatus } from './common.js';
import type { PaymentOption } from './payment-options.js';
import type { Refund, RefundStatus } from './refund.js';
import type { Transaction } from './transaction.js';

/**
 * The operator API (`/api/operator/…`, docs/operator-dashboard.md): what the server's dashboard
 * reads. Every request carries `Authorization: Bearer <operator token>`; answers use the same
 * envelope as the public API. Times are ISO 8601 UTC, amounts decimal strings.
 */

/** `GET /api/operator/overview`: what the server is, and a cheap check that a token is right. */
export interface OperatorOverview {
  version: string;
  mode: 'sandbox' | 'live';
  storage: 'sqlite' | 'postgres';
  /** Live mode: the networks watched, by name. */
  networks: string[];
}

/** One source's latest value for one currency or asset, as `GET /api/operator/rates` lists it. */
export interface OperatorRateSourceValue {
  source: string;
  usd_per_unit: string;
  as_of: string;
  /** Within the source's own publishing rhythm: used in the median. */
  fresh: boolean;
}

/**
 * One currency or asset of `GET /api/operator/rates`. `status`: `ok`; `diverging` (priced, but the
 * sources differ by more than the limit); `depegged` (a stablecoin under the floor: its rails are
 * off); `stale` (no fresh source: refused); `static` (the fixed table).
 */
export interface OperatorRate {
  code: string;
  kind: 'fiat' | 'asset';
  /** What a new checkout is charged at now (spread included); null when refused. */
  usd_per_unit: string | null;
  spread_percent: string;
  sources: OperatorRateSourceValue[];
  /** Largest distance of a fresh source from the median, in percent; null with fewer than two. */
  divergence_percent: string | null;
  status: 'ok' | 'diverging' | 'depegged' | 'stale' | 'static';
  /** What is wrong and what it does to checkouts; null when nothing is. */
  problem: string | null;
  /** The newest publication time among all sources' values, fresh or not. */
  last_priced_at: string | null;
}

/** One rate source of `GET /api/operator/rates`: its health as this server last saw it. */
export interface OperatorRateSource {
  name: string;
  label: string;
  kind: 'fiat' | 'asset';
  /** Origin of the URL it reads (no path or query). */
  origin: string;
  refresh_interval_seconds: number;
  last_attempt_at: string | null;
  last_success_at: string | null;
  /** The last attempt's failure, null when it succeeded. */
  last_error: string | null;
  /** Its newest value is older than its publishing rhythm allows (or it never answered). */
  stale: boolean;
}

/** `GET /api/operator/rates`: where prices come from and how they stand (docs/rates.md). */
export interface OperatorRates {
  /** `live`: market sources; `static`: the embedded dated table. */
  source: 'live' | 'static';
  /** The static table's date when `source` is `static`. */
  static_table_date: string | null;
  stablecoin_floor_usd: string;
  /** Percent beyond which sources are reported as disagreeing. */
  divergence_limit_percent: string;
  rates: OperatorRate[];
  sources: OperatorRateSource[];
}

/** The last webhook delivery of a transaction, as the list shows it. */
export type OperatorWebhookState = 'none' | 'pending' | 'delivered' | 'failed';

/** One row of the transactions list. */
export interface OperatorTransactionSummary {
  transaction_code: string;
  status: TransactionStatus;
  external_reference: string;
  fiat_amount: string;
  fiat_currency: string;
  amount_in_usd: string;
  received_usd: string;
  payment_method: string | null;
  late: boolean;
  created_at: string;
  settled_at: string | null;
  /** State of the newest webhook delivery; `none` when the order has no webhook URL or no event yet. */
  webhook: OperatorWebhookState;
}

/**
 * `GET /api/operator/transactions?q&status&from&to&limit&cursor`: newest first. `q` is a full
 * transaction code or an exact external reference; `from`/`to` are UTC dates (YYYY-MM-DD, both
 * inclusive) of creation. `next_cursor` is passed back as `cursor` for the next page; null on the last.
 */
export interface OperatorTransactionPage {
  items: OperatorTransactionSummary[];
  next_cursor: string | null;
}

/** One entry of a transaction's state history; the first is its creation. */
export interface OperatorStateChange {
  at: string;
  status: TransactionStatus;
  late: boolean;
}

/** One payment as the operator sees it; `late` when it arrived after the checkout expired. */
export interface OperatorPayment {
  payment_id: string;
  payment_method: string;
  asset: string;
  network: string | null;
  amount: string;
  amount_usd: string;
  tx_id: string;
  seen_at: string;
  confirmed: boolean;
  late: boolean;
}

/** One attempt to deliver a webhook; `http_status` null when no answer came (then `error` says why). */
export interface OperatorDeliveryAttempt {
  attempt_number: number;
  attempted_at: string;
  http_status: number | null;
  error: string | null;
  duration_ms: number;
}

/** One webhook delivery (an outbox row) with every attempt, oldest first. */
export interface OperatorDelivery {
  delivery_id: string;
  /** Origin of the target URL only: paths and queries may carry the merchant's secrets. */
  url_origin: string;
  state: 'pending' | 'delivered' | 'failed';
  created_at: string;
  finished_at: string | null;
  /** The delivery this one resends, when an operator asked for it. */
  resend_of: string | null;
  attempts: OperatorDeliveryAttempt[];
}

/** A token transfer seen on a chain (live mode), matched to a checkout or not. */
export interface OperatorChainTransfer {
  network: string;
  tx_hash: string;
  log_index: number;
  block_number: string;
  block_time: string;
  asset: string;
  token_contract: string;
  from_address: string;
  to_address: string;
  amount: string;
  /** The checkout it paid, or the one it was meant for (for example one already settled); else null. */
  transaction_code: string | null;
  /** Why no checkout took it; null when one did. */
  unmatched_reason: string | null;
  confirmed: boolean;
  recorded_at: string;
  /** A block explorer page of the transaction, for the networks' public chains; null otherwise. */
  explorer_url: string | null;
  /** Deposit mode: where the deposit is on its way to the merchant; null for a direct-mode transfer. */
  forward: OperatorDepositForward | null;
  /** What an operator decided about this transfer, if anything. */
  resolution: OperatorTransferResolution | null;
}

/**
 * A deposit's way to the merchant's wallet: `waiting` (for its confirmations or the next forward),
 * `needs_approval` (a token the checkout did not ask for: forwarded once an operator approves),
 * `sending`, `mined`, `confirmed`, `failed` (waits for the next forward), or `elsewhere` (the
 * address was emptied by someone else's call, which can only have paid the merchant).
 */
export interface OperatorDepositForward {
  state: 'waiting' | 'needs_approval' | 'sending' | 'mined' | 'confirmed' | 'failed' | 'elsewhere';
  /** The forward's mined transaction, once it is mined. */
  tx_hash: string | null;
  explorer_url: string | null;
}

/** An operator's decision on a transfer: attached to a checkout, handled outside, or forwarded. */
export interface OperatorTransferResolution {
  kind: 'attached' | 'handled' | 'forward_approved';
  at: string;
  note: string | null;
}

/** `GET /api/operator/transactions/<code>`: everything the server knows of one transaction. */
export interface OperatorTransactionDetail {
  /** As `GET /api/transaction` answers it. */
  transaction: Transaction;
  webhook_url_origin: string | null;
  usd_rate: string;
  rate_source: string;
  monitor_until: string;
  history: OperatorStateChange[];
  payments: OperatorPayment[];
  /** The rails as priced for this checkout, at its locked USD amount. */
  payment_options: PaymentOption[];
  deliveries: OperatorDelivery[];
  /** Live mode: chain transfers recorded against this checkout. */
  chain_transfers: OperatorChainTransfer[];
}

/**
 * `POST /api/operator/deliveries/<delivery_id>/resend`: queues the same body to the same URL
 * through the outbox. While a resend of that delivery is still pending, asking again returns it
 * (`created: false`) instead of queueing another: a double click makes one delivery.
 */
export interface OperatorResend {
  delivery_id: string;
  created: boolean;
}

/** `GET /api/operator/unmatched?limit&cursor`: transfers no checkout took, newest first. */
export interface OperatorUnmatchedPage {
  items: OperatorChainTransfer[];
  next_cursor: string | null;
}

/** One UTC day of `GET /api/operator/stats?days=N`. */
export interface OperatorDayStats {
  date: string;
  /** Checkouts created that day. */
  checkouts: number;
  /** Checkouts settled that day, and the sum of their `amount_in_usd`. */
  settled: number;
  settled_usd: string;
}

/** `GET /api/operator/stats?days=N` (1–366, default 30): oldest day first, today last, no gaps. */
export interface OperatorStats {
  days: OperatorDayStats[];
}

/** One row of the refunds list (`GET /api/operator/refunds?status&q&limit&cursor`), newest first. */
export interface OperatorRefundSummary {
  refund_id: string;
  transaction_code: string;
  external_reference: string;
  reference: string | null;
  status: RefundStatus;
  amount: string;
  asset: string;
  network: string;
  fiat_amount: string | null;
  fiat_currency: string;
  address: string | null;
  created_at: string;
  paid_at: string | null;
  /** Who created it: "operator token" or "merchant key <label>". */
  created_by: string;
}

/** `GET /api/operator/refunds`: `q` is a refund id, a transaction code or an exact external reference. */
export interface OperatorRefundPage {
  items: OperatorRefundSummary[];
  next_cursor: string | null;
}

/** `GET /api/operator/refunds/:refundId`: the refund, its claim link and who created it. */
export type OperatorRefundDetail = Refund & {
  claim_url: string;
  created_by: string;
  cancelled_by: string | null;
};

/** A merchant key as listed; the key itself is shown once, when issued. */
export interface OperatorMerchantKey {
  key_id: string;
  label: string;
  /** The wallets whose orders the key may refund. */
  wallet_addresses: string[];
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

/** `POST /api/operator/merchant-keys` answer: the key, shown this once. */
export type OperatorIssuedMerchantKey = OperatorMerchantKey & { key: string };
