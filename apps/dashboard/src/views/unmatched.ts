import type { OperatorChainTransfer } from '@cryptocheckout/core';
import { keepFocusAndScroll, replaceChildren } from '../dom.js';
import { formatDecimal, shortCode } from '../format.js';
import { CursorPager } from '../pager.js';
import { routeHash } from '../router.js';
import type { View, ViewContext } from './context.js';
import { transactionHashLink } from './detail.js';
import { cell, dataTable, messageRow, mono, pagerControls, timeText } from './parts.js';
import { forwardText, TransferActions, transferKey } from './transfers.js';

const PAGE_SIZE = 50;
const COLUMNS = [
  'Time',
  'Network',
  'Asset',
  'Amount',
  'From',
  'To',
  'Transaction',
  'Reason',
  'Checkout',
  'Forward',
  'Decision',
] as const;

/**
 * Chain transfers to the merchant's wallets (and deposit addresses) that no checkout counted (live
 * mode), newest first, with the forward of each deposit and the operator's decisions.
 */
export function unmatchedView(ctx: ViewContext): View {
  const { h, doc, win, api } = ctx;
  const views = new AbortController();
  const pager = new CursorPager();
  let nextCursor: string | null = null;
  let request: AbortController | null = null;
  const actions = new TransferActions({
    h,
    api,
    signal: views.signal,
    columnCount: COLUMNS.length,
    updated(transfer) {
      // The decision is shown in place; the row leaves the list only when the page is read again.
      const key = transferKey(transfer);
      const old = list.body.querySelector(`tr[data-transfer="${key}"]`);
      if (!old) return;
      const next = row(transfer);
      keepFocusAndScroll(doc, win, () => old.replaceWith(next));
      const decision = next.querySelector<HTMLElement>('.decision');
      decision?.focus();
    },
    fail: (error) => ctx.fail(error),
  });

  const heading = h('h1', { tabindex: -1 }, 'Unmatched payments');
  const intro = h(
    'p',
    { class: 'intro' },
    'In live mode the server watches the merchant’s wallets on chain. A transfer whose amount matches no open ' +
      'checkout, or a deposit of a token its checkout did not ask for, is kept here and never put on an order ' +
      'by itself: attach it to the checkout it pays, approve the forward of a deposit, or settle it with the ' +
      'buyer yourself and mark it handled.',
  );
  const list = dataTable(h, 'unmatched-table', 'Unmatched transfers, newest first', COLUMNS);
  list.body.appendChild(messageRow(h, COLUMNS.length, 'Loading…'));
  const pagerUi = pagerControls(
    h,
    'Unmatched transfer pages',
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
  const element = h('section', { class: 'view' }, heading, intro, list.element, pagerUi.element);

  async function load(): Promise<void> {
    request?.abort();
    const current = new AbortController();
    request = current;
    list.table.setAttribute('aria-busy', 'true');
    try {
      const page = await api.unmatched({ limit: PAGE_SIZE, cursor: pager.cursor }, current.signal);
      if (current.signal.aborted || views.signal.aborted) return;
      nextCursor = page.next_cursor;
      keepFocusAndScroll(doc, win, () => {
        if (page.items.length === 0 && pager.onFirstPage) {
          replaceChildren(list.body, messageRow(h, COLUMNS.length, emptyText()));
        } else {
          replaceChildren(
            list.body,
            ...page.items.flatMap((transfer) => [row(transfer), actions.formRow(transfer)]),
          );
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

  function emptyText(): string {
    return ctx.overview.mode === 'live'
      ? 'No unmatched transfers: every transfer seen so far paid an open checkout.'
      : 'No unmatched transfers. This server runs in sandbox mode, where no chain is watched, so there are none.';
  }

  function row(transfer: OperatorChainTransfer): HTMLTableRowElement {
    const checkout = transfer.transaction_code
      ? h(
          'a',
          {
            href: routeHash({ view: 'detail', code: transfer.transaction_code }),
            title: transfer.transaction_code,
            'aria-label': `Transaction ${transfer.transaction_code}`,
          },
          mono(h, shortCode(transfer.transaction_code)),
        )
      : '—';
    return h(
      'tr',
      { 'data-transfer': transferKey(transfer) },
      cell(h, timeText(h, transfer.block_time)),
      cell(h, transfer.network),
      cell(h, transfer.asset),
      cell(h, formatDecimal(transfer.amount), 'num'),
      cell(h, mono(h, transfer.from_address), 'wrap'),
      cell(h, mono(h, transfer.to_address), 'wrap'),
      cell(h, transactionHashLink(h, transfer), 'wrap'),
      cell(h, transfer.unmatched_reason ?? '—', 'wrap'),
      cell(h, checkout),
      cell(h, forwardText(h, transfer.forward), 'wrap'),
      h('td', { class: 'decision wrap', tabindex: -1 }, actions.decision(transfer)),
    );
  }

  void load();

  return {
    element,
    heading,
    destroy() {
      views.abort();
      request?.abort();
    },
  };
}
