import type { OperatorRefundDetail, OperatorRefundPage, RefundStatus } from '@cryptocheckout/core';
import type { RefundFilter } from '../db/refund-repository.js';
import { decodeCursorParts, encodeCursor } from './cursor.js';
import type { RefundService } from './refund-service.js';
import { claimUrlOf } from './refund-views.js';
import { ServiceProblem } from './service-problem.js';

/** The operator's view of refunds (docs/operator-dashboard.md "Refunds"). */
export class OperatorRefunds {
  constructor(
    private readonly refunds: RefundService,
    private readonly publicUrl: () => string,
  ) {}

  /** Newest first, `limit` a page; `cursor` from the previous page. */
  async list(filter: RefundFilter, cursor: string | undefined, limit: number): Promise<OperatorRefundPage> {
    const after = cursor ? decodeCursorParts(cursor, ['string', 'string']) : null;
    const rows = await this.refunds.repository.list(
      filter,
      after ? { createdAt: after[0] as string, refundId: after[1] as string } : null,
      limit + 1,
    );
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      items: page.map((row) => ({
        refund_id: row.refund_id,
        transaction_code: row.transaction_code,
        external_reference: row.external_reference,
        reference: row.reference,
        status: row.status as RefundStatus,
        amount: row.amount,
        asset: row.asset,
        network: row.network,
        fiat_amount: row.fiat_amount,
        fiat_currency: row.fiat_currency,
        address: row.address,
        created_at: row.created_at,
        paid_at: row.paid_at,
        created_by: row.created_by,
      })),
      next_cursor: rows.length > limit && last ? encodeCursor([last.created_at, last.refund_id]) : null,
    };
  }

  /** The refund with its claim link and who created and cancelled it. @throws ServiceProblem `not_found`. */
  async detail(refundId: string): Promise<OperatorRefundDetail> {
    const refund = await this.refunds.get(refundId);
    const row = await this.refunds.repository.find(refund.refund_id);
    if (!row) throw new ServiceProblem('not_found', `No refund ${refundId}.`, 'refund_id');
    return {
      ...refund,
      claim_url: claimUrlOf(this.publicUrl(), row.claim_code),
      created_by: row.created_by,
      cancelled_by: row.cancelled_by,
    };
  }
}
