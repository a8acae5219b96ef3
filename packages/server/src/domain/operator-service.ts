import {
  addDecimals,
  type OperatorChainTransfer,
  type OperatorDelivery,
  type OperatorOverview,
  type OperatorPayment,
  type OperatorRates,
  type OperatorResend,
  type OperatorStateChange,
  type OperatorStats,
  type OperatorTransactionDetail,
  type OperatorTransactionPage,
  type OperatorTransactionSummary,
  type OperatorUnmatchedPage,
  type OperatorWebhookState,
  type TransactionStatus,
} from '@cryptocheckout/core';
import type { Kysely } from 'kysely';
import type { ResolvedConfig } from '../config.js';
import {
  type AttemptRow,
  type DeliveryRow,
  OperatorRepository,
  type TransactionCursor,
  type TransactionFilter,
  type TransactionListRow,
  type TransferCursor,
} from '../db/operator-repository.js';
import type { DatabaseSchema } from '../db/schema.js';
import type { PaymentRow, TransactionRow } from '../db/transaction-repository.js';
import type { RateProvider } from '../rates/rate-provider.js';
import { staticRateProvider } from '../rates/static-rates.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';
import type { CheckoutService } from './checkout-service.js';
import { decodeCursorParts, encodeCursor } from './cursor.js';
import { OperatorTransfers } from './operator-transfers.js';
import { ServiceProblem } from './service-problem.js';

export type { TransactionFilter } from '../db/operator-repository.js';

const DAY_MS = 86_400_000;

export interface OperatorServiceDependencies {
  db: Kysely<DatabaseSchema>;
  checkout: CheckoutService;
  outbox: WebhookOutbox;
  config: ResolvedConfig;
  clock: () => Date;
  version: string;
  /** Where prices come from, for the rates view. */
  rates: RateProvider;
}

/**
 * What the operator dashboard reads and does (docs/operator-dashboard.md): the transactions list,
 * one transaction with its history and webhook deliveries, resends through the outbox, unmatched
 * chain transfers and daily activity.
 */
export class OperatorService {
  private readonly repository: OperatorRepository;
  /** Chain transfers and the operator's decisions on them. */
  readonly transfers: OperatorTransfers;

  constructor(private readonly deps: OperatorServiceDependencies) {
    this.repository = new OperatorRepository(deps.db);
    this.transfers = new OperatorTransfers({
      db: deps.db,
      sink: deps.checkout,
      config: deps.config,
      clock: deps.clock,
    });
  }

  /** `GET /api/operator/rates`: each currency's price and each source's health (docs/rates.md). */
  rates(): OperatorRates {
    return this.deps.rates.overview?.() ?? staticRateProvider().overview!();
  }

  overview(): OperatorOverview {
    const { config, version } = this.deps;
    return {
      version,
      mode: config.mode,
      storage: config.storage.kind,
      networks: [
        ...config.liveNetworks.map((network) => network.network),
        ...(config.solana ? ['SOLANA'] : []),
      ],
    };
  }

  /**
   * One page of transactions, newest first.
   * @throws ServiceProblem `invalid_request` (field `cursor`) for a cursor this server did not make.
   */
  async transactions(filter: TransactionFilter, cursor: string | undefined, limit: number) {
    const after = cursor === undefined ? null : decodeTransactionCursor(cursor);
    const rows = await this.repository.transactions(filter, after, limit + 1);
    const items = rows.slice(0, limit);
    const last = items.at(-1);
    const page: OperatorTransactionPage = {
      items: items.map(transactionSummary),
      next_cursor:
        rows.length > limit && last ? encodeCursor([last.created_at, last.transaction_code]) : null,
    };
    return page;
  }

  /** Every transaction matching `filter`, newest first, read a page at a time (the CSV export). */
  async *allTransactions(filter: TransactionFilter): AsyncGenerator<OperatorTransactionSummary> {
    let after: TransactionCursor | null = null;
    for (;;) {
      const rows: TransactionListRow[] = await this.repository.transactions(filter, after, 1000);
      for (const row of rows) yield transactionSummary(row);
      const last = rows.at(-1);
      if (!last || rows.length < 1000) return;
      after = { createdAt: last.created_at, transactionCode: last.transaction_code };
    }
  }

