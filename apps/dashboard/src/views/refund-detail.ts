import type { OperatorRefundDetail, RefundStateChange } from '@cryptocheckout/core';
import { ApiError } from '../api.js';
import { type Child, keepFocusAndScroll, replaceChildren } from '../dom.js';
import { formatAssetAmount, formatFiat, httpUrlOrNull, shortCode } from '../format.js';
import { qrCodeSvg } from '../qr.js';
import { type RefundArrival, routeHash } from '../router.js';
import type { View, ViewContext } from './context.js';
import { cell, dataTable, messageRow, mono, timeText } from './parts.js';
import { refundCancel } from './refund-cancel.js';
import {
  CANCELLABLE_REFUND_STATUSES,
  chainReference,
  copyButton,
  isSafeWalletUri,
  REFUND_STATUS_LABELS,
  refundStatusBadge,
} from './refund-parts.js';

const ARRIVAL_NOTES: Readonly<Record<RefundArrival, string>> = {
  new: 'Refund created. Send the claim link to the buyer: on it they confirm the address the refund is paid to.',
  existing: 'This reference already named a refund of the order: here it is; nothing new was created.',
};

/**
 * One refund: the claim link to send while it waits for the buyer's address, what to pay (sentence,
 * wallet link, QR code) once the address is confirmed, its facts, state history and Cancel.
 */
