import { randomUUID } from 'node:crypto';
import type {
  CheckoutCreated,
  PaymentLink,
  PaymentOption,
  PaymentOptions,
  Transaction,
} from '@cryptocheckout/core';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config.js';
import { AssetRateLockRepository } from '../db/asset-rate-lock-repository.js';
import type { DatabaseSchema } from '../db/schema.js';
import {
  type StoredTransaction,
  TransactionRepository,
  type TransactionRow,
} from '../db/transaction-repository.js';
import type {
  AlongsideWrite,
  ObservedPayment,
  PaymentRailProvider,
  PaymentSink,
} from '../rails/payment-rail-provider.js';
import type { RateProvider } from '../rates/rate-provider.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';
import { liveWebhookTargetProblem } from '../webhooks/target-policy.js';
import { NewHoldLimits } from './new-hold-limits.js';
import { PaymentInstructions } from './payment-instructions.js';
import { PaymentRecorder } from './payment-recorder.js';
import { Pricing, walletOf } from './pricing.js';
import { type SandboxPayment, SandboxPayments } from './sandbox-payments.js';
import { ServiceProblem } from './service-problem.js';
import { TransactionStates } from './transaction-states.js';
import { checkoutUrlOf, transactionLookup } from './wire-shapes.js';

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

/** What the hosted page needs beyond the lookup object. */
export interface CheckoutDetails {
  transaction: Transaction;
  successUrl: string | null;
  cancelUrl: string | null;
  webhookUrl: string | null;
  paymentOptions: PaymentOption[];
}

/**
 * The service's operations, one per endpoint, over the parts that do the work: pricing, the
 * transaction state machine, payment recording, payment instructions and sandbox payments.
 */
export class CheckoutService implements PaymentSink {
  private readonly repository: TransactionRepository;
  private readonly pricing: Pricing;
  private readonly states: TransactionStates;
  private readonly recorder: PaymentRecorder;
  private readonly instructions: PaymentInstructions;
  private readonly sandbox: SandboxPayments;

  constructor(private readonly deps: CheckoutServiceDependencies) {
    const { clock, logger } = deps;
    this.repository = new TransactionRepository(deps.db);
    this.pricing = new Pricing(deps.rates, deps.rails, logger, new AssetRateLockRepository(deps.db), clock);
    this.states = new TransactionStates(this.repository, deps.outbox, clock, logger);
    this.recorder = new PaymentRecorder(this.repository, this.states, this.pricing, clock, logger);
    this.instructions = new PaymentInstructions(
      this.repository,
      this.pricing,
      deps.rails,
      clock,
      deps.publicUrl,
      deps.config.mode === 'live' ? new NewHoldLimits(deps.config.newHoldLimits, clock) : undefined,
    );
    this.sandbox = new SandboxPayments(this.recorder, this.pricing, clock, deps.config.sandboxConfirmationMs);
  }

  /** `GET /payment_options`: every rail priced for an amount. */
  async paymentOptions(fiatAmount: string, fiatCurrency: string): Promise<PaymentOptions> {
    const amount = this.pricing.checkedFiatAmount(fiatAmount, fiatCurrency);
    const { amountInUsd } = await this.pricing.lockRate(amount, fiatCurrency);
    return {
      fiat_amount: Number(amount),
      fiat_currency: fiatCurrency,
      amount_in_usd: Number(amountInUsd),
      payment_options: await this.pricing.priceRails(amountInUsd, amount, fiatCurrency),
    };
  }

  /** `POST /checkout`: creates a pending transaction with its rate locked. */
  async createCheckout(input: CheckoutInput): Promise<CheckoutCreated> {
    const amount = this.pricing.checkedFiatAmount(input.fiat_amount, input.fiat_currency);
    if (input.webhook_url && this.deps.config.enforceWebhookTargets) {
      const problem = await liveWebhookTargetProblem(input.webhook_url);
      if (problem) throw new ServiceProblem('invalid_request', `webhook_url: ${problem}.`, 'webhook_url');
    }
    const { amountInUsd, quote } = await this.pricing.lockRate(amount, input.fiat_currency);
    const now = this.deps.clock();
    const expiresAt = new Date(now.getTime() + this.deps.config.expiryMs);
    const row: TransactionRow = {
      transaction_code: randomUUID(),
      status: 'pending',
      external_reference: input.external_reference,
      fiat_amount: amount,
      fiat_currency: input.fiat_currency,
      usd_rate: quote.usdPerUnit,
      rate_source: quote.source.slice(0, 128),
      rate_sources: quote.sources.join(',').slice(0, 256),
      rate_as_of: quote.asOf,
      rate_spread_percent: quote.spreadPercent,
      payment_tolerance_percent: this.deps.config.paymentTolerancePercent,
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
      payout_by_forward: this.deps.rails.paysOutByForward?.({
        address: input.customer.wallet_address,
        asset: input.customer.crypto_currency,
        network: input.customer.crypto_currency_network,
      })
        ? 1
        : 0,
    };
    await this.repository.insert(row);
    this.deps.logger.info(
      { transactionCode: row.transaction_code, reference: row.external_reference, amountInUsd },
      'checkout created',
    );
    const wallet = {
      address: input.customer.wallet_address,
      asset: input.customer.crypto_currency,
      network: input.customer.crypto_currency_network,
    };
    // The options answered below then say why a wallet cannot be paid (a Solana token account).
    await this.deps.rails.inspectWallet?.(wallet);
    return {
      transaction_code: row.transaction_code,
      status: 'pending',
      amount_in_usd: Number(amountInUsd),
      checkout_url: checkoutUrlOf(this.deps.publicUrl(), row.transaction_code),
      payment_options: await this.pricing.priceRails(
        amountInUsd,
        amount,
        input.fiat_currency,
        undefined,
        wallet,
      ),
      expires_at: row.expires_at,
    };
  }

