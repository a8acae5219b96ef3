import type { OperatorStats, OperatorTransactionSummary } from '@cryptocheckout/core';
import { dayChart, statsTotals, totalsSentence } from '../chart.js';
import { csvFileName, saveBlob } from '../csv.js';
import { keepFocusAndScroll, replaceChildren } from '../dom.js';
import { formatFiat, formatLocalDateTime, formatUsd, shortCode } from '../format.js';
import { CursorPager } from '../pager.js';
import { startAutoRefresh } from '../refresh.js';
import { FILTER_STATUSES, type Route, routeHash, type TransactionFilter } from '../router.js';
import type { View, ViewContext } from './context.js';
import { forwardingSection } from './forwarding.js';
import {
  autoRefreshToggle,
  cell,
  dataTable,
  messageRow,
  mono,
  pagerControls,
  statusBadge,
  timeText,
  webhookBadge,
} from './parts.js';

const PAGE_SIZE = 50;
const STATS_DAYS = 30;
// The chart changes slowly; re-read it on every sixth list refresh only.
const STATS_EVERY_N_REFRESHES = 6;
const COLUMNS = [
  'Created',
  'Reference',
  'Code',
  'Status',
  'Amount',
  'USD',
  'Received (USD)',
  'Rail',
  'Webhook',
] as const;

/**
 * The transactions list: filter form, 30-day charts, the table with cursor paging, CSV export and
 * a live refresh of the first page while the tab is visible.
 */