export function refundDetailView(ctx: ViewContext, refundId: string, arrival: RefundArrival | null): View {
  const { h, doc, win, api } = ctx;
  const views = new AbortController();
  let refund: OperatorRefundDetail | null = null;
  const cancel = refundCancel({
    h,
    api,
    signal: views.signal,
    async cancelled() {
      await load();
      if (!views.signal.aborted) heading.focus();
    },
    fail: (error) => ctx.fail(error),
  });

  const heading = h('h1', { tabindex: -1 }, `Refund ${shortCode(refundId)}`);
  const notice = arrival ? h('p', { class: 'note', role: 'status' }, ARRIVAL_NOTES[arrival]) : null;
  const content = h('div', { class: 'detail' }, h('p', { class: 'hint' }, 'Loading…'));
  const element = h(
    'section',
    { class: 'view' },
    h('p', { class: 'back' }, h('a', { href: ctx.refundsHash }, '← All refunds')),
    heading,
    notice,
    content,
  );
  if (arrival) {
    // The note belongs to this arrival only: a reload of the page must not say "created" again.
    try {
      win.history.replaceState(win.history.state, '', routeHash({ view: 'refund', refundId }));
    } catch {
      // Some embedded contexts forbid history changes; the note then shows again on a reload.
    }
  }

  async function load(): Promise<void> {
    try {
      const next = await api.refund(refundId, views.signal);
      if (views.signal.aborted) return;
      refund = next;
      render(next);
    } catch (error) {
      if (views.signal.aborted) return;
      if (error instanceof ApiError && error.httpStatus === 404 && refund === null) {
        heading.textContent = 'Refund not found';
        replaceChildren(content, h('p', {}, `No refund has the id ${refundId}.`));
      }
      ctx.fail(error);
    }
  }

  function render(current: OperatorRefundDetail): void {
    replaceChildren(
      heading,
      `Refund of ${formatAssetAmount(current.amount, current.asset)} `,
      refundStatusBadge(h, current.status),
    );
    cancel.show(current);
    const cancellable = CANCELLABLE_REFUND_STATUSES.includes(current.status);
    keepFocusAndScroll(doc, win, () =>
      replaceChildren(
        content,
        current.status === 'awaiting_address' ? claimPanel(current) : null,
        current.status === 'awaiting_payment' && current.payment_request ? paymentPanel(current) : null,
        summary(current),
        historyTable(current.history),
        cancellable ? cancel.element : null,
      ),
    );
  }

  function claimLink(current: OperatorRefundDetail, id: string): HTMLElement {
    const url = httpUrlOrNull(current.claim_url);
    const link = url
      ? h('a', { id, href: url, rel: 'noopener noreferrer', target: '_blank', class: 'mono' }, url)
      : h('span', { id, class: 'mono' }, current.claim_url);
    return h('span', { class: 'copyable' }, link, ' ', copyButton(h, win, link, 'Copy link', `copy:${id}`));
  }

  function claimPanel(current: OperatorRefundDetail): HTMLElement {
    return h(
      'section',
      { class: 'panel callout', 'aria-labelledby': 'claim-heading' },
      h('h2', { id: 'claim-heading' }, 'Claim link for the buyer'),
      h(
        'p',
        {},
        'Send this link to the buyer. On it they enter and confirm the address the refund is paid to, until ',
        timeText(h, current.claim_expires_at),
        '; unclaimed, the refund then expires. Anyone with the link can claim the refund: send it to the buyer only.',
      ),
      h('p', { class: 'claim-link' }, claimLink(current, 'claim-url')),
    );
  }

  function paymentPanel(current: OperatorRefundDetail): HTMLElement {
    const request = current.payment_request!;
    const walletLink = isSafeWalletUri(request.uri)
      ? h('a', { href: request.uri, class: 'btn btn--primary', id: 'refund-wallet-link' }, 'Open in wallet')
      : null;
    return h(
      'section',
      { class: 'panel callout', 'aria-labelledby': 'pay-heading' },
      h('h2', { id: 'pay-heading' }, 'Pay the refund'),
      h('p', { id: 'refund-payment-text', class: 'wrap payment-text' }, request.text),
      h(
        'p',
        { class: 'hint' },
        `Send it from the merchant’s wallet that received the order, in ${current.asset} on ${current.network}. ` +
          'The refund is marked paid when the server sees the payment.',
      ),
      walletLink ? h('p', {}, walletLink) : null,
      h(
        'figure',
        { class: 'qr-figure' },
        qrCodeSvg(doc, request.uri, `QR code of the payment: ${request.text}`),
        h('figcaption', { class: 'hint' }, 'Scan with the wallet app.'),
      ),
    );
  }

  function summary(current: OperatorRefundDetail): HTMLElement {
    const address = current.address
      ? h('span', { id: 'refund-address', class: 'mono' }, current.address)
      : null;
    const rows: [string, Child][] = [
      ['Refund id', mono(h, current.refund_id)],
      [
        'Order',
        h(
          'a',
          { href: routeHash({ view: 'detail', code: current.transaction_code }) },
          current.external_reference || current.transaction_code,
        ),
      ],
      ['Reference', current.reference ?? '—'],
      ['Status', REFUND_STATUS_LABELS[current.status] ?? current.status],
      ['Amount', formatAssetAmount(current.amount, current.asset)],
      [
        'Fiat amount',
        current.fiat_amount === null
          ? `— (asked in ${current.asset})`
          : formatFiat(current.fiat_amount, current.fiat_currency),
      ],
      ['Network', current.network],
      [
        'Address',
        address
          ? h(
              'span',
              { class: 'copyable' },
              address,
              ' ',
              copyButton(h, win, address, 'Copy address', 'copy:address'),
            )
          : 'Not confirmed by the buyer yet',
      ],
      ['Reason', current.reason ?? '—'],
      [
        'Claim link',
        current.status === 'awaiting_address' ? 'Above' : claimLink(current, 'summary-claim-url'),
      ],
      ['Created', h('span', {}, timeText(h, current.created_at), ` by ${current.created_by}`)],
      ['Claim expires', current.address ? '—' : timeText(h, current.claim_expires_at)],
      ['Address confirmed', timeText(h, current.address_confirmed_at)],
      ['Paid', timeText(h, current.paid_at)],
      ['Chain transaction', chainReference(h, current)],
      [
        'Cancelled',
        current.cancelled_at
          ? h(
              'span',
              {},
              timeText(h, current.cancelled_at),
              current.cancelled_by ? ` by ${current.cancelled_by}` : '',
            )
          : '—',
      ],
    ];
    return h(
      'section',
      { class: 'panel', 'aria-labelledby': 'refund-summary-heading' },
      h('h2', { id: 'refund-summary-heading' }, 'Summary'),
      h(
        'dl',
        { class: 'summary' },
        ...rows.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
      ),
    );
  }

  function historyTable(history: readonly RefundStateChange[]): HTMLElement {
    const columns = ['Time', 'Status', 'Note'];
    const table = dataTable(h, 'refund-history-table', 'State history', columns);
    if (history.length === 0) table.body.appendChild(messageRow(h, columns.length, 'No state recorded.'));
    for (const change of history) {
      table.body.appendChild(
        h(
          'tr',
          {},
          cell(h, timeText(h, change.at)),
          cell(h, refundStatusBadge(h, change.status)),
          cell(h, change.note ?? '—', 'wrap'),
        ),
      );
    }
    return h('section', { class: 'panel' }, table.element);
  }

  void load();

  return {
    element,
    heading,
    // The same refund without the arrival note (the address rewritten above): keep the page as it is.
    update: (route) => route.view === 'refund' && route.refundId === refundId,
    destroy() {
      views.abort();
    },
  };
}
