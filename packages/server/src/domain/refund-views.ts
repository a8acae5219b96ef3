import {
  getNetwork,
  REFUND_PAID_EVENT,
  type Refund,
  type RefundPaidWebhook,
  type RefundStatus,
} from '@cryptocheckout/core';
import type { RefundEventRow, RefundRow } from '../db/refund-repository.js';
import { paymentUri } from '../rails/payment-uri.js';
import { refundReference } from '../rails/solana/solana-addresses.js';

/** The buyer's claim page of a refund under the server's public origin. */
export function claimUrlOf(publicUrl: string, claimCode: string): string {
  return `${publicUrl}/refund/${claimCode}`;
}

/** What the merchant sends: the sentence and the wallet link, once the buyer confirmed an address. */
export function paymentRequestOf(refund: RefundRow, override?: { contract: string; chainId?: number }) {
  if (refund.address === null) return null;
  const networkName = getNetwork(refund.network)?.name ?? refund.network;
  return {
    text: `Send ${refund.amount} ${refund.asset} on ${networkName} to ${refund.address}`,
    uri: paymentUri(
      refund.network,
      refund.asset,
      refund.address,
      refund.amount,
      'Refund',
      override,
      // On Solana the refund's own reference tells its payment apart (docs/solana.md "Refunds").
      refund.network === 'SOLANA'
        ? { reference: refundReference(refund.refund_id), message: 'Refund' }
        : undefined,
    ),
  };
}

/** The `GET /api/refund` object of a stored refund (docs/refunds.md). */
export function refundView(
  refund: RefundRow,
  externalReference: string,
  events: readonly RefundEventRow[],
  links: { txUrl: string | null; paymentRequest: ReturnType<typeof paymentRequestOf> },
): Refund {
  return {
    refund_id: refund.refund_id,
    transaction_code: refund.transaction_code,
    external_reference: externalReference,
    reference: refund.reference,
    status: refund.status as RefundStatus,
    amount: refund.amount,
    asset: refund.asset,
    network: refund.network,
    fiat_amount: refund.fiat_amount,
    fiat_currency: refund.fiat_currency,
    reason: refund.reason,
    address: refund.address,
    payment_request: refund.status === 'awaiting_payment' ? links.paymentRequest : null,
    tx_id: refund.tx_id,
    tx_url: links.txUrl,
    created_at: refund.created_at,
    claim_expires_at: refund.claim_expires_at,
    address_confirmed_at: refund.address_confirmed_at,
    paid_at: refund.paid_at,
    cancelled_at: refund.cancelled_at,
    history: events.map((event) => ({
      status: event.status as RefundStatus,
      at: event.at,
      note: event.note,
    })),
  };
}

/** The body of the `refund.paid` webhook of a refund just paid. */
export function refundPaidWebhook(
  refund: RefundRow,
  externalReference: string,
  now: Date,
): RefundPaidWebhook {
  return {
    event: REFUND_PAID_EVENT,
    refund_id: refund.refund_id,
    transaction_code: refund.transaction_code,
    external_reference: externalReference,
    reference: refund.reference,
    amount: refund.amount,
    asset: refund.asset,
    network: refund.network,
    address: refund.address ?? '',
    tx_id: refund.tx_id ?? '',
    timestamp: Math.floor(now.getTime() / 1000),
  };
}
