import { decimalToScaled, scaledToDecimal } from '@cryptocheckout/core';
import type { Insertable } from 'kysely';
import type { Logger } from 'pino';
import type { RefundRow, RefundTransferRow } from '../db/refund-repository.js';
import type { RefundTransfersTable } from '../db/schema.js';
import type { RefundPayments } from '../domain/refund-payments.js';

/**
 * Makes a recorded transfer to a refund address final: it pays the refund when it was the exact
 * amount after the address was confirmed, and is kept as seen otherwise (docs/refunds.md "Paying it").
 * Shared by every chain family.
 */
export async function confirmRefundTransfer(
  payments: RefundPayments,
  transfer: RefundTransferRow,
): Promise<void> {
  const repository = payments.refunds.repository;
  const refund = await repository.find(transfer.refund_id);
  const paid =
    transfer.exact === 1 &&
    refund !== undefined &&
    (await payments.markPaid(refund, {
      txId: transfer.tx_hash,
      note: `paid by ${transfer.tx_hash} (${transfer.amount} ${refund.asset} from ${transfer.from_address})`,
      alongside: (scope) => repository.markTransferConfirmed(transfer, scope),
    }));
  if (!paid) await repository.markTransferConfirmed(transfer);
}

/** Forgets a transfer to a refund address that left the chain before it was final, so it never pays twice. */
export async function forgetRefundTransfer(
  payments: RefundPayments,
  transfer: RefundTransferRow,
  logger: Logger,
  why: string,
): Promise<void> {
  logger.warn({ network: transfer.network, txHash: transfer.tx_hash, refundId: transfer.refund_id }, why);
  await payments.refunds.repository.deleteTransfer(transfer);
}

/**
 * Records a transfer that reached a refund's confirmed address once, and whether it pays the refund:
 * its exact amount, and made after the address was confirmed (within `clockSlackMs`, for block
 * producers' clocks). A transfer of another amount is kept and logged; the refund stays unpaid.
 * Shared by every chain family. @returns whether it was recorded now (false: recorded before).
 */
export async function storeRefundTransfer(
  payments: RefundPayments,
  logger: Logger,
  refund: RefundRow,
  transfer: Omit<Insertable<RefundTransfersTable>, 'refund_id' | 'amount' | 'exact' | 'confirmed'> & {
    baseUnits: bigint;
    decimals: number;
    clockSlackMs: number;
  },
): Promise<boolean> {
  const { baseUnits, decimals, clockSlackMs, ...row } = transfer;
  const exact =
    baseUnits === decimalToScaled(refund.amount, decimals) &&
    Date.parse(row.block_time) >= Date.parse(refund.address_confirmed_at ?? '') - clockSlackMs;
  const recorded = await payments.refunds.repository.insertTransfer({
    ...row,
    refund_id: refund.refund_id,
    amount: scaledToDecimal(baseUnits, decimals),
    exact: exact ? 1 : 0,
    confirmed: 0,
  });
  if (recorded && !exact) {
    logger.warn(
      { network: row.network, refundId: refund.refund_id, txHash: row.tx_hash, expected: refund.amount },
      "a transfer to a refund's address is not the refund's exact amount (or came before the address was confirmed); the refund stays unpaid",
    );
  }
  return recorded;
}

/**
 * A chain family's refund transfers once recorded: the unconfirmed ones on its network, made final
 * (paying the refund when exact) or forgotten when they left the chain, with the family's reason.
 */
export class RefundTransfersOfNetwork {
  constructor(
    protected readonly network: string,
    protected readonly payments: RefundPayments,
    protected readonly logger: Logger,
    /** What the log says when a transfer is forgotten. */
    private readonly forgetReason: string,
  ) {}

  unconfirmed(): Promise<RefundTransferRow[]> {
    return this.payments.refunds.repository.unconfirmedTransfers(this.network);
  }

  confirm(transfer: RefundTransferRow): Promise<void> {
    return confirmRefundTransfer(this.payments, transfer);
  }

  forget(transfer: RefundTransferRow): Promise<void> {
    return forgetRefundTransfer(this.payments, transfer, this.logger, this.forgetReason);
  }
}