  /**
   * Everything stored about one transaction, brought up to date first.
   * @throws ServiceProblem `not_found`.
   */
  async transaction(transactionCode: string): Promise<OperatorTransactionDetail> {
    const stored = await this.deps.checkout.getStoredWithPricing(transactionCode);
    const { row } = stored;
    const [changes, deliveries, transfers] = await Promise.all([
      this.repository.statusChanges(row.transaction_code),
      this.repository.deliveries(row.transaction_code),
      this.transfers.ofTransaction(row.transaction_code),
    ]);
    const history: OperatorStateChange[] = [{ at: row.created_at, status: 'pending', late: false }];
    for (const change of changes) {
      history.push({ at: change.at, status: change.to_status as TransactionStatus, late: change.late === 1 });
    }
    if (changes.length === 0 && row.status !== 'pending') {
      // Rows from before the history was kept: their current state, at the time it is known.
      const at = row.settled_at ?? (row.status === 'expired' ? row.expires_at : row.created_at);
      history.push({ at, status: row.status as TransactionStatus, late: row.late === 1 });
    }
    return {
      transaction: stored.transaction,
      webhook_url_origin: row.webhook_url ? originOf(row.webhook_url) : null,
      usd_rate: row.usd_rate,
      rate_source: row.rate_source,
      monitor_until: row.monitor_until,
      history,
      payments: stored.payments.map((payment) =>
        operatorPayment(row, payment, this.deps.clock().toISOString()),
      ),
      payment_options: stored.paymentOptions,
      deliveries: deliveries.map(operatorDelivery),
      chain_transfers: transfers,
    };
  }

  /**
   * Queues a webhook delivery again through the outbox; while a resend of it is pending, returns
   * that one instead (a double click makes one delivery).
   * @throws ServiceProblem `not_found` for an unknown delivery.
   */
  async resend(deliveryId: string): Promise<OperatorResend> {
    const resend = await this.deps.outbox.resend(deliveryId);
    if (!resend) throw new ServiceProblem('not_found', `No webhook delivery has the id ${deliveryId}.`);
    return { delivery_id: resend.deliveryId, created: resend.created };
  }

  /** Checkouts created and settled per UTC day over the last `days` days, today included. */
  async stats(days: number): Promise<OperatorStats> {
    const today = Date.parse(this.deps.clock().toISOString().slice(0, 10));
    const first = today - (days - 1) * DAY_MS;
    const activity = await this.repository.dailyActivity(new Date(first).toISOString());
    const settled = new Map<string, { count: number; usd: string }>();
    for (const { day, amountInUsd } of activity.settledAmounts) {
      const sum = settled.get(day) ?? { count: 0, usd: '0' };
      settled.set(day, { count: sum.count + 1, usd: addDecimals(sum.usd, amountInUsd) });
    }
    const result: OperatorStats = { days: [] };
    for (let time = first; time <= today; time += DAY_MS) {
      const date = new Date(time).toISOString().slice(0, 10);
      const day = settled.get(date);
      result.days.push({
        date,
        checkouts: activity.created.get(date) ?? 0,
        settled: day?.count ?? 0,
        settled_usd: usdText(day?.usd ?? '0'),
      });
    }
    return result;
  }
}

function transactionSummary(row: TransactionListRow): OperatorTransactionSummary {
  return {
    transaction_code: row.transaction_code,
    status: row.status as TransactionStatus,
    external_reference: row.external_reference,
    fiat_amount: row.fiat_amount,
    fiat_currency: row.fiat_currency,
    amount_in_usd: usdText(row.amount_in_usd),
    received_usd: usdText(row.received_usd),
    payment_method: row.payment_method,
    late: row.late === 1,
    created_at: row.created_at,
    settled_at: row.settled_at,
    webhook: (row.webhook_state ?? 'none') as OperatorWebhookState,
  };
}

function operatorPayment(row: TransactionRow, payment: PaymentRow, nowIso: string): OperatorPayment {
  return {
    payment_id: payment.payment_id,
    payment_method: payment.payment_method,
    asset: payment.asset,
    network: payment.network,
    amount: payment.amount,
    amount_usd: usdText(payment.amount_usd),
    tx_id: payment.tx_id,
    seen_at: payment.seen_at,
    confirmed: payment.confirmed === 1 || payment.confirm_at <= nowIso,
    late: payment.seen_at > row.expires_at,
  };
}

function operatorDelivery({
  delivery,
  attempts,
}: {
  delivery: DeliveryRow;
  attempts: AttemptRow[];
}): OperatorDelivery {
  return {
    delivery_id: delivery.delivery_id,
    url_origin: originOf(delivery.url),
    state: delivery.state as OperatorDelivery['state'],
    created_at: delivery.created_at,
    finished_at: delivery.finished_at,
    resend_of: delivery.resend_of,
    attempts: attempts.map((attempt) => ({
      attempt_number: attempt.attempt_number,
      attempted_at: attempt.attempted_at,
      http_status: attempt.http_status,
      error: attempt.error,
      duration_ms: attempt.latency_ms,
    })),
  };
}

/** A USD amount with exactly two decimals, as the list and the CSV show it. */
function usdText(amount: string): string {
  const [whole = '0', fraction = ''] = amount.split('.');
  return `${whole}.${fraction.padEnd(2, '0').slice(0, 2)}`;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(not a valid URL)';
  }
}

function decodeTransactionCursor(cursor: string): TransactionCursor {
  const [createdAt, transactionCode] = decodeCursorParts(cursor, ['string', 'string']) as [string, string];
  return { createdAt, transactionCode };
}
