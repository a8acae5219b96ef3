import { randomBytes, randomUUID } from 'node:crypto';
import {
  addDecimals,
  type CheckoutCreated,
  compareDecimals,
  decimalToScaled,
  divideDecimals,
  fiatMinorUnits,
  multiplyDecimals,
  normalizeFiatAmount,
  type PaymentLink,
  type PaymentOption,
  type PaymentOptions,
  parseDecimal,
  type SandboxPaymentRequest,
  SETTLED_EVENT,
  type SettledWebhook,
  subtractDecimalsAtLeastZero,
  type Transaction,
  type TransactionStatus,
  toMinorUnits,
} from '@cryptocheckout/core';
import type { Transaction as DatabaseTransaction, Kysely, Selectable } from 'kysely';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config.js';
import type { DatabaseSchema, PaymentsTable, TransactionsTable } from '../db/schema.js';
import { ServiceProblem } from '../http/problem.js';
import { findRail, quoteDecimals, RAILS, type Rail } from '../rails/catalog.js';
import type { ObservedPayment, PaymentRailProvider, PaymentSink } from '../rails/payment-rail-provider.js';
import { paymentUri } from '../rails/payment-uri.js';
import type { RateProvider } from '../rates/rate-provider.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';
import { liveWebhookTargetProblem } from '../webhooks/target-policy.js';
import { assertWithinUsdLimit, checkedSandboxAmountUsd } from './limits.js';
import { deriveState } from './status.js';

type TransactionRow = Selectable<TransactionsTable>;
type PaymentRow = Selectable<PaymentsTable>;

/** A state change derived from a row and its payments (see `transitionOf`). */
interface Transition {
  next: TransactionRow;
  newlyConfirmed: PaymentRow[];
  settling: boolean;
  changed: boolean;
}

/** A validated `POST /checkout` body. */
export interface CheckoutInput {
  fiat_amount: number | string;
  fiat_currency: string;
  external_reference: string;
  webhook_url?: string | undefined;
  success_url?: string | undefined;
  cancel_url?: string | undefined;
  customer: { wallet_address: string; crypto_currency: string; crypto_currency_network: string };
}

export interface CheckoutServiceDependencies {
  db: Kysely<DatabaseSchema>;
  config: ResolvedConfig;
  clock: () => Date;
  rates: RateProvider;
  rails: PaymentRailProvider;
  outbox: WebhookOutbox;
  logger: Logger;
  /** The public origin, known once the server listens. */
  publicUrl: () => string;
}

/** The service's behaviour: pricing, checkouts, lookups, payments and their state machine. */
export class CheckoutService implements PaymentSink {
  /**
   * The reads of every lookup, compiled once: building a query costs more than running it. The
   * transaction comes with its payment count, so a transaction without payments (the common case
   * while a buyer looks at the page) needs one query, not two.
   */
  private readonly selectTransaction;
  private readonly selectPayments;
  private readonly insertTransaction: (row: TransactionRow) => Promise<unknown>;
  /** Transactions the sweep failed to update, with how many passes in a row failed. */
  private readonly failingInSweep = new Map<string, number>();

  constructor(private readonly deps: CheckoutServiceDependencies) {
    this.selectTransaction = deps.db
      .selectFrom('transactions')
      .selectAll()
      .select((select) =>
        select
          .selectFrom('payments')
          .select((count) => count.fn.countAll().as('count'))
          .whereRef('payments.transaction_code', '=', 'transactions.transaction_code')
          .as('payment_count'),
      )
      .where('transaction_code', '=', '')
      .compile();
    this.selectPayments = deps.db
      .selectFrom('payments')
      .selectAll()
      .where('transaction_code', '=', '')
      .orderBy('seen_at')
      .orderBy('payment_id')
      .compile();
    this.insertTransaction = compiledInsert(deps.db, 'transactions', TRANSACTION_COLUMNS);
  }

