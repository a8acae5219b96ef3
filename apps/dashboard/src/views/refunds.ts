import type { OperatorRefundSummary } from '@cryptocheckout/core';
import { keepFocusAndScroll, replaceChildren } from '../dom.js';
import { formatAssetAmount, formatFiat, shortCode } from '../format.js';
import { CursorPager } from '../pager.js';
import { REFUND_FILTER_STATUSES, type RefundFilter, type Route, routeHash } from '../router.js';
import type { View, ViewContext } from './context.js';
import { cell, dataTable, messageRow, mono, pagerControls, timeText } from './parts.js';
import { REFUND_STATUS_LABELS, refundStatusBadge, shortAddress } from './refund-parts.js';

const PAGE_SIZE = 50;
const COLUMNS = [
  'Created',
  'Order',
  'Refund',
  'Status',
  'Amount',
  'Fiat',
  'Address',
  'Paid',
  'Created by',
] as const;

/** The refunds list: newest first, filtered by status or a refund id / order code / exact reference, paged. */
export function refundsView(ctx: ViewContext, initialFilter: RefundFilter): View {
  const { h, doc, win, api } = ctx;
  let filter = initialFilter;
  const pager = new CursorPager();
  const views = new AbortController();
  let request: AbortController | null = null;
  let nextCursor: string | null = null;

  const heading = h('h1', { tabindex: -1 }, 'Refunds');
  const search = h('input', {
    id: 'refund-filter-q',
    name: 'q',
    type: 'search',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  const status = h(
    'select',
    { id: 'refund-filter-status', name: 'status' },
    h('option', { value: '' }, 'Any status'),
    ...REFUND_FILTER_STATUSES.map((value) => h('option', { value }, REFUND_STATUS_LABELS[value])),
  );
  const form = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Filter refunds', novalidate: true },
    h(
      'div',
      { class: 'field field--wide' },
      h('label', { for: 'refund-filter-q' }, 'Refund id, order code or exact reference'),
      search,
    ),
    h('div', { class: 'field' }, h('label', { for: 'refund-filter-status' }, 'Status'), status),
    h(
      'div',
      { class: 'filter-actions' },
      h('button', { type: 'submit', class: 'btn btn--primary' }, 'Apply'),
      h('a', { href: '#/refunds', class: 'clear-filters' }, 'Clear filters'),
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const next: RefundFilter = { q: search.value.trim(), status: status.value as RefundFilter['status'] };
    const route: Route = { view: 'refunds', filter: next };
    if (routeHash(route) === win.location.hash) showFilter(next);
    else ctx.navigate(route);
  });

  const intro = h(
    'p',
    { class: 'intro' },
    'A refund is created from the order’s page (or by the shop with a merchant key). The buyer confirms the ' +
      'address on the claim link; the merchant then pays it from the wallet that received the order.',
  );
  const list = dataTable(h, 'refunds-table', 'Refunds, newest first', COLUMNS);
  list.body.appendChild(messageRow(h, COLUMNS.length, 'Loading…'));
  const pagerUi = pagerControls(
    h,
    'Refund pages',
    () => {
      if (pager.back()) void load();
    },
    () => {
      if (nextCursor) {
        pager.forward(nextCursor);
        void load();
      }
    },
  );
  const element = h('section', { class: 'view' }, heading, intro, form, list.element, pagerUi.element);

  function showFilter(next: RefundFilter): void {
    filter = next;
    search.value = filter.q;
    status.value = filter.status;
    pager.reset();
    void load();
  }

  async function load(): Promise<void> {
    request?.abort();
    const current = new AbortController();
    request = current;
    list.table.setAttribute('aria-busy', 'true');
    try {
      const page = await api.refunds(filter, { limit: PAGE_SIZE, cursor: pager.cursor }, current.signal);
      if (current.signal.aborted || views.signal.aborted) return;
      nextCursor = page.next_cursor;
      keepFocusAndScroll(doc, win, () => {
        if (page.items.length === 0) {
          const filtered = filter.q || filter.status;
          const text = filtered ? 'No refund matches this filter.' : 'No refunds yet.';
          replaceChildren(list.body, messageRow(h, COLUMNS.length, text));
        } else {
          replaceChildren(list.body, ...page.items.map(row));
        }
      });
      pagerUi.update(pager.pageNumber, !pager.onFirstPage, page.next_cursor !== null);
    } catch (error) {
      if (!current.signal.aborted) ctx.fail(error);
    } finally {
      if (request === current) {
        request = null;
        list.table.removeAttribute('aria-busy');
      }
    }
  }

  function row(item: OperatorRefundSummary): HTMLTableRowElement {
    const refundHref = routeHash({ view: 'refund', refundId: item.refund_id });
    return h(
      'tr',
      { 'data-refund': item.refund_id },
      cell(h, timeText(h, item.created_at)),
      cell(
        h,
        h(
          'a',
          {
            href: routeHash({ view: 'detail', code: item.transaction_code }),
            title: item.transaction_code,
            'data-focus-key': `order:${item.refund_id}`,
          },
          item.external_reference || shortCode(item.transaction_code),
        ),
        'wrap',
      ),
      cell(
        h,
        h(
          'a',
          {
            href: refundHref,
            title: item.refund_id,
            'aria-label': `Refund ${item.refund_id}`,
            'data-focus-key': `refund:${item.refund_id}`,
          },
          mono(h, shortCode(item.refund_id)),
        ),
      ),
      cell(h, refundStatusBadge(h, item.status)),
      cell(h, formatAssetAmount(item.amount, item.asset), 'num'),
      cell(h, item.fiat_amount === null ? '—' : formatFiat(item.fiat_amount, item.fiat_currency), 'num'),
      cell(
        h,
        item.address ? h('span', { class: 'mono', title: item.address }, shortAddress(item.address)) : '—',
      ),
      cell(h, timeText(h, item.paid_at)),
      cell(h, item.created_by, 'wrap'),
    );
  }

  search.value = filter.q;
  status.value = filter.status;
  void load();

  return {
    element,
    heading,
    update(route) {
      if (route.view !== 'refunds') return false;
      showFilter(route.filter);
      return true;
    },
    destroy() {
      views.abort();
      request?.abort();
    },
  };
}
