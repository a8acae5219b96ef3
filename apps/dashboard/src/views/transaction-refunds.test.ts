import type { RefundsOfTransaction, TransactionStatus } from '@cryptocheckout/core';
import { describe, expect, it } from 'vitest';
import {
  type FakeAnswer,
  type FakeRequest,
  openFakeDashboard,
  refundOf,
  settle,
} from '../fake-api.test-helpers.js';

// The Refunds section of a transaction's page and its Refund form, against a scripted API.

const CODE = 'TXN-REFUNDED-1';
const ADDRESS = '0x1111222233334444555566667777888899990000';

function detailOf(status: TransactionStatus) {
  return {
    transaction: {
      transaction_code: CODE,
      external_reference: 'ORD-77',
      status,
      late: false,
      fiat_amount: 20,
      fiat_currency: 'EUR',
      amount_in_usd: 21.7,
      received_usd: 21.7,
      wallet_address: `0x${'b'.repeat(40)}`,
      wallet_currency: 'USDC',
      wallet_network: 'POLYGON',
      payment_method: 'usdc_polygon',
      created_at: '2026-03-01T09:00:00.000Z',
      expires_at: '2026-03-01T10:00:00.000Z',
      settled_at: status === 'settled' ? '2026-03-01T09:05:00.000Z' : null,
      payout_dispatched: false,
      checkout_url: 'https://pay.example/x',
      payments: [],
    },
    webhook_url_origin: null,
    usd_rate: '1.085',
    rate_source: 'fixed',
    monitor_until: '2026-03-02T10:00:00.000Z',
    history: [],
    payments: [],
    payment_options: [],
    deliveries: [],
    chain_transfers: [],
  };
}

const existing = refundOf({ status: 'paid', address: ADDRESS, paid_at: '2026-03-02T10:00:00.000Z' });

function refundsOf(refundable: string, refunds = [existing]): RefundsOfTransaction {
  return { transaction_code: CODE, asset: 'USDC', network: 'POLYGON', received: '21.7', refundable, refunds };
}

/** The order's page; `onCreate` answers `POST /api/refunds`. */
function openOrder(
  status: TransactionStatus,
  refunds: RefundsOfTransaction,
  onCreate: (request: FakeRequest) => FakeAnswer | Promise<FakeAnswer> = () => ({
    status: 500,
    error: { code: 'x', message: 'x' },
  }),
) {
  return openFakeDashboard(`#/transactions/${CODE}`, (request) => {
    if (request.method === 'POST' && request.path === '/api/refunds') return onCreate(request);
    if (request.path === `/api/operator/transactions/${CODE}`) return { data: detailOf(status) };
    if (request.path === '/api/refunds' && request.query?.get('transaction_code') === CODE)
      return { data: refunds };
    if (request.path.startsWith('/api/operator/refunds/'))
      return { data: refundOf({ refund_id: request.path.split('/').pop()! }) };
    return undefined;
  });
}

const field = (page: ReturnType<typeof openOrder>, label: string) =>
  page.byLabel<HTMLInputElement>(page.doc, label);