  /** `GET /payment_options`: every rail priced for an amount. */
  async paymentOptions(fiatAmount: string, fiatCurrency: string): Promise<PaymentOptions> {
    const amount = this.checkedFiatAmount(fiatAmount, fiatCurrency);
    const { amountInUsd } = await this.lockRate(amount, fiatCurrency);
    return {
      fiat_amount: Number(amount),
      fiat_currency: fiatCurrency,
      amount_in_usd: Number(amountInUsd),
      payment_options: await this.priceRails(amountInUsd, amount, fiatCurrency),
    };
  }

  /** `POST /checkout`: creates a pending transaction with its rate locked. */
  async createCheckout(input: CheckoutInput): Promise<CheckoutCreated> {
    const amount = this.checkedFiatAmount(input.fiat_amount, input.fiat_currency);
    if (input.webhook_url && this.deps.config.mode === 'live') {
      const problem = await liveWebhookTargetProblem(input.webhook_url);
      if (problem) throw new ServiceProblem('invalid_request', `webhook_url: ${problem}.`, 'webhook_url');
    }
    const { amountInUsd, usdRate, source } = await this.lockRate(amount, input.fiat_currency);
    const now = this.deps.clock();
    const expiresAt = new Date(now.getTime() + this.deps.config.expiryMs);
    const row: TransactionRow = {
      transaction_code: randomUUID(),
      status: 'pending',
      external_reference: input.external_reference,
      fiat_amount: amount,
      fiat_currency: input.fiat_currency,
      usd_rate: usdRate,
      rate_source: source,
      amount_in_usd: amountInUsd,
      received_usd: '0',
      webhook_url: input.webhook_url ?? null,
      success_url: input.success_url ?? null,
      cancel_url: input.cancel_url ?? null,
      wallet_address: input.customer.wallet_address,
      wallet_currency: input.customer.crypto_currency,
      wallet_network: input.customer.crypto_currency_network,
      payout_dispatched: 0,
      payment_method: null,
      late: 0,
      created_at: now.toISOString(),
      expires_at: expiresAt.toISOString(),
      monitor_until: new Date(expiresAt.getTime() + this.deps.config.lateWindowMs).toISOString(),
      settled_at: null,
      version: 0,
    };
    await this.insertTransaction(row);
    this.deps.logger.info(
      { transactionCode: row.transaction_code, reference: row.external_reference, amountInUsd },
      'checkout created',
    );
    return {
      transaction_code: row.transaction_code,
      status: 'pending',
      amount_in_usd: Number(amountInUsd),
      checkout_url: this.checkoutUrl(row.transaction_code),
      payment_options: await this.priceRails(amountInUsd, amount, input.fiat_currency),
      expires_at: row.expires_at,
    };
  }

  /** `GET /transaction`: the authoritative state, brought up to date first. */
  async getTransaction(transactionCode: string): Promise<Transaction> {
    const { row, payments } = await this.refresh(transactionCode);
    return this.toLookup(row, payments);
  }

  /** The stored row with the URLs the lookup object leaves out (for the hosted page). */
  async getCheckoutDetails(transactionCode: string): Promise<{
    transaction: Transaction;
    successUrl: string | null;
    cancelUrl: string | null;
    webhookUrl: string | null;
    paymentOptions: PaymentOption[];
  }> {
    const { row, payments } = await this.refresh(transactionCode);
    return {
      transaction: this.toLookup(row, payments),
      successUrl: row.success_url,
      cancelUrl: row.cancel_url,
      webhookUrl: row.webhook_url,
      paymentOptions: (await this.priceWhatIsDue(row)).options,
    };
  }

