import type { OperatorWebhookState, TransactionStatus } from '@cryptocheckout/core';
import type { ElementBuilder } from '../dom.js';
import { capitalise, formatLocalDateTime, webhookLabel } from '../format.js';
import type { ViewContext } from './context.js';

/** Pieces the views share: badges, times, tables, pager buttons. */

/** A transaction status as a badge: text first, colour only as a second cue. */
export function statusBadge(h: ElementBuilder, status: TransactionStatus, late = false): HTMLElement {
  return h(
    'span',
    { class: `badge badge--${status}` },
    late ? `${capitalise(status)} (late)` : capitalise(status),
  );
}

/** The webhook state of a transaction; a failed one is drawn loud so it is seen in a long list. */
export function webhookBadge(h: ElementBuilder, state: OperatorWebhookState): HTMLElement {
  return h('span', { class: `badge badge--webhook-${state}` }, webhookLabel(state));
}

/** A delivery's state ("Delivered", "Failed", "Pending"). */
export function deliveryBadge(h: ElementBuilder, state: 'pending' | 'delivered' | 'failed'): HTMLElement {
  return h('span', { class: `badge badge--webhook-${state}` }, capitalise(state));
}

/** A time in local time, with the exact UTC instant in `datetime` and the tooltip. */
export function timeText(h: ElementBuilder, iso: string | null): HTMLElement | string {
  if (!iso) return '—';
  return h('time', { datetime: iso, title: `${iso} (UTC)` }, formatLocalDateTime(iso));
}

/** Long identifiers (hashes, addresses, codes) in a monospace face that may break anywhere. */
export function mono(h: ElementBuilder, text: string): HTMLElement {
  return h('span', { class: 'mono' }, text);
}

export interface DataTable {
  /** The scrolling wrapper to insert into the page. */
  element: HTMLElement;
  table: HTMLTableElement;
  body: HTMLTableSectionElement;
}

/**
 * A table with a caption and column headers, inside a wrapper that scrolls sideways on narrow
 * screens. The wrapper is a focusable region named by the caption so keyboard users can scroll it.
 */
export function dataTable(
  h: ElementBuilder,
  id: string,
  caption: string,
  columns: readonly string[],
): DataTable {
  const captionId = `${id}-caption`;
  const body = h('tbody');
  const table = h(
    'table',
    { id, class: 'data' },
    h('caption', { id: captionId }, caption),
    h('thead', {}, h('tr', {}, ...columns.map((column) => h('th', { scope: 'col' }, column)))),
    body,
  );
  const element = h(
    'div',
    { class: 'table-wrap', role: 'region', 'aria-labelledby': captionId, tabindex: 0 },
    table,
  );
  return { element, table, body };
}

/** A single full-width row with a message: "Loading…", "No payments yet." */
export function messageRow(h: ElementBuilder, columnCount: number, text: string): HTMLTableRowElement {
  return h('tr', { class: 'message-row' }, h('td', { colspan: columnCount }, text));
}

/** A data cell; `className` for numbers (right-aligned) and similar. */
export function cell(h: ElementBuilder, content: Node | string, className?: string): HTMLTableCellElement {
  return h('td', { class: className }, content);
}

export interface PagerControls {
  element: HTMLElement;
  previous: HTMLButtonElement;
  next: HTMLButtonElement;
  /** Enables the buttons that lead somewhere and shows the page number. */
  update(pageNumber: number, hasPrevious: boolean, hasNext: boolean): void;
}

/** "Previous page" / "Next page" buttons with the page number between them. */
export function pagerControls(
  h: ElementBuilder,
  label: string,
  onPrevious: () => void,
  onNext: () => void,
): PagerControls {
  const previous = h('button', { type: 'button', class: 'btn', disabled: true }, 'Previous page');
  const next = h('button', { type: 'button', class: 'btn', disabled: true }, 'Next page');
  const page = h('span', { class: 'pager-page' }, 'Page 1');
  previous.addEventListener('click', onPrevious);
  next.addEventListener('click', onNext);
  const element = h('nav', { class: 'pager', 'aria-label': label }, previous, page, next);
  return {
    element,
    previous,
    next,
    update(pageNumber, hasPrevious, hasNext) {
      page.textContent = `Page ${pageNumber}`;
      // A button that becomes disabled under the keyboard user's focus would drop focus to the page.
      const focused = element.ownerDocument.activeElement;
      previous.disabled = !hasPrevious;
      next.disabled = !hasNext;
      if (focused === next && !hasNext && hasPrevious) previous.focus();
      if (focused === previous && !hasPrevious && hasNext) next.focus();
    },
  };
}

/** The "Auto-refresh" checkbox with its label, kept in the session's preferences. */
export function autoRefreshToggle(ctx: ViewContext): HTMLLabelElement {
  const checkbox = ctx.h('input', {
    id: 'auto-refresh',
    type: 'checkbox',
    checked: ctx.preferences.autoRefresh,
  });
  checkbox.addEventListener('change', () => {
    ctx.preferences.autoRefresh = checkbox.checked;
  });
  return ctx.h('label', { class: 'check', for: 'auto-refresh' }, checkbox, 'Auto-refresh');
}
