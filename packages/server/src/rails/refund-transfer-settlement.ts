import type { Logger } from 'pino';
import type { RefundTransferRow } from '../db/refund-repository.js';
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