  /** `GET /payment_link`: instructions for paying what is still due by one rail. */
  async paymentLink(transactionCode: string, paymentMethod: string): Promise<PaymentLink> {
    const { row } = await this.refresh(transactionCode);
    const rail = findRail(paymentMethod);
    if (!rail) {
      throw new ServiceProblem(
        'invalid_request',
        `payment_method "${paymentMethod}" is not a rail of this service; see GET /payment_options for the slugs.`,
        'payment_method',
      );
    }
    this.assertPayable(row);
    const { dueUsd: due, options } = await this.priceWhatIsDue(row, [rail]);
    const option = options[0]!;
    if (!option.available) {
      throw new ServiceProblem(
        'unprocessable',
        `${rail.name} is not available for ${due} USD (allowed ${rail.minUsd}–${rail.maxUsd} USD${this.deps.rails.supports(rail) ? '' : ', and not enabled on this server'}).`,
        'payment_method',
      );
    }
    const expiresAt = row.expires_at;
    if (rail.kind === 'fiat') {
      return {
        kind: 'fiat',
        payment_method: rail.slug,
        redirect_url: this.deps.rails.fiatRedirectUrl(row.transaction_code, rail, this.deps.publicUrl()),
        expires_at: expiresAt,
      };
    }
    const address = await this.depositAddress(row.transaction_code, rail);
    return {
      kind: 'crypto',
      payment_method: rail.slug,
      address,
      amount: option.amount,
      asset: rail.asset!,
      network: rail.network!,
      uri: paymentUri(rail.network!, rail.asset!, address, option.amount, 'Crypto Checkout'),
      expires_at: expiresAt,
    };
  }

  /** Sandbox: simulates a payment of what is due (full), half of it (partial) or 10 % more (over). */
  async sandboxPay(
    request: Required<Pick<SandboxPaymentRequest, 'size' | 'confirmed'>> & SandboxPaymentRequest,
  ) {
    const rail = findRail(request.payment_method);
    if (!rail) {
      throw new ServiceProblem(
        'invalid_request',
        `payment_method "${request.payment_method}" is not a rail.`,
        'payment_method',
      );
    }
    const exactUsd =
      request.amount_usd === undefined ? undefined : checkedSandboxAmountUsd(request.amount_usd);
    await this.insertPaymentAtomically(request.transaction_code, async (row, payments) => {
      this.assertPayable(row, true);
      const seenUsd = payments.reduce((sum, payment) => addDecimals(sum, payment.amount_usd), '0');
      const due = subtractDecimalsAtLeastZero(row.amount_in_usd, seenUsd);
      if (compareDecimals(due, '0') <= 0 && exactUsd === undefined) {
        throw new ServiceProblem(
          'conflict',
          'Payments already cover this transaction; wait for them to confirm.',
        );
      }
      const amountUsd =
        exactUsd ??
        (request.size === 'full'
          ? due
          : request.size === 'partial'
            ? maxDecimal(divideDecimals(due, '2', 2, 'down'), '0.01')
            : multiplyDecimals(due, '1.1', 2, 'up'));
      const amount =
        rail.kind === 'crypto'
          ? divideDecimals(amountUsd, await this.assetPrice(rail), quoteDecimals(rail), 'up')
          : divideDecimals(amountUsd, row.usd_rate, fiatMinorUnits(row.fiat_currency), 'up');
      const now = this.deps.clock();
      return this.paymentRow(row, {
        transactionCode: row.transaction_code,
        paymentMethod: rail.slug,
        amount,
        txId: sandboxTransactionId(rail),
        seenAt: now,
        confirmAt: request.confirmed ? now : new Date(now.getTime() + this.deps.config.sandboxConfirmationMs),
      });
    });
    return this.getTransaction(request.transaction_code);
  }

  /** Records a payment reported by a rail provider (or the sandbox) and updates the state. */
  async recordPayment(payment: ObservedPayment): Promise<void> {
    await this.insertPaymentAtomically(payment.transactionCode, async (row) => {
      this.assertPayable(row, true);
      return this.paymentRow(row, payment);
    });
  }

