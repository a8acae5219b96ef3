import type { OperatorRefundDetail } from '@cryptocheckout/core';
import { qrGeometry } from '@cryptocheckout/pay-page/qr';
import { describe, expect, it } from 'vitest';
import {
  type FakeAnswer,
  type FakeRequest,
  openFakeDashboard,
  refundOf,
  settle,
} from '../fake-api.test-helpers.js';
import { formatLocalDateTime } from '../format.js';

// One refund's page in each state, and cancelling it, against a scripted API.

const ADDRESS = '0x1111222233334444555566667777888899990000';
const URI = `ethereum:0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359@137/transfer?address=${ADDRESS}&uint256=12500000`;
const TX = `0x${'9'.repeat(64)}`;
const waiting = refundOf();
const awaitingPayment = refundOf({
  status: 'awaiting_payment',
  address: ADDRESS,
  address_confirmed_at: '2026-03-02T09:00:00.000Z',
  payment_request: { text: `Send 12.5 USDC on Polygon to ${ADDRESS}`, uri: URI },
  history: [
    { status: 'awaiting_address', at: '2026-03-01T10:00:00.000Z', note: null },
    { status: 'awaiting_payment', at: '2026-03-02T09:00:00.000Z', note: 'address confirmed by the buyer' },
  ],
});
const paid = refundOf({
  ...awaitingPayment,
  status: 'paid',
  payment_request: null,
  tx_id: TX,
  tx_url: `https://polygonscan.com/tx/${TX}`,
  paid_at: '2026-03-02T10:00:00.000Z',
});
const cancelled = refundOf({
  status: 'cancelled',
  cancelled_at: '2026-03-01T12:00:00.000Z',
  cancelled_by: 'merchant key Shop A',
});

const path = `/api/operator/refunds/${waiting.refund_id}`;

/** Opens the refund's page; `refund()` is what the server holds now, `onPost` answers the cancel. */
function openRefund(
  refund: () => OperatorRefundDetail,
  onPost: (request: FakeRequest) => FakeAnswer | Promise<FakeAnswer> = () => ({ data: refund() }),
  hash = `#/refunds/${waiting.refund_id}`,
) {
  return openFakeDashboard(hash, (request) => {
    if (request.method === 'POST') return onPost(request);
    if (request.path === path) return { data: refund() };
    return undefined;
  });
}

const dd = (page: ReturnType<typeof openRefund>, term: string) => {
  const dt = [...page.doc.querySelectorAll('.summary dt')].find((item) => item.textContent === term);
  return dt?.nextElementSibling?.textContent ?? null;
};

