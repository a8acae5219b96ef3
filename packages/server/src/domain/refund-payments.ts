import { randomBytes } from 'node:crypto';
import type { Refund } from '@cryptocheckout/core';
import type { WriteScope } from '../db/database.js';
import type { RefundRow } from '../db/refund-repository.js';
import type { RefundService } from './refund-service.js';
import { refundPaidWebhook } from './refund-views.js';
import { ServiceProblem } from './service-problem.js';

/** A refund cancelled after its address was confirmed is still matched to a transfer this long. */
const PAID_AFTER_CANCEL_DAYS = 30;

/** A refund's payment as a rail (the watcher, the sandbox control) saw it. */
export interface RefundPayment {
  txId: string;
  note: string;
  /** Runs inside the same database transaction as the status change (the watcher's own record). */
  alongside?: (scope: WriteScope) => Promise<void>;
}

/** Refunds being paid: what a transfer may pay, marking one paid once with its webhook. */
export class RefundPayments {
  constructor(readonly refunds: RefundService) {}

  /**
   * Marks a refund paid by `payment` once, and queues its `refund.paid` webhook in the same commit. A
   * refund cancelled after its address was confirmed is marked paid too: the money left the wallet.
   * @returns false when it was not waiting for a payment (paid already, or never given an address).
   */
  async markPaid(refund: RefundRow, payment: RefundPayment): Promise<boolean> {
    if (refund.address === null || (refund.status !== 'awaiting_payment' && refund.status !== 'cancelled')) {
      return false;
    }
    const transaction = (await this.refunds.transactions.find(refund.transaction_code))!.row;
    const now = this.refunds.deps.clock();
    const paid: RefundRow = { ...refund, status: 'paid', tx_id: payment.txId, paid_at: now.toISOString() };
    const note = refund.status === 'cancelled' ? `${payment.note} (after it was cancelled)` : payment.note;
    const changed = await this.refunds.repository.write(async (scope) => {
      const won = await this.refunds.repository.changeStatus(
        scope,
        refund,
        { status: 'paid', tx_id: payment.txId, paid_at: paid.paid_at },
        now.toISOString(),
        note,
      );
      if (!won) return false;
      await payment.alongside?.(scope);
      if (transaction.webhook_url) {
        await this.refunds.deps.outbox.enqueue(scope, {
          transactionCode: transaction.transaction_code,
          url: transaction.webhook_url,
          body: JSON.stringify(refundPaidWebhook(paid, transaction.external_reference, now)),
        });
      }
      return true;
    });
    if (!changed) return false;
    this.refunds.deps.logger.info({ refundId: refund.refund_id, txId: payment.txId }, 'refund paid');
    void this.refunds.deps.outbox.kick();
    return true;
  }

  /**
   * Sandbox: pays a refund awaiting payment as the merchant would, with a made-up chain reference.
   * @throws ServiceProblem `not_found`, `conflict` unless it awaits payment.
   */
  async sandboxPay(refundId: string): Promise<Refund> {
    const refund = await this.refunds.found(refundId);
    if (refund.status !== 'awaiting_payment') {
      throw new ServiceProblem(
        'conflict',
        refund.status === 'awaiting_address'
          ? 'The buyer has not confirmed an address yet; open the claim link first.'
          : `The refund is ${refund.status}.`,
        'refund_id',
      );
    }
    const txId = `0x${randomBytes(32).toString('hex')}`;
    if (!(await this.markPaid(refund, { txId, note: `paid by the sandbox control (${txId})` }))) {
      throw new ServiceProblem('conflict', 'The refund changed meanwhile; look it up again.', 'refund_id');
    }
    return this.refunds.get(refundId);
  }

  /** Refunds on `network` a transfer may pay: awaiting payment, or cancelled recently after an address was confirmed. */
  async payable(network: string): Promise<RefundRow[]> {
    const since = new Date(
      this.refunds.deps.clock().getTime() - PAID_AFTER_CANCEL_DAYS * 86_400_000,
    ).toISOString();
    return this.refunds.repository.payable(network, since);
  }
}