  /**
   * Stores a payment only if the checks `build` makes on the transaction still hold when it is
   * stored. `build` sees the current row and payments and throws a ServiceProblem to refuse; the
   * insert then claims the row's version in the same database transaction. The claim is the
   * transaction's first statement, so it is what orders concurrent payments: a row lock on
   * PostgreSQL, the file's write lock on SQLite (waited for, also across processes). A payment whose
   * claim loses re-reads and is checked again, so a covered or settled transaction takes no more.
   * @throws ServiceProblem from `build`, `not_found`, or `unavailable` under endless contention.
   */
  private async insertPaymentAtomically(
    transactionCode: string,
    build: (row: TransactionRow, payments: PaymentRow[]) => Promise<PaymentRow>,
  ): Promise<void> {
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      if (attempt > 0) await contentionPause(attempt);
      const { row, payments } = await this.refresh(transactionCode);
      const payment = await build(row, payments);
      // The payment and the state it leads to are stored together: a payment that completes the
      // transaction settles it in the same commit, so no later payment finds it covered but open.
      const transition = this.transitionOf(row, [...payments, payment]);
      const confirmedNow = transition.newlyConfirmed.includes(payment);
      const alreadyStored = transition.newlyConfirmed.filter((each) => each !== payment);
      const stored = await this.deps.db.transaction().execute(async (trx) => {
        // The version claim is the first statement, so nothing is written when it loses.
        if (!(await this.storeTransition(trx, row, { ...transition, newlyConfirmed: alreadyStored }))) {
          return false;
        }
        await trx
          .insertInto('payments')
          .values({ ...payment, confirmed: confirmedNow ? 1 : 0 })
          .execute();
        return true;
      });
      if (!stored) continue;
      this.deps.logger.info(
        {
          transactionCode: row.transaction_code,
          paymentMethod: payment.payment_method,
          amountUsd: payment.amount_usd,
        },
        'payment recorded',
      );
      this.afterTransition(row, transition);
      return;
    }
    throw contentionProblem(transactionCode);
  }

  /** The payments row for an observed payment, valued in USD at the asset's price or the locked rate. */
  private async paymentRow(row: TransactionRow, payment: ObservedPayment): Promise<PaymentRow> {
    const rail = findRail(payment.paymentMethod);
    if (!rail) throw new ServiceProblem('invalid_request', 'Unknown payment method.', 'payment_method');
    const amount = parseDecimal(payment.amount);
    const amountUsd =
      rail.kind === 'crypto'
        ? multiplyDecimals(amount, await this.assetPrice(rail), 2, 'down')
        : multiplyDecimals(amount, row.usd_rate, 2, 'down');
    assertWithinUsdLimit(amountUsd, 'amount', `A payment of ${amount} ${rail.asset ?? row.fiat_currency}`);
    return {
      payment_id: randomUUID(),
      transaction_code: row.transaction_code,
      payment_method: rail.slug,
      asset: rail.kind === 'crypto' ? rail.asset! : row.fiat_currency,
      network: rail.network,
      amount,
      amount_usd: amountUsd,
      tx_id: payment.txId,
      seen_at: payment.seenAt.toISOString(),
      confirm_at: payment.confirmAt.toISOString(),
      confirmed: 0,
    };
  }

  /** Applies due expiries and confirmations of every open transaction (the background sweep). */
  async sweep(): Promise<number> {
    const now = this.deps.clock().toISOString();
    const expiring = await this.deps.db
      .selectFrom('transactions')
      .select('transaction_code')
      .where('status', 'in', ['pending', 'underpaid'])
      .where('expires_at', '<=', now)
      .limit(500)
      .execute();
    const confirming = await this.deps.db
      .selectFrom('payments')
      .select('transaction_code')
      .where('confirmed', '=', 0)
      .where('confirm_at', '<=', now)
      .limit(500)
      .execute();
    const codes = new Set([...expiring, ...confirming].map((row) => row.transaction_code));
    for (const code of codes) {
      // One transaction that cannot be brought up to date must not hold back everyone else's.
      try {
        await this.refresh(code);
        this.failingInSweep.delete(code);
      } catch (error) {
        const failures = (this.failingInSweep.get(code) ?? 0) + 1;
        this.failingInSweep.set(code, failures);
        // Logged on the first failure and then once a minute or so, not on every pass.
        if (failures % 60 === 1) {
          this.deps.logger.error(
            { err: error, transactionCode: code, failures },
            'sweep could not update a transaction; skipping it',
          );
        }
      }
    }
    return codes.size;
  }

  /**
   * Re-derives a transaction's state and stores it when it changed. Updates name the version they
   * read, so concurrent refreshes (or several nodes) apply each transition exactly once; the
   * settlement webhook is queued in the same database transaction as the settlement.
   * @throws ServiceProblem `not_found`, `unavailable` under endless contention.
   */
  async refresh(transactionCode: string): Promise<{ row: TransactionRow; payments: PaymentRow[] }> {
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      if (attempt > 0) await contentionPause(attempt);
      const { row, payments } = await this.readTransaction(transactionCode);
      const transition = this.transitionOf(row, payments);
      if (!transition.changed) return { row, payments };
      const applied = await this.deps.db
        .transaction()
        .execute((trx) => this.storeTransition(trx, row, transition));
      if (!applied) continue;
      this.afterTransition(row, transition);
      return { row: transition.next, payments };
    }
    throw contentionProblem(transactionCode);
  }

  /** The stored row and its payments, oldest first. @throws ServiceProblem `not_found`. */
  private async readTransaction(transactionCode: string) {
    const { rows } = await this.deps.db.executeQuery<TransactionRow & { payment_count: number | string }>({
      ...this.selectTransaction,
      parameters: [transactionCode.toLowerCase()],
    });
    const found = rows[0];
    if (!found) {
      throw new ServiceProblem(
        'not_found',
        `No transaction has the code ${transactionCode}.`,
        'transaction_code',
      );
    }
    const { payment_count: paymentCount, ...row } = found;
    const payments = Number(paymentCount) > 0 ? await this.paymentsOf(row.transaction_code) : [];
    return { row: row as TransactionRow, payments };
  }

  /** What the row becomes given its payments and the time; `changed` says whether to store it. */
  private transitionOf(row: TransactionRow, payments: readonly PaymentRow[]): Transition {
    const now = this.deps.clock().toISOString();
    const derived = deriveState({
      amountInUsd: row.amount_in_usd,
      expiresAt: row.expires_at,
      now,
      payments: payments.map((payment) => ({
        amountUsd: payment.amount_usd,
        paymentMethod: payment.payment_method,
        seenAt: payment.seen_at,
        confirmAt: payment.confirm_at,
      })),
      current: {
        status: row.status as TransactionStatus,
        settledAt: row.settled_at,
        late: row.late === 1,
        paymentMethod: row.payment_method,
      },
    });
    const newlyConfirmed = payments.filter((payment) => payment.confirmed === 0 && payment.confirm_at <= now);
    const next: TransactionRow = {
      ...row,
      status: derived.status,
      received_usd: derived.receivedUsd,
      late: derived.late ? 1 : 0,
      settled_at: derived.settledAt,
      payment_method: derived.paymentMethod,
      payout_dispatched: derived.status === 'settled' ? 1 : 0,
      version: row.version + 1,
    };
    return {
      next,
      newlyConfirmed,
      settling: derived.status === 'settled' && row.status !== 'settled',
      changed:
        next.status !== row.status ||
        next.received_usd !== row.received_usd ||
        next.payment_method !== row.payment_method ||
        newlyConfirmed.length > 0,
    };
  }

  /**
   * Writes a transition if the row still has the version it was derived from (false if not),
   * with the payments it confirms and, on settlement, the webhook in the outbox.
   */
  private async storeTransition(
    trx: DatabaseTransaction<DatabaseSchema>,
    row: TransactionRow,
    { next, newlyConfirmed, settling }: Transition,
  ): Promise<boolean> {
    const update = await trx
      .updateTable('transactions')
      .set({
        status: next.status,
        received_usd: next.received_usd,
        late: next.late,
        settled_at: next.settled_at,
        payment_method: next.payment_method,
        payout_dispatched: next.payout_dispatched,
        version: next.version,
      })
      .where('transaction_code', '=', row.transaction_code)
      .where('version', '=', row.version)
      .executeTakeFirst();
    if (Number(update.numUpdatedRows) !== 1) return false;
    if (newlyConfirmed.length > 0) {
      await trx
        .updateTable('payments')
        .set({ confirmed: 1 })
        .where(
          'payment_id',
          'in',
          newlyConfirmed.map((payment) => payment.payment_id),
        )
        .execute();
    }
    if (settling && row.webhook_url) {
      await this.deps.outbox.enqueue(trx, {
        transactionCode: row.transaction_code,
        url: row.webhook_url,
        body: JSON.stringify(this.settledWebhook(next, this.deps.clock())),
      });
    }
    return true;
  }

  private afterTransition(row: TransactionRow, { next, settling }: Transition): void {
    if (next.status !== row.status) {
      this.deps.logger.info(
        { transactionCode: row.transaction_code, from: row.status, to: next.status, late: next.late === 1 },
        'transaction status changed',
      );
    }
    if (settling && row.webhook_url) void this.deps.outbox.kick();
  }

  /** The `transaction.settled` body, exactly the fields of spec 6.2. */
  private settledWebhook(row: TransactionRow, now: Date): SettledWebhook {
    return {
      event: SETTLED_EVENT,
      transaction_code: row.transaction_code,
      external_reference: row.external_reference,
      fiat_amount: Number(row.fiat_amount),
      fiat_currency: row.fiat_currency,
      received_usd: Number(row.received_usd),
      wallet_address: row.wallet_address,
      wallet_currency: row.wallet_currency,
      wallet_network: row.wallet_network,
      payout_dispatched: row.payout_dispatched === 1,
      timestamp: Math.floor(now.getTime() / 1000),
    };
  }

  private toLookup(row: TransactionRow, payments: PaymentRow[]): Transaction {
    return {
      transaction_code: row.transaction_code,
      status: row.status as TransactionStatus,
      external_reference: row.external_reference,
      fiat_amount: Number(row.fiat_amount),
      fiat_currency: row.fiat_currency,
      amount_in_usd: Number(row.amount_in_usd),
      received_usd: Number(row.received_usd),
      checkout_url: this.checkoutUrl(row.transaction_code),
      wallet_address: row.wallet_address,
      wallet_currency: row.wallet_currency,
      wallet_network: row.wallet_network,
      payout_dispatched: row.payout_dispatched === 1,
      payment_method: row.payment_method,
      late: row.late === 1,
      created_at: row.created_at,
      expires_at: row.expires_at,
      settled_at: row.settled_at,
      payments: payments.map((payment) => ({
        payment_method: payment.payment_method,
        asset: payment.asset,
        network: payment.network,
        amount: payment.amount,
        amount_usd: Number(payment.amount_usd),
        tx_id: payment.tx_id,
        seen_at: payment.seen_at,
      })),
    };
  }

  private checkoutUrl(transactionCode: string): string {
    return `${this.deps.publicUrl()}/pay/${transactionCode}`;
  }

  private async paymentsOf(transactionCode: string): Promise<PaymentRow[]> {
    return (
      await this.deps.db.executeQuery<PaymentRow>({ ...this.selectPayments, parameters: [transactionCode] })
    ).rows;
  }

  /**
   * Prices rails for what is still due: the whole order before any payment (and once nothing is
   * left), else the rest, in USD and in the order's currency at the locked rate.
   */
  private async priceWhatIsDue(row: TransactionRow, rails: readonly Rail[] = RAILS) {
    const rest = subtractDecimalsAtLeastZero(row.amount_in_usd, row.received_usd);
    const partlyPaid = compareDecimals(rest, '0') > 0 && compareDecimals(rest, row.amount_in_usd) < 0;
    const dueUsd = partlyPaid ? rest : row.amount_in_usd;
    const dueFiat = partlyPaid
      ? divideDecimals(rest, row.usd_rate, fiatMinorUnits(row.fiat_currency), 'up')
      : row.fiat_amount;
    return { dueUsd, options: await this.priceRails(dueUsd, dueFiat, row.fiat_currency, rails) };
  }

  /** Refuses payment on a settled transaction, or (for instructions) an expired one. */
  private assertPayable(row: TransactionRow, acceptingPayment = false): void {
    if (row.status === 'settled') {
      throw new ServiceProblem('conflict', `Transaction ${row.transaction_code} is already settled.`);
    }
    const now = this.deps.clock().toISOString();
    if (row.status === 'expired' && (!acceptingPayment || now > row.monitor_until)) {
      throw new ServiceProblem(
        'conflict',
        acceptingPayment
          ? `Transaction ${row.transaction_code} expired and is no longer monitored for payments.`
          : `Transaction ${row.transaction_code} has expired; start a new checkout.`,
      );
    }
  }

  private checkedFiatAmount(fiatAmount: unknown, fiatCurrency: string): string {
    try {
      const amount = normalizeFiatAmount(fiatAmount, fiatCurrency);
      if (toMinorUnits(amount, fiatCurrency) <= 0n) {
        throw new ServiceProblem('invalid_request', 'fiat_amount must be greater than 0.', 'fiat_amount');
      }
      return amount;
    } catch (error) {
      if (error instanceof ServiceProblem) throw error;
      const code = (error as { code?: string }).code;
      const field = code === 'unsupported_currency' ? 'fiat_currency' : 'fiat_amount';
      throw new ServiceProblem('invalid_request', `${field}: ${(error as Error).message}`, field);
    }
  }

  private async lockRate(fiatAmount: string, fiatCurrency: string) {
    const quote = await this.deps.rates.fiatToUsd(fiatCurrency).catch((error: unknown) => {
      this.deps.logger.error({ err: error, fiatCurrency }, 'rate source failed');
      throw new ServiceProblem('unavailable', 'The exchange-rate source is unavailable; try again shortly.');
    });
    if (!quote) {
      throw new ServiceProblem('invalid_request', `No exchange rate for ${fiatCurrency}.`, 'fiat_currency');
    }
    // USD amounts have 2 decimals, rounded half up; a positive order is never priced at 0.
    const converted = multiplyDecimals(fiatAmount, quote.usdPerUnit, 2, 'half_up');
    assertWithinUsdLimit(converted, 'fiat_amount', `fiat_amount ${fiatAmount} ${fiatCurrency}`);
    const amountInUsd = maxDecimal(converted, '0.01');
    return { amountInUsd, usdRate: quote.usdPerUnit, source: quote.source };
  }

  private async assetPrice(rail: Rail): Promise<string> {
    const quote = await this.deps.rates.assetToUsd(rail.asset!).catch(() => undefined);
    if (!quote)
      throw new ServiceProblem('unavailable', `No price for ${rail.asset} right now; try again shortly.`);
    return quote.usdPerUnit;
  }

  private async priceRails(
    amountUsd: string,
    fiatAmount: string,
    fiatCurrency: string,
    rails: readonly Rail[] = RAILS,
  ): Promise<PaymentOption[]> {
    const usdCents = decimalToScaled(amountUsd, 2);
    const assets = [...new Set(rails.flatMap((rail) => (rail.kind === 'crypto' ? [rail.asset!] : [])))];
    const quotes = new Map(
      await Promise.all(
        assets.map(
          async (asset) => [asset, await this.deps.rates.assetToUsd(asset).catch(() => undefined)] as const,
        ),
      ),
    );
    return rails.map((rail) => {
      const bounds = railBoundsInCents(rail);
      const withinBounds = usdCents >= bounds.min && usdCents <= bounds.max;
      const quote = rail.kind === 'crypto' ? quotes.get(rail.asset!) : undefined;
      const priced = rail.kind === 'fiat' || quote !== undefined;
      const amount =
        rail.kind === 'fiat'
          ? fiatAmount
          : quote
            ? divideDecimals(amountUsd, quote.usdPerUnit, quoteDecimals(rail), 'up')
            : '0';
      return {
        slug: rail.slug,
        name: rail.name,
        kind: rail.kind,
        asset: rail.asset ?? fiatCurrency,
        network: rail.network,
        amount: parseDecimal(amount),
        amount_usd: Number(amountUsd),
        min_usd: Number(rail.minUsd),
        max_usd: Number(rail.maxUsd),
        available: priced && withinBounds && this.deps.rails.supports(rail),
      };
    });
  }

  private async depositAddress(transactionCode: string, rail: Rail): Promise<string> {
    const existing = await this.deps.db
      .selectFrom('deposit_addresses')
      .select('address')
      .where('transaction_code', '=', transactionCode)
      .where('payment_method', '=', rail.slug)
      .executeTakeFirst();
    if (existing) return existing.address;
    const address = await this.deps.rails.depositAddress(transactionCode, rail);
    await this.deps.db
      .insertInto('deposit_addresses')
      .values({
        transaction_code: transactionCode,
        payment_method: rail.slug,
        address,
        created_at: this.deps.clock().toISOString(),
      })
      .onConflict((conflict) => conflict.columns(['transaction_code', 'payment_method']).doNothing())
      .execute();
    return address;
  }
}

