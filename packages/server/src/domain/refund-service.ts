import { randomBytes, randomUUID } from 'node:crypto';
import {
  compareDecimals,
  type Refund,
  type RefundCreated,
  type RefundCreateRequest,
  type RefundsOfTransaction,
} from '@cryptocheckout/core';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { type ResolvedConfig, transactionExplorerUrl } from '../config.js';
import { RefundRepository, type RefundRow } from '../db/refund-repository.js';
import type { DatabaseSchema } from '../db/schema.js';
import { TransactionRepository, type TransactionRow } from '../db/transaction-repository.js';
import { RAILS } from '../rails/catalog.js';
import type { PaymentRailProvider } from '../rails/payment-rail-provider.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';
import { contentionPause, MAX_WRITE_ATTEMPTS } from './contention.js';
import { actorMayRefund, actorName, type RefundActor } from './merchant-keys.js';
import type { Pricing } from './pricing.js';
import { receivedInAsset, refundAmountOf, refundableOf } from './refund-amounts.js';
import { claimUrlOf, paymentRequestOf, refundView } from './refund-views.js';
import { ServiceProblem } from './service-problem.js';

/** How long the buyer has to confirm an address before an unclaimed refund expires. */
export const CLAIM_DAYS = 30;

export interface RefundServiceDependencies {
  db: Kysely<DatabaseSchema>;
  config: ResolvedConfig;
  pricing: Pricing;
  /** The payment rails, for the wallet link's token on a configured chain. */
  rails: PaymentRailProvider;
  outbox: WebhookOutbox;
  clock: () => Date;
  logger: Logger;
  publicUrl: () => string;
}

/**
 * Refunds (docs/refunds.md): created with a credential for a settled order, claimed by the buyer
 * with an address, paid by the merchant from their own wallet, seen paid by the watcher or the
 * sandbox control; each change a compare-and-set on the refund's version.
 */
export class RefundService {
  readonly repository: RefundRepository;
  readonly transactions: TransactionRepository;

  constructor(readonly deps: RefundServiceDependencies) {
    this.repository = new RefundRepository(deps.db);
    this.transactions = new TransactionRepository(deps.db);
  }