  /** `GET /transaction`: the authoritative state, brought up to date first. */
  async getTransaction(transactionCode: string): Promise<Transaction> {
    const { row, payments } = await this.states.applyDueTransition(transactionCode);
    return transactionLookup(row, payments, this.deps.publicUrl());
  }

  /** The transaction with the URLs the lookup object leaves out and what is due by each rail (hosted page). */
  async getCheckoutDetails(transactionCode: string): Promise<CheckoutDetails> {
    const { row, payments } = await this.states.applyDueTransition(transactionCode);
    return {
      transaction: transactionLookup(row, payments, this.deps.publicUrl()),
      successUrl: row.success_url,
      cancelUrl: row.cancel_url,
      webhookUrl: row.webhook_url,
      paymentOptions: (await this.pricing.priceWhatIsDue(row, undefined, payments)).options,
    };
  }

  /**
   * A transaction brought up to date, as stored and as looked up, with every rail priced for the
   * whole order at its locked USD amount (the operator dashboard's detail).
   * @throws ServiceProblem `not_found`.
   */
  async getStoredWithPricing(
    transactionCode: string,
  ): Promise<StoredTransaction & { transaction: Transaction; paymentOptions: PaymentOption[] }> {
    const { row, payments } = await this.states.applyDueTransition(transactionCode);
    return {
      row,
      payments,
      transaction: transactionLookup(row, payments, this.deps.publicUrl()),
      paymentOptions: await this.pricing
        .priceRails(row.amount_in_usd, row.fiat_amount, row.fiat_currency, undefined, walletOf(row))
        // A rate source that is down must not hide the rest of the record from the operator.
        .catch(() => []),
    };
  }

  /**
   * `GET /payment_link`: instructions for paying what is still due by one rail; `clientIp` is
   * counted by live mode's new-hold limits.
   */
  async paymentLink(transactionCode: string, paymentMethod: string, clientIp?: string): Promise<PaymentLink> {
    const { row, payments } = await this.states.applyDueTransition(transactionCode);
    return this.instructions.forRail(row, paymentMethod, clientIp, payments);
  }

  /** Sandbox: simulates a payment (see {@link SandboxPayments.pay}) and returns the lookup after it. */
  async sandboxPay(request: SandboxPayment): Promise<Transaction> {
    await this.sandbox.pay(request);
    return this.getTransaction(request.transaction_code);
  }

  /** Records a payment reported by a rail provider and updates the state. */
  async recordPayment(payment: ObservedPayment): Promise<void> {
    await this.recorder.record(payment);
  }

  /** Makes a payment a provider recorded as awaiting confirmation final (see {@link PaymentRecorder.confirm}). */
  async confirmPayment(
    transactionCode: string,
    paymentId: string,
    alongside?: AlongsideWrite,
  ): Promise<void> {
    await this.recorder.confirm(transactionCode, paymentId, alongside);
  }

  /** Removes an unconfirmed payment whose block left the chain (see {@link PaymentRecorder.retract}). */
  async retractPayment(
    transactionCode: string,
    paymentId: string,
    alongside?: AlongsideWrite,
  ): Promise<void> {
    await this.recorder.retract(transactionCode, paymentId, alongside);
  }

  /**
   * Stores the transition that has come due for one transaction (confirmations, expiry, settlement
   * with its webhook queued) and returns it as it now stands.
   */
  applyDueTransition(transactionCode: string): Promise<StoredTransaction> {
    return this.states.applyDueTransition(transactionCode);
  }

  /** Applies due expiries and confirmations of every open transaction (the background sweep). */
  sweep(): Promise<number> {
    return this.states.sweep();
  }
}
