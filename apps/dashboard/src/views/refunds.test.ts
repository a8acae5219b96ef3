import type { OperatorRefundSummary } from '@cryptocheckout/core';
import { describe, expect, it } from 'vitest';
import { type FakeRequest, openFakeDashboard, settle } from '../fake-api.test-helpers.js';
import { formatLocalDateTime } from '../format.js';

// The refunds list against a scripted operator API: rows, the filter sent as the query, paging.

const ADDRESS = '0x1111222233334444555566667777888899990000';

function summaryOf(overrides: Partial<OperatorRefundSummary> = {}): OperatorRefundSummary {
  return {
    refund_id: '0b7c6f1e-2d3a-4e5f-8a9b-0c1d2e3f4a5b',
    transaction_code: 'TXN-REFUNDED-1',
    external_reference: 'ORD-77',
    reference: null,
    status: 'paid',
    amount: '1234.5',
    asset: 'USDC',
    network: 'POLYGON',
    fiat_amount: '1100',
    fiat_currency: 'EUR',
    address: ADDRESS,
    created_at: '2026-03-01T10:00:00.000Z',
    paid_at: '2026-03-02T11:00:00.000Z',
    created_by: 'merchant key Shop A',
    ...overrides,
  };
}

const paid = summaryOf();
const waiting = summaryOf({
  refund_id: '1b7c6f1e-2d3a-4e5f-8a9b-0c1d2e3f4a5b',
  transaction_code: 'TXN-REFUNDED-2',
  external_reference: '',
  status: 'awaiting_address',
  amount: '5',
  fiat_amount: null,
  address: null,
  paid_at: null,
  created_by: 'operator token',
});

const cellsOf = (row: Element) => [...row.querySelectorAll('td')].map((cell) => cell.textContent?.trim());
const listReads = (requests: FakeRequest[]) =>
  requests.filter((request) => request.path === '/api/operator/refunds');

describe('refunds list', () => {
  it('shows each refund: order, status, amount and asset, fiat asked, shortened address, times, who', async () => {
    const page = openFakeDashboard('#/refunds', (request) =>
      request.path === '/api/operator/refunds'
        ? { data: { items: [paid, waiting], next_cursor: null } }
        : undefined,
    );
    await settle(() => expect(page.doc.querySelectorAll('#refunds-table tr[data-refund]')).toHaveLength(2));
    expect(page.text('h1')).toBe('Refunds');
    expect(page.text('header nav a[aria-current="page"]')).toBe('Refunds');
    const [first, second] = page.doc.querySelectorAll('#refunds-table tr[data-refund]');
    expect(cellsOf(first!)).toEqual([
      formatLocalDateTime(paid.created_at),
      'ORD-77',
      '0b7c6f1e…',
      'Paid',
      '1,234.5 USDC',
      '1,100.00 EUR',
      '0x1111…0000',
      formatLocalDateTime(paid.paid_at!),
      'merchant key Shop A',
    ]);
    // The full address is kept in the tooltip; the links lead to the order and the refund.
    expect(first!.querySelector('.mono[title]')?.getAttribute('title')).toBe(ADDRESS);
    expect([...first!.querySelectorAll('a')].map((link) => link.getAttribute('href'))).toEqual([
      '#/transactions/TXN-REFUNDED-1',
      `#/refunds/${paid.refund_id}`,
    ]);
    expect(first!.querySelector('.badge')?.className).toBe('badge badge--refund-paid');
    // No reference: the order's code stands in; asked in the asset: no fiat amount.
    expect(cellsOf(second!)).toEqual([
      formatLocalDateTime(waiting.created_at),
      'TXN-REFU…',
      '1b7c6f1e…',
      'Awaiting address',
      '5 USDC',
      '—',
      '—',
      '—',
      'operator token',
    ]);
    expect(listReads(page.requests)[0]!.query?.toString()).toBe('limit=50');
  });

  it('sends the status and search filter, reads the filter from the address, and says when nothing matches', async () => {
    const page = openFakeDashboard('#/refunds?status=awaiting_payment', () => undefined);
    await settle(() => expect(page.text('#refunds-table tbody')).toBe('No refund matches this filter.'));
    expect(page.byLabel<HTMLSelectElement>(page.doc, 'Status').value).toBe('awaiting_payment');
    expect(listReads(page.requests)[0]!.query?.get('status')).toBe('awaiting_payment');

    page.byLabel<HTMLInputElement>(page.doc, 'Refund id, order code or exact reference').value = ' ORD-77 ';
    page.byLabel<HTMLSelectElement>(page.doc, 'Status').value = 'paid';
    page.buttonsIn(page.doc, 'Apply')[0]!.click();
    await settle(() => expect(page.window.location.hash).toBe('#/refunds?q=ORD-77&status=paid'));
    await settle(() => expect(listReads(page.requests)).toHaveLength(2));
    const query = listReads(page.requests)[1]!.query!;
    expect([query.get('q'), query.get('status')]).toEqual(['ORD-77', 'paid']);
    // The same view took the new filter: the form kept its focus target and values.
    expect(page.byLabel<HTMLSelectElement>(page.doc, 'Status').value).toBe('paid');
  });

  it('pages forward with the cursor the server gave, and back', async () => {
    const page = openFakeDashboard('#/refunds', (request) => {
      if (request.path !== '/api/operator/refunds') return undefined;
      return request.query?.get('cursor') === 'page-2'
        ? { data: { items: [waiting], next_cursor: null } }
        : { data: { items: [paid], next_cursor: 'page-2' } };
    });
    await settle(() => expect(page.doc.querySelectorAll('#refunds-table tr[data-refund]')).toHaveLength(1));
    const next = page.buttonsIn(page.doc, 'Next page')[0]!;
    const previous = page.buttonsIn(page.doc, 'Previous page')[0]!;
    expect([next.disabled, previous.disabled]).toEqual([false, true]);
    next.click();
    await settle(() => expect(page.text('.pager-page')).toBe('Page 2'));
    expect(page.doc.querySelector(`tr[data-refund="${waiting.refund_id}"]`)).not.toBeNull();
    expect([next.disabled, previous.disabled]).toEqual([true, false]);
    previous.click();
    await settle(() => expect(page.doc.querySelector(`tr[data-refund="${paid.refund_id}"]`)).not.toBeNull());
    expect(listReads(page.requests).map((request) => request.query?.get('cursor') ?? null)).toEqual([
      null,
      'page-2',
      null,
    ]);
  });
});