  /**
   * Creates a refund, or answers the one `reference` already names.
   * @throws ServiceProblem `not_found`, `forbidden` (another shop's order), `conflict` (not settled,
   *   reference reused for another amount), `unprocessable` (more than is left to refund, naming `amount`).
   */
  async create(actor: RefundActor, request: RefundCreateRequest): Promise<RefundCreated> {
    const row = await this.transactionFor(actor, request.transaction_code);
    if (row.status !== 'settled') {
      throw new ServiceProblem(
        'conflict',
        `Only a settled order can be refunded; this one is ${row.status}.`,
        'transaction_code',
      );
    }
    const stored = (await this.transactions.find(row.transaction_code))!;
    const usdPerUnit = await this.deps.pricing.usdPerUnit(row.wallet_currency);
    const asked = refundAmountOf(row, request, usdPerUnit);
    const received = receivedInAsset(row, stored.payments, usdPerUnit);
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      if (attempt > 0) await contentionPause(attempt);
      const refunds = await this.repository.ofTransaction(row.transaction_code);
      const same = request.reference
        ? refunds.find((refund) => refund.reference === request.reference)
        : undefined;
      if (same) {
        assertSameAmount(same, asked);
        return { ...(await this.created(same, row)), created: false };
      }
      const refundable = refundableOf(received, refunds);
      if (compareDecimals(asked.amount, refundable) > 0) {
        throw new ServiceProblem(
          'unprocessable',
          `amount ${asked.amount} ${row.wallet_currency} is more than is left to refund: at most ${refundable} ${row.wallet_currency} (received ${received}, less earlier refunds).`,
          'amount',
        );
      }
      const now = this.deps.clock();
      const refund: RefundRow = {
        refund_id: randomUUID(),
        transaction_code: row.transaction_code,
        sequence: refunds.reduce((highest, each) => Math.max(highest, each.sequence), 0) + 1,
        reference: request.reference ?? null,
        status: 'awaiting_address',
        amount: asked.amount,
        asset: row.wallet_currency,
        network: row.wallet_network,
        fiat_amount: asked.fiatAmount,
        fiat_currency: row.fiat_currency,
        reason: request.reason ?? null,
        claim_code: randomBytes(32).toString('base64url'),
        claim_expires_at: new Date(now.getTime() + CLAIM_DAYS * 86_400_000).toISOString(),
        address: null,
        address_confirmed_at: null,
        tx_id: null,
        paid_at: null,
        cancelled_at: null,
        created_at: now.toISOString(),
        created_by: actorName(actor),
        cancelled_by: null,
        version: 1,
      };
      const inserted = await this.repository.write((scope) =>
        this.repository.insert(scope, refund, `created by ${refund.created_by}`),
      );
      if (!inserted) continue;
      this.deps.logger.info(
        {
          refundId: refund.refund_id,
          transactionCode: row.transaction_code,
          amount: refund.amount,
          asset: refund.asset,
        },
        'refund created',
      );
      return { ...(await this.created(refund, row)), created: true };
    }
    throw new ServiceProblem(
      'unavailable',
      'Refunds of this order are being created by many requests at once; try again.',
    );
  }

  /**
   * Cancels a refund not yet paid.
   * @throws ServiceProblem `not_found`, `forbidden`, `conflict` when it is paid, cancelled or expired.
   */
  async cancel(actor: RefundActor, refundId: string, reason: string | undefined): Promise<Refund> {
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      const refund = await this.found(refundId);
      await this.transactionFor(actor, refund.transaction_code);
      if (refund.status !== 'awaiting_address' && refund.status !== 'awaiting_payment') {
        throw new ServiceProblem(
          'conflict',
          `The refund is ${refund.status}; only a refund not yet paid can be cancelled.`,
        );
      }
      const now = this.deps.clock().toISOString();
      const by = actorName(actor);
      const changed = await this.repository.write((scope) =>
        this.repository.changeStatus(
          scope,
          refund,
          { status: 'cancelled', cancelled_at: now, cancelled_by: by },
          now,
          reason ? `cancelled by ${by}: ${reason}` : `cancelled by ${by}`,
        ),
      );
      if (changed) return this.get(refundId);
    }
    throw new ServiceProblem(
      'unavailable',
      'The refund is being changed by many requests at once; try again.',
    );
  }

  /** @throws ServiceProblem `not_found`. */
  async get(refundId: string): Promise<Refund> {
    const refund = await this.expireIfDue(await this.found(refundId));
    const transaction = (await this.transactions.find(refund.transaction_code))!.row;
    return this.view(refund, transaction.external_reference);
  }

  /** The refunds of one order with what was received and what is left. @throws ServiceProblem `not_found`. */
  async ofTransaction(transactionCode: string): Promise<RefundsOfTransaction> {
    const stored = await this.transactions.find(transactionCode);
    if (!stored)
      throw new ServiceProblem('not_found', `No transaction ${transactionCode}.`, 'transaction_code');
    const { row, payments } = stored;
    const refunds = await Promise.all(
      (await this.repository.ofTransaction(row.transaction_code)).map((refund) => this.expireIfDue(refund)),
    );
    const received =
      row.status === 'settled'
        ? receivedInAsset(row, payments, await this.deps.pricing.usdPerUnit(row.wallet_currency))
        : '0';
    const events = await this.repository.events(refunds.map((refund) => refund.refund_id));
    return {
      transaction_code: row.transaction_code,
      asset: row.wallet_currency,
      network: row.wallet_network,
      received,
      refundable: refundableOf(received, refunds),
      refunds: refunds.map((refund) =>
        refundView(refund, row.external_reference, events.get(refund.refund_id) ?? [], this.links(refund)),
      ),
    };
  }

  /** Expires refunds whose claim ended unclaimed (the background sweep). @returns how many. */
  async sweep(): Promise<number> {
    const ended = await this.repository.claimsEnded(this.deps.clock().toISOString(), 200);
    for (const refund of ended) await this.expireIfDue(refund);
    return ended.length;
  }

  /** The refund as it is now: expired first when its claim ended unclaimed. */
  async expireIfDue(refund: RefundRow): Promise<RefundRow> {
    const now = this.deps.clock().toISOString();
    if (refund.status !== 'awaiting_address' || refund.claim_expires_at > now) return refund;
    await this.repository.write((scope) =>
      this.repository.changeStatus(
        scope,
        refund,
        { status: 'expired' },
        now,
        `the buyer did not confirm an address within ${CLAIM_DAYS} days`,
      ),
    );
    return (await this.repository.find(refund.refund_id))!;
  }

  /** @throws ServiceProblem `not_found`. */
  async found(refundId: string): Promise<RefundRow> {
    const refund = await this.repository.find(refundId.toLowerCase());
    if (!refund) throw new ServiceProblem('not_found', `No refund ${refundId}.`, 'refund_id');
    return refund;
  }

  private async transactionFor(actor: RefundActor, transactionCode: string): Promise<TransactionRow> {
    const stored = await this.transactions.find(transactionCode);
    if (!stored)
      throw new ServiceProblem('not_found', `No transaction ${transactionCode}.`, 'transaction_code');
    if (!actorMayRefund(actor, stored.row.wallet_address)) {
      throw new ServiceProblem(
        'forbidden',
        "This merchant key may refund only orders paid to the wallets it was issued for; ask the operator for a key that names this order's wallet.",
        'transaction_code',
      );
    }
    return stored.row;
  }

  private async created(refund: RefundRow, row: TransactionRow): Promise<Omit<RefundCreated, 'created'>> {
    return {
      ...(await this.view(refund, row.external_reference)),
      claim_url: claimUrlOf(this.deps.publicUrl(), refund.claim_code),
    };
  }

  private async view(refund: RefundRow, externalReference: string): Promise<Refund> {
    const events = await this.repository.events([refund.refund_id]);
    return refundView(refund, externalReference, events.get(refund.refund_id) ?? [], this.links(refund));
  }

  /** The refund's explorer link and payment request, with the live network's token when it has one. */
  links(refund: RefundRow) {
    const rail = RAILS.find((each) => each.network === refund.network && each.asset === refund.asset);
    return {
      txUrl: refund.tx_id ? transactionExplorerUrl(this.deps.config, refund.network, refund.tx_id) : null,
      // The same wallet link target as the checkout's own instructions (a configured token on a test chain).
      paymentRequest: paymentRequestOf(refund, rail && this.deps.rails.tokenOverride?.(rail)),
    };
  }
}

/** A reused reference must ask for the same amount. @throws ServiceProblem `conflict` naming `reference`. */
function assertSameAmount(existing: RefundRow, asked: { amount: string; fiatAmount: string | null }): void {
  const same =
    asked.fiatAmount !== null
      ? existing.fiat_amount !== null && compareDecimals(existing.fiat_amount, asked.fiatAmount) === 0
      : compareDecimals(existing.amount, asked.amount) === 0;
  if (!same) {
    throw new ServiceProblem(
      'conflict',
      `reference "${existing.reference}" already names a refund of ${existing.amount} ${existing.asset}; use a new reference for another refund.`,
      'reference',
    );
  }
}
