import type {
  OperatorChainTransfer,
  OperatorPayment,
  OperatorStateChange,
  OperatorTransactionDetail,
  PaymentOption,
} from '@cryptocheckout/core';
import { ApiError } from '../api.js';
import { type Child, focusByKey, keepFocusAndScroll, replaceChildren } from '../dom.js';
import {
  decimalText,
  formatAssetAmount,
  formatFiat,
  formatUsd,
  httpUrlOrNull,
  shortCode,
} from '../format.js';
import { createFollowUp } from '../refresh.js';
import type { View, ViewContext } from './context.js';
import { deliveriesSection, resendFocusKey } from './deliveries.js';
import { cell, dataTable, messageRow, mono, statusBadge, timeText } from './parts.js';
import { transactionRefunds } from './transaction-refunds.js';
import { forwardText, TransferActions, transferKey } from './transfers.js';

const TRANSFER_COLUMNS = [
  'Time',
  'Network',
  'Amount',
  'From',
  'To',
  'Transaction',
  'Confirmed',
  'Forward',
  'Decision',
] as const;

/**
 * One transaction: summary, state history, payments, payment options as priced, webhook
 * deliveries with their attempts and a resend button, and (live mode) the chain transfers.
 */
export function detailView(ctx: ViewContext, code: string): View {
  const { h, doc, win, api } = ctx;
  const views = new AbortController();
  const sending = new Set<string>();
  const notes = new Map<string, string>();
  let detail: OperatorTransactionDetail | null = null;
  const transferActions = new TransferActions({
    h,
    api,
    signal: views.signal,
    columnCount: TRANSFER_COLUMNS.length,
    async updated(transfer) {
      // A decision can move the checkout (an attached payment settles it): read it all again.
      await load();
      if (views.signal.aborted) return;
      content.querySelector<HTMLElement>(`tr[data-transfer="${transferKey(transfer)}"] .decision`)?.focus();
    },
    fail: (error) => ctx.fail(error),
  });

  // Built once and moved into each redraw, so a refund being typed survives a refresh.
  const refunds = transactionRefunds(ctx, views.signal);

  const heading = h('h1', { tabindex: -1 }, `Transaction ${shortCode(code)}`);
  const content = h('div', { class: 'detail' }, h('p', { class: 'hint' }, 'Loading…'));
  const element = h(
    'section',
    { class: 'view' },
    h('p', { class: 'back' }, h('a', { href: ctx.listHash }, '← All transactions')),
    heading,
    content,
  );

  const followUp = createFollowUp({
    win,
    intervalMs: ctx.timing.followUpMs,
    durationMs: ctx.timing.followUpForMs,
    poll: () => load(),
  });

  async function load(): Promise<void> {
    try {
      const next = await api.transaction(code, views.signal);
      if (views.signal.aborted) return;
      detail = next;
      render();
    } catch (error) {
      if (views.signal.aborted) return;
      if (error instanceof ApiError && error.httpStatus === 404 && detail === null) {
        heading.textContent = 'Transaction not found';
        replaceChildren(content, h('p', {}, `No transaction has the code ${code}.`));
      }
      ctx.fail(error);
    }
  }

  function render(): void {
    if (!detail) return;
    const current = detail;
    const tx = current.transaction;
    replaceChildren(
      heading,
      tx.external_reference
        ? `Order ${tx.external_reference} `
        : `Transaction ${shortCode(tx.transaction_code)} `,
      statusBadge(h, tx.status, tx.late),
    );
    refunds.show(tx);
    keepFocusAndScroll(doc, win, () =>
      replaceChildren(
        content,
        summary(current),
        historyTable(current.history),
        paymentsTable(current.payments),
        refunds.element,
        optionsTable(current.payment_options),
        deliveriesSection(h, current.deliveries, current.webhook_url_origin, { sending, notes }, resend),
        current.chain_transfers.length > 0 || ctx.overview.mode === 'live'
          ? transfersTable(current.chain_transfers)
          : null,
      ),
    );
  }

  async function resend(deliveryId: string): Promise<void> {
    // The button is disabled in the same turn as the click; this guards a click already queued.
    if (sending.has(deliveryId)) return;
    const focusKey = resendFocusKey(deliveryId);
    const button = findByFocusKey(focusKey);
    const hadFocus = button !== null && doc.activeElement === button;
    sending.add(deliveryId);
    notes.delete(deliveryId);
    if (button instanceof win.HTMLButtonElement) button.disabled = true;
    const note = button?.getAttribute('aria-describedby');
    if (note) doc.getElementById(note)?.replaceChildren('Sending…');
    let queued = false;
    try {
      const result = await api.resend(deliveryId, views.signal);
      notes.set(deliveryId, result.created ? 'Queued' : 'Queued (a resend was already waiting)');
      queued = true;
    } catch (error) {
      ctx.fail(error);
    } finally {
      sending.delete(deliveryId);
    }
    if (views.signal.aborted) return;
    render();
    // A disabled button loses the focus; give it back to the one the operator pressed.
    if (hadFocus && (doc.activeElement === null || doc.activeElement === doc.body)) focusByKey(doc, focusKey);
    if (queued) {
      // The new delivery and its first attempt show up within seconds; follow them for a while.
      followUp.restart();
      await load();
    }
  }

  function findByFocusKey(key: string): HTMLElement | null {
    for (const candidate of content.querySelectorAll<HTMLElement>('[data-focus-key]')) {
      if (candidate.getAttribute('data-focus-key') === key) return candidate;
    }
    return null;
  }

  function summary(current: OperatorTransactionDetail): HTMLElement {
    const tx = current.transaction;
    const checkoutUrl = httpUrlOrNull(tx.checkout_url);
    const rows: [string, Child][] = [
      ['Transaction code', mono(h, tx.transaction_code)],
      ['Reference', tx.external_reference || '—'],
      ['Amount', formatFiat(tx.fiat_amount, tx.fiat_currency)],
      ['USD amount', formatUsd(tx.amount_in_usd)],
      ['Received', formatUsd(tx.received_usd)],
      ...rateRows(current),
      ['Wallet', h('span', {}, mono(h, tx.wallet_address), ` ${tx.wallet_currency} on ${tx.wallet_network}`)],
      ['Rail', tx.payment_method ?? 'Not chosen yet'],
      ['Created', timeText(h, tx.created_at)],
      ['Expires', timeText(h, tx.expires_at)],
      ['Settled', tx.settled_at ? timeText(h, tx.settled_at) : 'Not settled'],
      ['Watched until', timeText(h, current.monitor_until)],
      ['Late payment', tx.late ? 'Yes: paid after the checkout expired' : 'No'],
      ['Payout dispatched', tx.payout_dispatched ? 'Yes' : 'No'],
      [
        'Checkout URL',
        checkoutUrl
          ? h(
              'a',
              { href: checkoutUrl, rel: 'noopener noreferrer', target: '_blank', class: 'wrap' },
              checkoutUrl,
            )
          : tx.checkout_url,
      ],
      ['Webhook URL', current.webhook_url_origin ?? 'None'],
    ];
    return h(
      'section',
      { class: 'panel', 'aria-labelledby': 'summary-heading' },
      h('h2', { id: 'summary-heading' }, 'Summary'),
      h(
        'dl',
        { class: 'summary' },
        ...rows.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
      ),
    );
  }

  /**
   * The rate the checkout locked: with its sources, publication time, spread and hold from
   * `transaction.rate`; from `usd_rate` and `rate_source` alone for a server that does not send it.
   */
  function rateRows(current: OperatorTransactionDetail): [string, Child][] {
    const tx = current.transaction;
    const rate = tx.rate;
    if (!rate) {
      return [
        [
          'Rate',
          `1 ${tx.fiat_currency} = ${decimalText(current.usd_rate)} USD (source: ${current.rate_source})`,
        ],
      ];
    }
    const spread = Number(rate.spread_percent) > 0 ? `incl. ${rate.spread_percent}% spread` : 'no spread';
    return [
      ['Rate', `1 ${tx.fiat_currency} = ${decimalText(rate.usd_per_unit)} USD (${spread})`],
      [
        'Rate sources',
        h(
          'span',
          {},
          rate.sources.length > 0 ? rate.sources.join(', ') : '—',
          ' ',
          h('span', { class: 'cell-note' }, rate.source),
        ),
      ],
      ['Rate as of', timeText(h, rate.as_of)],
      ['Price held until', timeText(h, rate.held_until)],
    ];
  }

  function historyTable(history: readonly OperatorStateChange[]): HTMLElement {
    const columns = ['Time', 'Status'];
    const table = dataTable(h, 'history-table', 'State history', columns);
    if (history.length === 0) table.body.appendChild(messageRow(h, columns.length, 'No state recorded.'));
    for (const change of history) {
      table.body.appendChild(
        h('tr', {}, cell(h, timeText(h, change.at)), cell(h, statusBadge(h, change.status, change.late))),
      );
    }
    return panel('history', table.element);
  }

  function paymentsTable(payments: readonly OperatorPayment[]): HTMLElement {
    const columns = ['Rail', 'Amount', 'USD', 'Seen', 'Transaction ID', 'Late', 'Confirmed'];
    const table = dataTable(h, 'payments-table', 'Payments', columns);
    if (payments.length === 0) table.body.appendChild(messageRow(h, columns.length, 'No payment yet.'));
    for (const payment of payments) {
      table.body.appendChild(
        h(
          'tr',
          {},
          cell(
            h,
            payment.network ? `${payment.payment_method} (${payment.network})` : payment.payment_method,
          ),
          cell(h, formatAssetAmount(payment.amount, payment.asset), 'num'),
          cell(h, formatUsd(payment.amount_usd), 'num'),
          cell(h, timeText(h, payment.seen_at)),
          cell(h, mono(h, payment.tx_id), 'wrap'),
          cell(h, payment.late ? 'Late' : 'No'),
          cell(h, payment.confirmed ? 'Confirmed' : 'Not yet'),
        ),
      );
    }
    return panel('payments', table.element);
  }

  function optionsTable(options: readonly PaymentOption[]): HTMLElement {
    const columns = ['Rail', 'Amount', 'USD', 'Availability'];
    const table = dataTable(h, 'options-table', 'Payment options', columns);
    if (options.length === 0) table.body.appendChild(messageRow(h, columns.length, 'No rail is configured.'));
    for (const option of options) {
      table.body.appendChild(
        h(
          'tr',
          {},
          cell(h, option.network ? `${option.name} (${option.network})` : option.name),
          cell(h, formatAssetAmount(option.amount, option.asset), 'num'),
          cell(h, formatUsd(option.amount_usd), 'num'),
          cell(
            h,
            option.available ? 'Available' : `Unavailable: ${option.unavailable_reason ?? 'no reason given'}`,
            'wrap',
          ),
        ),
      );
    }
    return panel('options', table.element);
  }

  function transfersTable(transfers: readonly OperatorChainTransfer[]): HTMLElement {
    const table = dataTable(h, 'transfers-table', 'Chain transfers', TRANSFER_COLUMNS);
    if (transfers.length === 0) {
      table.body.appendChild(
        messageRow(h, TRANSFER_COLUMNS.length, 'No chain transfer recorded for this checkout.'),
      );
    }
    for (const transfer of transfers) {
      table.body.appendChild(
        h(
          'tr',
          { 'data-transfer': transferKey(transfer) },
          cell(h, timeText(h, transfer.block_time)),
          cell(h, transfer.network),
          cell(h, formatAssetAmount(transfer.amount, transfer.asset), 'num'),
          cell(h, mono(h, transfer.from_address), 'wrap'),
          cell(h, mono(h, transfer.to_address), 'wrap'),
          cell(h, transactionHashLink(h, transfer), 'wrap'),
          cell(h, transfer.confirmed ? 'Confirmed' : 'Not yet'),
          cell(h, forwardText(h, transfer.forward), 'wrap'),
          h('td', { class: 'decision wrap', tabindex: -1 }, transferActions.decision(transfer)),
        ),
      );
      const form = transferActions.formRow(transfer);
      if (form) table.body.appendChild(form);
    }
    return panel('transfers', table.element);
  }

  function panel(name: string, table: HTMLElement): HTMLElement {
    return h('section', { class: `panel panel--${name}` }, table);
  }

  void load();

  return {
    element,
    heading,
    destroy() {
      views.abort();
      followUp.stop();
    },
  };
}

/** A transfer's hash, linked to its block explorer page when the server knows one. */
export function transactionHashLink(
  h: ViewContext['h'],
  transfer: Pick<OperatorChainTransfer, 'tx_hash' | 'explorer_url'>,
): HTMLElement {
  const url = httpUrlOrNull(transfer.explorer_url);
  const text = mono(h, transfer.tx_hash);
  return url
    ? h(
        'a',
        {
          href: url,
          rel: 'noopener noreferrer',
          target: '_blank',
          'aria-label': `${transfer.tx_hash} on a block explorer`,
        },
        text,
      )
    : text;
}
