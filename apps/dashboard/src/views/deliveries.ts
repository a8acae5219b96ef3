import type { OperatorDelivery } from '@cryptocheckout/core';
import type { ElementBuilder } from '../dom.js';
import { attemptResult, shortCode } from '../format.js';
import { cell, dataTable, deliveryBadge, messageRow, timeText } from './parts.js';

/** Where each delivery's resend stands, kept by the detail view across re-renders. */
export interface ResendState {
  /** Deliveries whose resend request is on its way: their button stays disabled. */
  sending: ReadonlySet<string>;
  /** Deliveries resent in this view, with the note shown beside the button ("Queued"). */
  notes: ReadonlyMap<string, string>;
}

/** `data-focus-key` of a delivery's resend button, stable across re-renders. */
export function resendFocusKey(deliveryId: string): string {
  return `resend:${deliveryId}`;
}

const ATTEMPT_COLUMNS = ['Time', 'Result', 'Duration (ms)'] as const;

/**
 * The webhook deliveries of a transaction: per delivery its target origin, state, what it resends,
 * a "Resend webhook" button and a table of attempts in which a failure says why.
 */
export function deliveriesSection(
  h: ElementBuilder,
  deliveries: readonly OperatorDelivery[],
  webhookOrigin: string | null,
  resend: ResendState,
  onResend: (deliveryId: string) => void,
): HTMLElement {
  const section = h(
    'section',
    { class: 'panel', 'aria-labelledby': 'deliveries-heading' },
    h('h2', { id: 'deliveries-heading' }, 'Webhook deliveries'),
  );
  if (deliveries.length === 0) {
    section.appendChild(
      h(
        'p',
        { class: 'hint' },
        webhookOrigin
          ? `No webhook has been sent to ${webhookOrigin} yet: one is sent when the transaction settles.`
          : 'This order has no webhook URL, so no webhook is sent.',
      ),
    );
    return section;
  }
  for (const delivery of deliveries) section.appendChild(deliveryArticle(h, delivery, resend, onResend));
  return section;
}

function deliveryArticle(
  h: ElementBuilder,
  delivery: OperatorDelivery,
  resend: ResendState,
  onResend: (deliveryId: string) => void,
): HTMLElement {
  const id = delivery.delivery_id;
  // Element ids are built from the delivery id; keep them to characters valid everywhere.
  const domId = `delivery-${id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const headingId = `${domId}-heading`;
  const button = h(
    'button',
    {
      type: 'button',
      class: 'btn',
      disabled: resend.sending.has(id),
      'aria-describedby': `${domId}-note`,
      'data-focus-key': resendFocusKey(id),
    },
    'Resend webhook',
  );
  button.addEventListener('click', () => onResend(id));
  const note = resend.sending.has(id) ? 'Sending…' : (resend.notes.get(id) ?? '');
  const attempts = dataTable(
    h,
    `${domId}-attempts`,
    `Attempts of delivery ${shortCode(id)}`,
    ATTEMPT_COLUMNS,
  );
  if (delivery.attempts.length === 0) {
    attempts.body.appendChild(messageRow(h, ATTEMPT_COLUMNS.length, 'No attempt yet.'));
  }
  for (const attempt of delivery.attempts) {
    const result = attemptResult(attempt);
    attempts.body.appendChild(
      h(
        'tr',
        { class: result.ok ? undefined : 'row--alert' },
        cell(h, timeText(h, attempt.attempted_at)),
        cell(h, result.text, result.ok ? 'result--ok' : 'result--failed wrap'),
        cell(h, String(attempt.duration_ms), 'num'),
      ),
    );
  }
  return h(
    'article',
    { class: 'delivery', 'aria-labelledby': headingId },
    h('h3', { id: headingId }, `Delivery to ${delivery.url_origin}`),
    h(
      'p',
      { class: 'delivery-meta' },
      deliveryBadge(h, delivery.state),
      ' Created ',
      timeText(h, delivery.created_at),
      delivery.finished_at ? ' · finished ' : '',
      delivery.finished_at ? timeText(h, delivery.finished_at) : '',
      delivery.resend_of ? ` · resend of delivery ${shortCode(delivery.resend_of)}` : '',
      ` · ${delivery.attempts.length} attempt${delivery.attempts.length === 1 ? '' : 's'}`,
    ),
    h(
      'div',
      { class: 'delivery-actions' },
      button,
      h('span', { id: `${domId}-note`, class: 'resend-note', role: 'status' }, note),
    ),
    attempts.element,
  );
}
