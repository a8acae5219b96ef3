import { randomUUID } from 'node:crypto';
import type { Insertable } from 'kysely';
import type { Logger } from 'pino';
import type { ChainTransferRow, LiveRailRepository } from '../db/live-rail-repository.js';
import type { ChainTransfersTable } from '../db/schema.js';
import { isRefusedPayment, type PaymentSink } from './payment-rail-provider.js';

/**
 * How every chain family books an observed transfer: as a checkout's payment (the transfer stored
 * in the same database transaction, once across server nodes), or kept for the operator with the
 * reason (docs/operator-dashboard.md "Unmatched transfers").
 */
export class ChainTransferBooking {
  constructor(
    private readonly repository: LiveRailRepository,
    private readonly sink: PaymentSink,
    private readonly logger: Logger,
  ) {}

  /**
   * Records a payment with its transfer in one database transaction, unconfirmed (`processing`)
   * unless `confirmAt` is given; a payment the checkout refuses is kept with `refusal(message)`.
   */
  async countAsPayment(
    row: Insertable<ChainTransfersTable>,
    transactionCode: string,
    paymentMethod: string,
    refusal: (message: string) => string,
    confirmAt: Date | null = null,
  ): Promise<void> {
    const paymentId = randomUUID();
    let recordedElsewhere = false;
    try {
      await this.sink.recordPayment({
        transactionCode,
        paymentMethod,
        amount: row.amount,
        txId: row.tx_hash,
        seenAt: new Date(row.block_time),
        confirmAt,
        paymentId,
        alongside: async (scope) => {
          const stored = await this.repository.insertTransfer(
            { ...row, transaction_code: transactionCode, payment_id: paymentId },
            scope,
          );
          // Another node stored this transfer (and its payment) first: roll this payment back.
          if (!stored) {
            recordedElsewhere = true;
            throw new Error(`transfer ${row.tx_hash}:${row.log_index} is recorded already`);
          }
        },
      });
    } catch (error) {
      if (recordedElsewhere) return;
      if (!isRefusedPayment(error)) throw error;
      await this.keep({ ...row, transaction_code: transactionCode }, refusal((error as Error).message));
    }
  }

  /** Stores a transfer that pays no checkout, with the reason the operator reads. */
  async keep(row: Insertable<ChainTransfersTable>, reason: string): Promise<void> {
    await this.repository.insertTransfer({ ...row, unmatched_reason: reason });
    this.logger.warn(
      {
        network: row.network,
        txHash: row.tx_hash,
        amount: row.amount,
        asset: row.asset,
        to: row.to_address,
      },
      `${row.deposit ? 'deposit not counted' : 'unmatched transfer'}: ${reason}`,
    );
  }

  /** Makes a stored transfer final, and its payment with it in one database transaction. */
  async confirm(transfer: ChainTransferRow): Promise<void> {
    const key = keyOf(transfer);
    if (transfer.payment_id && transfer.transaction_code) {
      await this.sink.confirmPayment(transfer.transaction_code, transfer.payment_id, (scope) =>
        this.repository.markTransferConfirmed(key, scope),
      );
    } else {
      await this.repository.markTransferConfirmed(key);
    }
  }

  /** Forgets a stored transfer that left the chain before it was final, and un-counts its payment. */
  async retract(transfer: ChainTransferRow, why: string): Promise<void> {
    const key = keyOf(transfer);
    this.logger.warn(
      { network: transfer.network, txHash: transfer.tx_hash, block: String(transfer.block_number) },
      why,
    );
    if (transfer.payment_id && transfer.transaction_code && transfer.unmatched_reason === null) {
      try {
        await this.sink.retractPayment(transfer.transaction_code, transfer.payment_id, (scope) =>
          this.repository.deleteTransfer(key, scope),
        );
      } catch (error) {
        // Another server node took it back first (with the transfer, in one commit): nothing is left to do.
        if ((error as { code?: unknown }).code !== 'not_found') throw error;
        await this.repository.deleteTransfer(key);
      }
    } else {
      await this.repository.deleteTransfer(key);
    }
  }
}

function keyOf(transfer: ChainTransferRow) {
  return { network: transfer.network, txHash: transfer.tx_hash, logIndex: transfer.log_index };
}