describe('refund page', () => {
  it('awaiting the address: the claim link first, with a copy button, and Cancel', async () => {
    const page = openRefund(() => waiting);
    await settle(() => expect(page.text('h1')).toBe('Refund of 12.5 USDC Awaiting address'));
    expect(page.text('header nav a[aria-current="page"]')).toBe('Refunds');
    const claim = page.doc.querySelector('.callout')!;
    expect(claim.querySelector('h2')?.textContent).toBe('Claim link for the buyer');
    const link = page.doc.querySelector<HTMLAnchorElement>('#claim-url')!;
    expect(link.getAttribute('href')).toBe(waiting.claim_url);
    expect(link.textContent).toBe(waiting.claim_url);
    expect(claim.textContent).toContain(formatLocalDateTime(waiting.claim_expires_at));
    page.buttonsIn(claim, 'Copy link')[0]!.click();
    await settle(() => expect(claim.querySelector('.copy-status')?.textContent).toBe('Copied'));
    expect(await page.window.navigator.clipboard.readText()).toBe(waiting.claim_url);

    expect(dd(page, 'Amount')).toBe('12.5 USDC');
    expect(dd(page, 'Fiat amount')).toBe('11.50 EUR');
    expect(dd(page, 'Address')).toBe('Not confirmed by the buyer yet');
    expect(dd(page, 'Created')).toBe(`${formatLocalDateTime(waiting.created_at)} by operator token`);
    expect(dd(page, 'Chain transaction')).toBe('—');
    expect(page.doc.querySelector('#refund-history-table tbody')?.textContent).toContain('Awaiting address');
    expect(page.buttonsIn(page.doc, 'Cancel refund')).toHaveLength(1);
    expect(page.doc.querySelector('.qr')).toBeNull();
  });

  it('awaiting payment: the sentence, the wallet link, a QR code of it and the full address to copy', async () => {
    const page = openRefund(() => awaitingPayment);
    await settle(() => expect(page.text('h1')).toBe('Refund of 12.5 USDC Awaiting payment'));
    expect(page.doc.querySelector('#claim-url')).toBeNull();
    expect(page.text('#refund-payment-text')).toBe(`Send 12.5 USDC on Polygon to ${ADDRESS}`);
    const wallet = page.doc.querySelector<HTMLAnchorElement>('#refund-wallet-link')!;
    expect(wallet.textContent).toBe('Open in wallet');
    expect(wallet.getAttribute('href')).toBe(URI);
    expect(page.doc.querySelector('.qr path')?.getAttribute('d')).toBe(qrGeometry(URI).path);
    expect(dd(page, 'Address')).toContain(ADDRESS);
    page.buttonsIn(page.doc, 'Copy address')[0]!.click();
    await settle(async () => expect(await page.window.navigator.clipboard.readText()).toBe(ADDRESS));
    // The claim link stays reachable (the buyer's page shows the refund's state).
    expect(page.doc.querySelector('#summary-claim-url')?.getAttribute('href')).toBe(waiting.claim_url);
    expect(page.doc.querySelector('#refund-history-table tbody')?.textContent).toContain(
      'address confirmed by the buyer',
    );
    expect(page.buttonsIn(page.doc, 'Cancel refund')).toHaveLength(1);
  });

  it('never links a payment URI of a scheme that could run script', async () => {
    const page = openRefund(() => ({
      ...awaitingPayment,
      payment_request: { text: 'Send it', uri: 'javascript:alert(1)' },
    }));
    await settle(() => expect(page.text('#refund-payment-text')).toBe('Send it'));
    expect(page.doc.querySelector('#refund-wallet-link')).toBeNull();
  });

  it('paid: the chain transaction linked to the explorer, no payment request and no Cancel', async () => {
    const page = openRefund(() => paid);
    await settle(() => expect(page.text('h1')).toBe('Refund of 12.5 USDC Paid'));
    const link = [...page.doc.querySelectorAll<HTMLAnchorElement>('.summary a')].find(
      (item) => item.textContent === TX,
    )!;
    expect(link.getAttribute('href')).toBe(`https://polygonscan.com/tx/${TX}`);
    expect(dd(page, 'Paid')).toBe(formatLocalDateTime(paid.paid_at!));
    expect(page.doc.querySelector('.callout')).toBeNull();
    expect(page.buttonsIn(page.doc, 'Cancel refund')).toHaveLength(0);

    // A sandbox payment has an id and no explorer page.
    const sandbox = openRefund(() => ({ ...paid, tx_id: 'sandbox-refund-1', tx_url: null }));
    await settle(() => expect(dd(sandbox, 'Chain transaction')).toBe('sandbox-refund-1'));
  });

  it('cancelled: who cancelled it and when, and no Cancel', async () => {
    const page = openRefund(() => cancelled);
    await settle(() => expect(page.text('h1')).toBe('Refund of 12.5 USDC Cancelled'));
    expect(dd(page, 'Cancelled')).toBe(
      `${formatLocalDateTime(cancelled.cancelled_at!)} by merchant key Shop A`,
    );
    expect(page.buttonsIn(page.doc, 'Cancel refund')).toHaveLength(0);
    expect(page.doc.querySelector('#claim-url')).toBeNull();
  });

  it('says so when the refund does not exist', async () => {
    const page = openFakeDashboard('#/refunds/nope', () => undefined);
    await settle(() => expect(page.text('h1')).toBe('Refund not found'));
    expect(page.text('#alert')).toBe('No route /api/operator/refunds/nope');
  });
});