/** Tries at a write that lost to a concurrent one before the caller is told to try again. */
const MAX_WRITE_ATTEMPTS = 40;

/** A short random pause after a lost write, growing with the attempt, so writers stop colliding. */
function contentionPause(attempt: number): Promise<void> {
  if (attempt < 2) return Promise.resolve();
  const ms = Math.random() * Math.min(50, attempt * 3);
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function contentionProblem(transactionCode: string): ServiceProblem {
  return new ServiceProblem(
    'unavailable',
    `Transaction ${transactionCode} is being updated by many requests at once; try again in a moment.`,
  );
}

const TRANSACTION_COLUMNS = [
  'transaction_code',
  'status',
  'external_reference',
  'fiat_amount',
  'fiat_currency',
  'usd_rate',
  'rate_source',
  'amount_in_usd',
  'received_usd',
  'webhook_url',
  'success_url',
  'cancel_url',
  'wallet_address',
  'wallet_currency',
  'wallet_network',
  'payout_dispatched',
  'payment_method',
  'late',
  'created_at',
  'expires_at',
  'monitor_until',
  'settled_at',
  'version',
] as const satisfies ReadonlyArray<keyof TransactionRow>;

/**
 * An INSERT compiled once for a fixed column list; each call binds the row's values in that order.
 * Building the query per call costs more than running it.
 */
function compiledInsert(
  db: Kysely<DatabaseSchema>,
  table: 'transactions',
  columns: ReadonlyArray<keyof TransactionRow>,
): (row: TransactionRow) => Promise<unknown> {
  const template = Object.fromEntries(columns.map((column) => [column, null])) as unknown as TransactionRow;
  const compiled = db.insertInto(table).values(template).compile();
  return (row) => db.executeQuery({ ...compiled, parameters: columns.map((column) => row[column]) });
}

const boundsCache = new WeakMap<Rail, { min: bigint; max: bigint }>();

/** A rail's USD bounds as integer cents, computed once per rail. */
function railBoundsInCents(rail: Rail): { min: bigint; max: bigint } {
  let bounds = boundsCache.get(rail);
  if (!bounds) {
    bounds = { min: decimalToScaled(rail.minUsd, 2), max: decimalToScaled(rail.maxUsd, 2) };
    boundsCache.set(rail, bounds);
  }
  return bounds;
}

function maxDecimal(a: string, b: string): string {
  return compareDecimals(a, b) >= 0 ? a : b;
}

function sandboxTransactionId(rail: Rail): string {
  if (rail.kind === 'fiat') return `sandbox_${rail.slug}_${randomUUID()}`;
  const hex = randomBytes(32).toString('hex');
  return rail.network === 'BITCOIN' || rail.network === 'TRON' || rail.network === 'SOLANA'
    ? hex
    : `0x${hex}`;
}
