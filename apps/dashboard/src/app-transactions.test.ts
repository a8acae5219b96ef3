import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDashboard, waitFor } from './dashboard-page.test-helpers.js';
import { shortCode } from './format.js';
import {
  OPERATOR_TOKEN,
  type OperatorServer,
  startOperatorServer,
  startWebhookReceiver,
  type WebhookReceiver,
} from './real-server.test-helpers.js';

// The transactions list against the reference server: rows, paging, filters, live refresh, CSV.

let server: OperatorServer;
let receiver: WebhookReceiver | null = null;

beforeEach(async () => {
  server = await startOperatorServer();
});
afterEach(async () => {
  await receiver?.close();
  receiver = null;
  await server.close();
});

const cellsOf = (row: Element) => [...row.querySelectorAll('td')].map((cell) => cell.textContent?.trim());

describe('transactions list', () => {
  it('shows each row with links to its detail and a failed webhook that stands out', async () => {
    receiver = await startWebhookReceiver({ status: 500 });
    const pending = await server.createCheckout({ external_reference: 'ORD-OPEN' });
    const failed = await server.createCheckout({
      external_reference: 'ORD-FAILED',
      fiat_amount: '1234.50',
      webhook_url: receiver.url,
    });
    await server.settle(failed);
    await waitFor(async () => {
      const page = await server.operator<{ items: Array<{ webhook: string }> }>(`/transactions?q=${failed}`);
      expect(page.items[0]!.webhook).toBe('failed');
    });

    const page = openDashboard(server, { token: OPERATOR_TOKEN });
    await waitFor(() => expect(page.rows('transactions-table')).toHaveLength(2));
    const [first, second] = [...page.rows('transactions-table')];
    expect(cellsOf(first!).slice(1)).toEqual([
      'ORD-FAILED',
      shortCode(failed),
      'Settled',
      '1,234.50 USD',
      '$1,234.50',
      '$1,234.50',
      'usdc_polygon',
      'Failed',
    ]);
    expect(first!.className).toBe('row--alert');
    expect(first!.querySelector('.badge--webhook-failed')?.textContent).toBe('Failed');
    expect([...first!.querySelectorAll('a')].map((link) => link.getAttribute('href'))).toEqual([
      `#/transactions/${failed}`,
      `#/transactions/${failed}`,
    ]);
    expect(cellsOf(second!).slice(1)).toEqual([
      'ORD-OPEN',
      shortCode(pending),
      'Pending',
      '19.90 USD',
      '$19.90',
      '$0.00',
      '—',
      'No webhook',
    ]);
    expect(second!.className).toBe('');
    expect(page.text('#transactions-table caption')).toBe('Transactions, newest first');
    expect(
      [...page.doc.querySelectorAll('#transactions-table th')].every(
        (th) => th.getAttribute('scope') === 'col',
      ),
    ).toBe(true);
    await waitFor(() =>
      expect(page.text('.totals')).toBe('Last 30 days: 2 checkouts created, 1 settled for $1,234.50.'),
    );
    expect(page.doc.querySelectorAll('svg[role="img"]')).toHaveLength(2);
  });

  it('applies the filter through the address and pages with the cursor stack', async () => {
    const references = Array.from({ length: 120 }, (_, index) => `ORD-${index}`);
    const codes = new Map<string, string>();
    for (const reference of references) {
      codes.set(reference, await server.createCheckout({ external_reference: reference }));
    }
    await server.settle(codes.get('ORD-7')!);
    // The order the server lists them in (newest first, equal times by code), read in one go.
    const all = await server.operator<{ items: Array<{ external_reference: string }> }>(
      '/transactions?limit=200',
    );
    const newestFirst = all.items.map((item) => item.external_reference);
    expect(new Set(newestFirst)).toEqual(new Set(references));

    const page = openDashboard(server, { token: OPERATOR_TOKEN });
    const shownReferences = () => page.texts('#transactions-table tbody tr td:nth-child(2) a');
    await waitFor(() => expect(page.rows('transactions-table')).toHaveLength(50));
    page.byLabel<HTMLInputElement>('Auto-refresh').click();
    const pagingFrom = server.requests.length;
    expect(shownReferences()).toEqual(newestFirst.slice(0, 50));
    const next = page.button('Next page');
    const previous = page.button('Previous page');
    expect(previous.disabled).toBe(true);
    next.click();
    await waitFor(() => expect(page.text('.pager-page')).toBe('Page 2'));
    await waitFor(() => expect(shownReferences()).toEqual(newestFirst.slice(50, 100)));
    next.click();
    await waitFor(() => expect(page.text('.pager-page')).toBe('Page 3'));
    await waitFor(() => expect(shownReferences()).toEqual(newestFirst.slice(100)));
    expect(next.disabled).toBe(true);
    previous.click();
    await waitFor(() => expect(page.text('.pager-page')).toBe('Page 2'));
    await waitFor(() => expect(shownReferences()).toEqual(newestFirst.slice(50, 100)));
    const listRequests = server.requests.filter((request) => request.path === '/api/operator/transactions');
    expect(listRequests[0]!.query.get('cursor')).toBeNull();
    // Pages 2 and 3 by the cursors the server handed out; back on page 2 with page 2's cursor again.
    const cursors = server.requests
      .slice(pagingFrom)
      .filter((request) => request.path === '/api/operator/transactions')
      .map((request) => request.query.get('cursor'));
    expect(cursors).toEqual([expect.any(String), expect.any(String), cursors[0]]);
    expect(cursors[1]).not.toBe(cursors[0]);

    const today = new Date().toISOString().slice(0, 10);
    page.byLabel<HTMLInputElement>('Code or exact reference').value = 'ORD-7';
    page.byLabel<HTMLSelectElement>('Status').value = 'settled';
    page.byLabel<HTMLInputElement>('From').value = today;
    page.button('Apply').click();
    await waitFor(() =>
      expect(page.window.location.hash).toBe(`#/transactions?q=ORD-7&status=settled&from=${today}`),
    );
    await waitFor(() => expect(shownReferences()).toEqual(['ORD-7']));
    expect(page.text('.pager-page')).toBe('Page 1');
    expect(page.button('Next page').disabled).toBe(true);
    expect(server.requests.at(-1)!.query.toString()).toBe(`q=ORD-7&status=settled&from=${today}&limit=50`);

    // ORD-8 exists but is not settled: the server's filter leaves nothing.
    page.byLabel<HTMLInputElement>('Code or exact reference').value = 'ORD-8';
    page.button('Apply').click();
    await waitFor(() =>
      expect(page.text('#transactions-table tbody')).toBe('No transaction matches this filter.'),
    );
  });

  it('refreshes the first page live without moving the keyboard focus', async () => {
    const first = await server.createCheckout({ external_reference: 'ORD-FIRST' });
    const page = openDashboard(server, { token: OPERATOR_TOKEN });
    await waitFor(() => expect(page.rows('transactions-table')).toHaveLength(1));
    const link = page.doc.querySelector<HTMLAnchorElement>(`[data-focus-key="code:${first}"]`)!;
    link.focus();
    await server.createCheckout({ external_reference: 'ORD-NEW' });
    await waitFor(() => expect(page.rows('transactions-table')).toHaveLength(2));
    expect(page.texts('#transactions-table tbody tr td:nth-child(2) a')).toEqual(['ORD-NEW', 'ORD-FIRST']);
    const focused = page.doc.activeElement as HTMLElement;
    expect(link.isConnected).toBe(false);
    expect(focused.getAttribute('data-focus-key')).toBe(`code:${first}`);
    expect(focused.isConnected).toBe(true);

    page.byLabel<HTMLInputElement>('Auto-refresh').click();
    const before = server.requests.length;
    await server.createCheckout({ external_reference: 'ORD-UNSEEN' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.requests.length).toBe(before);
    expect(page.rows('transactions-table')).toHaveLength(2);
  });

  it('downloads the filtered CSV with the token', async () => {
    const settled = await server.createCheckout({ external_reference: 'ORD-PAID' });
    await server.settle(settled);
    const open = await server.createCheckout({ external_reference: 'ORD-OPEN' });
    const page = openDashboard(server, { token: OPERATOR_TOKEN, hash: '#/transactions?status=settled' });
    await waitFor(() => expect(page.rows('transactions-table')).toHaveLength(1));
    const downloads: string[] = [];
    const blobs: Blob[] = [];
    vi.spyOn(page.window.HTMLAnchorElement.prototype, 'click').mockImplementation(function (
      this: HTMLAnchorElement,
    ) {
      downloads.push(this.download);
    });
    const createObjectURL = page.window.URL.createObjectURL.bind(page.window.URL);
    vi.spyOn(page.window.URL, 'createObjectURL').mockImplementation((blob) => {
      blobs.push(blob as unknown as Blob);
      return createObjectURL(blob);
    });
    page.button('Download CSV').click();
    await waitFor(() => expect(downloads).toHaveLength(1));
    expect(downloads[0]).toMatch(/^transactions-\d{8}-\d{6}-settled\.csv$/);
    const csv = server.requests.find((request) => request.path === '/api/operator/transactions.csv')!;
    expect(csv.authorization).toBe(`Bearer ${OPERATOR_TOKEN}`);
    expect(csv.query.toString()).toBe('status=settled');
    const lines = (await blobs[0]!.text()).trimEnd().split('\r\n');
    expect(lines[0]).toMatch(/^transaction_code,created_at,status,external_reference,/);
    expect(lines.slice(1).map((line) => line.split(',').slice(0, 4).join(','))).toEqual([
      expect.stringMatching(new RegExp(`^${settled},[^,]+,settled,ORD-PAID$`)),
    ]);
    expect(lines.join('\n')).not.toContain(open);
  });
});