describe('refunds of a transaction', () => {
  it('lists the refunds with received and refundable, and offers the form on a settled order', async () => {
    const page = openOrder('settled', refundsOf('9.2'));
    await settle(() =>
      expect(page.doc.querySelectorAll('#refunds-of-order-table tr[data-refund]')).toHaveLength(1),
    );
    expect(page.text('#order-refunds-heading')).toBe('Refunds');
    expect(page.text('.panel .totals')).toBe('Received 21.7 USDC · refundable 9.2 USDC');
    const cells = [...page.doc.querySelectorAll('#refunds-of-order-table tr[data-refund] td')].map(
      (td) => td.textContent,
    );
    expect(cells.slice(1, 6)).toEqual(['0b7c6f1e…', 'Paid', '12.5 USDC', '11.50 EUR', '0x1111…0000']);
    expect(page.doc.querySelector('#refunds-of-order-table a')?.getAttribute('href')).toBe(
      `#/refunds/${existing.refund_id}`,
    );
    // The read sends the order's code as the query.
    const read = page.requests.find((request) => request.path === '/api/refunds')!;
    expect(read.query?.get('transaction_code')).toBe(CODE);
    // Currency: the order's fiat currency or the paid asset.
    const currency = page.byLabel<HTMLSelectElement>(page.doc, 'Currency');
    expect([...currency.options].map((option) => option.value)).toEqual(['EUR', 'USDC']);
    expect(page.buttonsIn(page.doc, 'Create refund')).toHaveLength(1);
  });

  it('offers no form on an order not settled, or with nothing left to refund', async () => {
    const pending = openOrder('pending', refundsOf('0', []));
    await settle(() => expect(pending.text('#refunds-of-order-table tbody')).toBe('No refund yet.'));
    expect(pending.text('#order-refunds-heading + .totals + .table-wrap + div')).toBe(
      'Only a settled order can be refunded.',
    );
    expect(pending.buttonsIn(pending.doc, 'Create refund')).toHaveLength(0);

    const spent = openOrder('settled', refundsOf('0'));
    await settle(() =>
      expect(spent.doc.querySelectorAll('#refunds-of-order-table tr[data-refund]')).toHaveLength(1),
    );
    expect(spent.buttonsIn(spent.doc, 'Create refund')).toHaveLength(0);
    expect(spent.doc.querySelector('#order-refunds-heading')?.parentElement?.textContent).toContain(
      'Nothing is left to refund',
    );
  });

  it('creates a refund and opens its page with the claim link and a note that it was created', async () => {
    const created = refundOf({ refund_id: '2b7c6f1e-2d3a-4e5f-8a9b-0c1d2e3f4a5b' });
    let answer!: (value: FakeAnswer) => void;
    const page = openOrder(
      'settled',
      refundsOf('9.2'),
      () =>
        new Promise<FakeAnswer>((resolve) => {
          answer = resolve;
        }),
    );
    await settle(() => expect(page.buttonsIn(page.doc, 'Create refund')).toHaveLength(1));
    field(page, 'Amount').value = ' 11.50 ';
    field(page, 'Reason (optional)').value = 'damaged parcel';
    const submit = page.buttonsIn(page.doc, 'Create refund')[0]!;
    submit.click();
    submit.click();
    expect(submit.disabled).toBe(true);
    await settle(() => expect(page.posts()).toHaveLength(1));
    expect(page.posts()[0]).toEqual({
      method: 'POST',
      path: '/api/refunds',
      body: { transaction_code: CODE, amount: '11.5', currency: 'EUR', reason: 'damaged parcel' },
      authorization: 'Bearer fake-operator-token',
    });
    answer({ status: 201, data: { ...created, claim_url: created.claim_url, created: true } });
    await settle(() => expect(page.window.location.hash).toBe(`#/refunds/${created.refund_id}`));
    await settle(() => expect(page.text('h1')).toBe('Refund of 12.5 USDC Awaiting address'));
    expect(page.text('.note')).toMatch(/^Refund created/);
    expect(page.doc.querySelector('#claim-url')?.getAttribute('href')).toBe(created.claim_url);
  });

  it('shows a 422 on the amount at the amount field, and keeps what was typed', async () => {
    const message = 'At most 9.2 USDC (8.47 EUR) can still be refunded for this order.';
    const page = openOrder('settled', refundsOf('9.2'), () => ({
      status: 422,
      error: { code: 'unprocessable', message, field: 'amount' },
    }));
    await settle(() => expect(page.buttonsIn(page.doc, 'Create refund')).toHaveLength(1));
    field(page, 'Amount').value = '10';
    field(page, 'Your reference (optional)').value = 'RMA-1';
    page.buttonsIn(page.doc, 'Create refund')[0]!.click();
    await settle(() => expect(page.text('#refund-amount-error')).toBe(message));
    const amount = field(page, 'Amount');
    expect(amount.getAttribute('aria-invalid')).toBe('true');
    expect(amount.getAttribute('aria-describedby')).toBe('refund-amount-error');
    expect(page.doc.activeElement).toBe(amount);
    expect(amount.value).toBe('10');
    expect(page.posts()[0]!.body).toMatchObject({ amount: '10', currency: 'EUR', reference: 'RMA-1' });
    expect(page.text('#refund-currency-error')).toBe('');
    expect(page.window.location.hash).toBe(`#/transactions/${CODE}`);
    expect(page.buttonsIn(page.doc, 'Create refund')[0]!.disabled).toBe(false);
  });

  it('shows an error without a field in the form, and checks the amount before sending', async () => {
    const page = openOrder('settled', refundsOf('9.2'), () => ({
      status: 409,
      error: { code: 'conflict', message: 'The order is not settled.' },
    }));
    await settle(() => expect(page.buttonsIn(page.doc, 'Create refund')).toHaveLength(1));
    const submit = page.buttonsIn(page.doc, 'Create refund')[0]!;
    submit.click();
    expect(page.text('#refund-amount-error')).toBe('Enter the amount to refund, such as 12.50.');
    field(page, 'Amount').value = '12,50';
    submit.click();
    expect(page.text('#refund-amount-error')).toMatch(/is not a plain decimal number/);
    // In the asset, more than is left is refused here already (compared exactly, as decimals).
    page.byLabel<HTMLSelectElement>(page.doc, 'Currency').value = 'USDC';
    field(page, 'Amount').value = '9.2000001';
    submit.click();
    expect(page.text('#refund-amount-error')).toBe('At most 9.2 USDC can be refunded.');
    expect(page.posts()).toEqual([]);

    field(page, 'Amount').value = '9.20';
    submit.click();
    await settle(() =>
      expect(page.text('form[aria-labelledby="refund-form-heading"] [role="alert"]')).toBe(
        'The order is not settled.',
      ),
    );
    expect(page.text('#refund-amount-error')).toBe('');
    expect(page.posts()[0]!.body).toMatchObject({ amount: '9.2', currency: 'USDC' });
  });
});
