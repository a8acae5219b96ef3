import { join } from 'node:path';
import { decimalToScaled, type Refund } from '@cryptocheckout/core';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import { eventually, type TestServer } from './helpers.js';
import { OPERATOR_TOKEN } from './operator-helpers.js';

/** The operator's credential header, which creates and cancels refunds. */
export const AS_OPERATOR = { authorization: `Bearer ${OPERATOR_TOKEN}` };

/** `POST /api/refunds` with the operator token (or the given headers). */
export function createRefund(server: TestServer, body: Record<string, unknown>, headers = AS_OPERATOR) {
  return server.post('/api/refunds', body, headers);
}

/** Posts the claim page's form as a browser without JavaScript would. */
export function postClaimForm(claimUrl: string, fields: Record<string, string>) {
  return fetch(claimUrl, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

/** The buyer's two steps on the claim page: the address typed twice, then confirmed. */
export async function confirmRefundAddress(claimUrl: string, address: string) {
  const review = await postClaimForm(claimUrl, { step: 'check', address, address_again: address });
  expect(review.status).toBe(200);
  return postClaimForm(claimUrl, { step: 'confirm', address, confirmed: 'yes' });
}

/** `GET /api/refund` of one refund. */
export async function refundOf(server: TestServer, refundId: string): Promise<Refund> {
  return (await server.get(`/api/refund?refund_id=${refundId}`)).json.data as Refund;
}

/** The `refund.paid` webhooks `receiver` got for one refund, parsed. */
export function refundPaidWebhooks(receiver: { received: readonly { body: string }[] }, refundId: string) {
  return receiver.received
    .map((webhook) => JSON.parse(webhook.body))
    .filter((body) => body.event === 'refund.paid' && body.refund_id === refundId);
}

/** Waits until the refund is paid; returns it then. */
export function refundBecomesPaid(server: TestServer, refundId: string): Promise<Refund> {
  return eventually(async () => {
    const refund = await refundOf(server, refundId);
    expect(refund.status).toBe('paid');
    return refund;
  });
}

/**
 * The transfers to one refund's address a server stored (read-only, from its SQLite file in
 * `dataDir`), ordered by transaction and output; amounts in base units of `decimals`.
 */
export function storedRefundTransfers(dataDir: string, refundId: string, decimals: number) {
  const db = new Database(join(dataDir, 'cryptocheckout.sqlite'), { readonly: true, fileMustExist: true });
  try {
    const rows = db
      .prepare(
        'SELECT tx_hash, log_index, amount, exact, confirmed FROM refund_transfers WHERE refund_id = ? ORDER BY tx_hash, log_index',
      )
      .all(refundId) as Array<{
      tx_hash: string;
      log_index: number;
      amount: string;
      exact: number;
      confirmed: number;
    }>;
    return rows.map(({ amount, ...row }) => ({ ...row, units: decimalToScaled(amount, decimals) }));
  } finally {
    db.close();
  }
}