describe('cancelling a refund', () => {
  it('asks first, sends one request however often confirmed, and shows the 409 in the form', async () => {
    const refusal = 'The refund is paid; only a refund not yet paid can be cancelled.';
    let answer!: (value: FakeAnswer) => void;
    const page = openRefund(
      () => awaitingPayment,
      () =>
        new Promise<FakeAnswer>((resolve) => {
          answer = resolve;
        }),
    );
    await settle(() => expect(page.buttonsIn(page.doc, 'Cancel refund')).toHaveLength(1));
    const opener = page.buttonsIn(page.doc, 'Cancel refund')[0]!;
    opener.click();
    expect(opener.getAttribute('aria-expanded')).toBe('true');
    const reason = page.byLabel<HTMLInputElement>(page.doc, 'Reason (optional)');
    expect(page.doc.activeElement).toBe(reason);
    reason.value = ' buyer kept the parcel ';
    page.buttonsIn(page.doc, 'Continue')[0]!.click();
    expect(page.posts()).toEqual([]);
    expect(page.text('.confirm-question')).toBe(
      'Cancel this refund of 12.5 USDC? This cannot be undone. Reason: “buyer kept the parcel”.',
    );
    const confirm = page.buttonsIn(page.doc, 'Yes, cancel the refund')[0]!;
    expect(page.doc.activeElement).toBe(confirm);
    confirm.click();
    confirm.click();
    expect(confirm.disabled).toBe(true);
    await settle(() => expect(page.posts()).toHaveLength(1));
    expect(page.posts()[0]).toEqual({
      method: 'POST',
      path: `/api/refunds/${waiting.refund_id}/cancel`,
      body: { reason: 'buyer kept the parcel' },
      authorization: 'Bearer fake-operator-token',
    });
    answer({ status: 409, error: { code: 'conflict', message: refusal } });
    await settle(() => expect(page.text('#refund-cancel-form .form-error')).toBe(refusal));
    expect(page.doc.querySelector<HTMLElement>('#refund-cancel-form .confirm')!.hidden).toBe(true);
    expect(confirm.disabled).toBe(false);
    expect(page.text('#alert')).toBe('');
    expect(page.posts()).toHaveLength(1);
  });

  it('shows the refund cancelled once the server took it', async () => {
    let current = waiting;
    const page = openRefund(
      () => current,
      (request) => {
        current = cancelled;
        expect(request.body).toEqual({});
        return { data: cancelled };
      },
    );
    await settle(() => expect(page.buttonsIn(page.doc, 'Cancel refund')).toHaveLength(1));
    page.buttonsIn(page.doc, 'Cancel refund')[0]!.click();
    page.buttonsIn(page.doc, 'Continue')[0]!.click();
    page.buttonsIn(page.doc, 'Yes, cancel the refund')[0]!.click();
    await settle(() => expect(page.text('h1')).toBe('Refund of 12.5 USDC Cancelled'));
    expect(page.buttonsIn(page.doc, 'Cancel refund')).toHaveLength(0);
    expect(page.doc.activeElement).toBe(page.doc.querySelector('h1'));
  });

  it('closes with Close or Escape without sending anything', async () => {
    const page = openRefund(() => waiting);
    await settle(() => expect(page.buttonsIn(page.doc, 'Cancel refund')).toHaveLength(1));
    const opener = page.buttonsIn(page.doc, 'Cancel refund')[0]!;
    const form = page.doc.querySelector<HTMLFormElement>('#refund-cancel-form')!;
    opener.click();
    page.buttonsIn(form, 'Close')[0]!.click();
    expect(form.hidden).toBe(true);
    expect(page.doc.activeElement).toBe(opener);
    opener.click();
    form.dispatchEvent(new page.window.KeyboardEvent('keydown', { key: 'Escape', bubbles: true }) as never);
    expect(form.hidden).toBe(true);
    expect(opener.getAttribute('aria-expanded')).toBe('false');
    expect(page.posts()).toEqual([]);
  });
});

describe('arriving from the refund form', () => {
  it('says the refund was created, and drops the note from the address so a reload does not repeat it', async () => {
    const page = openRefund(() => waiting, undefined, `#/refunds/${waiting.refund_id}?created=new`);
    await settle(() => expect(page.text('h1')).toBe('Refund of 12.5 USDC Awaiting address'));
    expect(page.text('.note')).toMatch(/^Refund created\. Send the claim link to the buyer/);
    expect(page.window.location.hash).toBe(`#/refunds/${waiting.refund_id}`);

    const again = openRefund(() => waiting, undefined, page.window.location.hash);
    await settle(() => expect(again.text('h1')).toBe('Refund of 12.5 USDC Awaiting address'));
    expect(again.doc.querySelector('.note')).toBeNull();
  });

  it('says when the reference named an existing refund', async () => {
    const page = openRefund(() => waiting, undefined, `#/refunds/${waiting.refund_id}?created=existing`);
    await settle(() => expect(page.text('.note')).toMatch(/^This reference already named a refund/));
  });
});
