import type { RefundStatus } from '@cryptocheckout/core';
import type { RefundClaimView } from '@cryptocheckout/pay-page';
import type { RefundRow } from '../db/refund-repository.js';
import type { TransactionRow } from '../db/transaction-repository.js';
import { MAX_WRITE_ATTEMPTS } from './contention.js';
import { RefundAddressCheck, type RefundAddressRefusal } from './refund-addresses.js';
import type { RefundService } from './refund-service.js';
import { ServiceProblem } from './service-problem.js';

/** The buyer's side of a refund: found by its claim code, given an address once (docs/refunds.md). */
export class RefundClaims {
  private readonly addresses: RefundAddressCheck;

  constructor(private readonly refunds: RefundService) {
    this.addresses = new RefundAddressCheck(refunds.deps.db, refunds.deps.config, refunds.deps.rails);
  }

  /** The refund a claim code names, brought up to date; undefined for an unknown code. */
  async byClaim(claimCode: string): Promise<{ refund: RefundRow; transaction: TransactionRow } | undefined> {
    const found = await this.refunds.repository.findByClaim(claimCode);
    if (!found) return undefined;
    const refund = await this.refunds.expireIfDue(found);
    return { refund, transaction: (await this.refunds.transactions.find(refund.transaction_code))!.row };
  }

  /** What the claim page shows of the refund a claim code names; undefined for an unknown code. */
  async view(claimCode: string): Promise<RefundClaimView | undefined> {
    const claimed = await this.byClaim(claimCode);
    if (!claimed) return undefined;
    const { refund, transaction } = claimed;
    const shopUrl = transaction.success_url ?? transaction.cancel_url ?? transaction.webhook_url;
    return {
      claimCode,
      status: refund.status as RefundStatus,
      merchantDomain: shopUrl ? new URL(shopUrl).hostname : null,
      externalReference: transaction.external_reference,
      amount: refund.amount,
      asset: refund.asset,
      network: refund.network,
      fiatAmount: refund.fiat_amount,
      fiatCurrency: refund.fiat_currency,
      address: refund.address,
      claimExpiresAt: refund.claim_expires_at,
      paidAt: refund.paid_at,
      txId: refund.tx_id,
      txUrl: this.refunds.links(refund).txUrl,
      mode: this.refunds.deps.config.mode,
    };
  }

  /**
   * Why a well-formed address cannot take this refund (the zero address, a token contract, an
   * address of this service, the shop's own wallet); undefined when it can, or for an unknown code.
   */
  async addressRefusal(claimCode: string, address: string): Promise<RefundAddressRefusal | undefined> {
    const claimed = await this.byClaim(claimCode);
    if (!claimed) return undefined;
    return this.addresses.refusal(
      { network: claimed.refund.network, shopWallet: claimed.transaction.wallet_address },
      address,
    );
  }

  /** Stores the buyer's confirmed address, only while the refund awaits one: it never changes afterwards. */
  async confirmAddress(
    claimCode: string,
    address: string,
  ): Promise<'confirmed' | 'not_awaiting_address' | 'not_found'> {
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      const claimed = await this.byClaim(claimCode);
      if (!claimed) return 'not_found';
      const { refund } = claimed;
      if (refund.status !== 'awaiting_address') return 'not_awaiting_address';
      const now = this.refunds.deps.clock().toISOString();
      const changed = await this.refunds.repository.write((scope) =>
        this.refunds.repository.changeStatus(
          scope,
          refund,
          { status: 'awaiting_payment', address, address_confirmed_at: now },
          now,
          `address confirmed by the buyer: ${address}`,
        ),
      );
      if (changed) {
        this.refunds.deps.logger.info({ refundId: refund.refund_id }, 'refund address confirmed');
        return 'confirmed';
      }
    }
    throw new ServiceProblem(
      'unavailable',
      'The refund is being changed by many requests at once; try again.',
    );
  }
}