export function transactionsView(ctx: ViewContext, initialFilter: TransactionFilter): View {
  const { h, doc, win, api } = ctx;
  let filter = initialFilter;
  const pager = new CursorPager();
  let listRequest: AbortController | null = null;
  let lastRendered = '';
  let refreshCount = 0;
  let loadFailed = false;
  const views = new AbortController();

  const heading = h('h1', { tabindex: -1 }, 'Transactions');

  // Filter form.
  const search = h('input', {
    id: 'filter-q',
    name: 'q',
    type: 'search',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  const status = h(
    'select',
    { id: 'filter-status', name: 'status' },
    h('option', { value: '' }, 'Any status'),
    ...FILTER_STATUSES.map((value) => h('option', { value }, value.charAt(0).toUpperCase() + value.slice(1))),
  );
  const from = h('input', {
    id: 'filter-from',
    name: 'from',
    type: 'date',
    'aria-describedby': 'filter-dates-hint',
  });
  const to = h('input', {
    id: 'filter-to',
    name: 'to',
    type: 'date',
    'aria-describedby': 'filter-dates-hint',
  });
  const form = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Filter transactions', novalidate: true },
    h(
      'div',
      { class: 'field field--wide' },
      h('label', { for: 'filter-q' }, 'Code or exact reference'),
      search,
    ),
    h('div', { class: 'field' }, h('label', { for: 'filter-status' }, 'Status'), status),
    h('div', { class: 'field' }, h('label', { for: 'filter-from' }, 'From'), from),
    h('div', { class: 'field' }, h('label', { for: 'filter-to' }, 'To'), to),
    h(
      'div',
      { class: 'filter-actions' },
      h('button', { type: 'submit', class: 'btn btn--primary' }, 'Apply'),
      h('a', { href: '#/transactions', class: 'clear-filters' }, 'Clear filters'),
    ),
    h(
      'p',
      { id: 'filter-dates-hint', class: 'hint field--all' },
      'Dates are UTC days of creation, both included.',
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const next: TransactionFilter = {
      q: search.value.trim(),
      status: status.value as TransactionFilter['status'],
      from: from.value,
      to: to.value,
    };
    const route: Route = { view: 'transactions', filter: next };
    if (routeHash(route) === win.location.hash) showFilter(next);
    else ctx.navigate(route);
  });

  // Charts.
  const charts = h('div', { class: 'charts' }, h('p', { class: 'hint' }, 'Loading the last 30 days…'));
  const totals = h('p', { class: 'totals' });
  const chartSection = h(
    'section',
    { class: 'panel', 'aria-labelledby': 'chart-heading' },
    h('h2', { id: 'chart-heading' }, 'Last 30 days'),
    charts,
    totals,
  );

  // Toolbar.
  const csvButton = h('button', { type: 'button', class: 'btn' }, 'Download CSV');
  csvButton.addEventListener('click', () => void downloadCsv());
  const updated = h('p', { class: 'hint updated' });
  const toolbar = h('div', { class: 'toolbar' }, autoRefreshToggle(ctx), csvButton, updated);

  const list = dataTable(h, 'transactions-table', 'Transactions, newest first', COLUMNS);
  list.body.appendChild(messageRow(h, COLUMNS.length, 'Loading…'));
  const pagerUi = pagerControls(
    h,
    'Transaction pages',
    () => {
      if (pager.back()) void loadList(true);
    },
    () => {
      if (nextCursor) {
        pager.forward(nextCursor);
        void loadList(true);
      }
    },
  );
  let nextCursor: string | null = null;

  // Deposit mode's forwarding, live mode only: the one place a sweeper out of gas is seen at once.
  const forwarding = ctx.overview.mode === 'live' ? forwardingSection(ctx, views.signal) : null;

  const element = h(
    'section',
    { class: 'view' },
    heading,
    forwarding?.element,
    form,
    chartSection,
    toolbar,
    list.element,
    pagerUi.element,
  );

  function fillForm(): void {
    search.value = filter.q;
    status.value = filter.status;
    from.value = filter.from;
    to.value = filter.to;
  }

  function showFilter(next: TransactionFilter): void {
    filter = next;
    fillForm();
    pager.reset();
    void loadList(true);
  }

  async function loadList(userAsked: boolean): Promise<void> {
    listRequest?.abort();
    const request = new AbortController();
    listRequest = request;
    if (userAsked) list.table.setAttribute('aria-busy', 'true');
    try {
      const page = await api.transactions(filter, { limit: PAGE_SIZE, cursor: pager.cursor }, request.signal);
      if (request.signal.aborted || views.signal.aborted) return;
      nextCursor = page.next_cursor;
      const rendered = JSON.stringify([pager.pageNumber, page.items]);
      if (rendered !== lastRendered) {
        lastRendered = rendered;
        keepFocusAndScroll(doc, win, () => renderRows(page.items));
      }
      pagerUi.update(pager.pageNumber, !pager.onFirstPage, page.next_cursor !== null);
      updated.textContent = `Updated ${formatLocalDateTime(new Date().toISOString()).slice(11)}`;
      if (loadFailed) ctx.clearAlert();
      loadFailed = false;
    } catch (error) {
      if (request.signal.aborted) return;
      loadFailed = true;
      ctx.fail(error);
    } finally {
      if (listRequest === request) {
        listRequest = null;
        list.table.removeAttribute('aria-busy');
      }
    }
  }

  function renderRows(items: readonly OperatorTransactionSummary[]): void {
    if (items.length === 0) {
      const filtered = filter.q || filter.status || filter.from || filter.to;
      replaceChildren(
        list.body,
        messageRow(
          h,
          COLUMNS.length,
          filtered ? 'No transaction matches this filter.' : 'No transactions yet.',
        ),
      );
      return;
    }
    replaceChildren(list.body, ...items.map(row));
  }

  function row(item: OperatorTransactionSummary): HTMLTableRowElement {
    const href = routeHash({ view: 'detail', code: item.transaction_code });
    return h(
      'tr',
      { class: item.webhook === 'failed' ? 'row--alert' : undefined },
      cell(h, timeText(h, item.created_at)),
      cell(
        h,
        h(
          'a',
          { href, 'data-focus-key': `reference:${item.transaction_code}` },
          item.external_reference || '(no reference)',
        ),
        'wrap',
      ),
      cell(
        h,
        h(
          'a',
          {
            href,
            title: item.transaction_code,
            'aria-label': `Transaction ${item.transaction_code}`,
            'data-focus-key': `code:${item.transaction_code}`,
          },
          mono(h, shortCode(item.transaction_code)),
        ),
      ),
      cell(h, statusBadge(h, item.status, item.late)),
      cell(h, formatFiat(item.fiat_amount, item.fiat_currency), 'num'),
      cell(h, formatUsd(item.amount_in_usd), 'num'),
      cell(h, formatUsd(item.received_usd), 'num'),
      cell(h, item.payment_method ?? '—'),
      cell(h, webhookBadge(h, item.webhook)),
    );
  }

  async function loadStats(): Promise<void> {
    try {
      const stats = await api.stats(STATS_DAYS, views.signal);
      if (!views.signal.aborted) renderStats(stats);
    } catch (error) {
      if (!views.signal.aborted) ctx.fail(error);
    }
  }

  function renderStats(stats: OperatorStats): void {
    const days = stats.days;
    replaceChildren(
      charts,
      dayChart(doc, {
        id: 'chart-checkouts',
        title: 'Checkouts created per day',
        days,
        value: (day) => day.checkouts,
        valueText: (day) => `${day.checkouts} checkout${day.checkouts === 1 ? '' : 's'}`,
      }),
      dayChart(doc, {
        id: 'chart-volume',
        title: 'Settled volume per day (USD)',
        className: 'chart-figure--volume',
        days,
        // Bar height only; the totals below are summed exactly.
        value: (day) => Number(day.settled_usd),
        valueText: (day) => `${formatUsd(day.settled_usd)} settled (${day.settled})`,
      }),
    );
    totals.textContent = totalsSentence(statsTotals(days), days.length);
  }

  async function downloadCsv(): Promise<void> {
    if (csvButton.disabled) return;
    csvButton.disabled = true;
    csvButton.setAttribute('aria-busy', 'true');
    try {
      const blob = await api.transactionsCsv(filter, views.signal);
      saveBlob(doc, win, blob, csvFileName(filter, new Date()));
    } catch (error) {
      ctx.fail(error);
    } finally {
      csvButton.disabled = false;
      csvButton.removeAttribute('aria-busy');
    }
  }

  const stopRefresh = startAutoRefresh({
    doc,
    win,
    intervalMs: ctx.timing.refreshMs,
    wanted: () => ctx.preferences.autoRefresh && pager.onFirstPage && listRequest === null,
    refresh: async () => {
      refreshCount += 1;
      await Promise.all([
        loadList(false),
        forwarding?.refresh(),
        refreshCount % STATS_EVERY_N_REFRESHES === 0 ? loadStats() : Promise.resolve(),
      ]);
    },
  });

  fillForm();
  void loadList(true);
  void loadStats();
  void forwarding?.refresh();

  return {
    element,
    heading,
    update(route) {
      if (route.view !== 'transactions') return false;
      showFilter(route.filter);
      return true;
    },
    destroy() {
      views.abort();
      listRequest?.abort();
      stopRefresh();
    },
  };
}
