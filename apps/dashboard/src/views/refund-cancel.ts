import type { Refund } from '@cryptocheckout/core';
import { ApiError, type OperatorApi } from '../api.js';
import type { ElementBuilder } from '../dom.js';
import { formatAssetAmount } from '../format.js';

export interface RefundCancelOptions {
  h: ElementBuilder;
  api: OperatorApi;
  /** Aborted when the view closes: a request under way is cancelled. */
  signal: AbortSignal;
  /** The server cancelled it: the view reads the refund again. */
  cancelled(refund: Refund): void;
  /** A failure that is not the server refusing (401, network): the view's usual report. */
  fail(error: unknown): void;
}

export interface RefundCancel {
  /** The button and the form it opens; kept by the view across redraws so a half-typed reason stays. */
  element: HTMLElement;
  /** The refund the form acts on (its amount in the question). */
  show(refund: Pick<Refund, 'refund_id' | 'amount' | 'asset'>): void;
}

/**
 * "Cancel refund": a form with an optional reason, a confirmation step, one request however often
 * it is confirmed, and the server's refusal (409 once paid) shown in the form, which stays open.
 */
export function refundCancel(options: RefundCancelOptions): RefundCancel {
  const { h, api, signal } = options;
  let refund: Pick<Refund, 'refund_id' | 'amount' | 'asset'> | null = null;
  let sending = false;

  const opener = h(
    'button',
    { type: 'button', class: 'btn', 'aria-expanded': 'false', 'aria-controls': 'refund-cancel-form' },
    'Cancel refund',
  );
  const reason = h('input', {
    id: 'refund-cancel-reason',
    name: 'reason',
    autocomplete: 'off',
    maxlength: 200,
  });
  const error = h('p', { id: 'refund-cancel-error', class: 'form-error', role: 'alert' });
  const status = h('p', { class: 'hint', role: 'status' });
  const submit = h('button', { type: 'submit', class: 'btn btn--primary' }, 'Continue');
  const close = h('button', { type: 'button', class: 'btn btn--quiet' }, 'Close');
  const question = h('p', { class: 'confirm-question' });
  const confirm = h('button', { type: 'button', class: 'btn btn--primary' }, 'Yes, cancel the refund');
  const back = h('button', { type: 'button', class: 'btn btn--quiet' }, 'Back');
  const confirmBox = h(
    'div',
    { class: 'confirm', hidden: true },
    question,
    h('div', { class: 'form-actions' }, confirm, back),
  );
  const form = h(
    'form',
    { id: 'refund-cancel-form', class: 'transfer-form', hidden: true, novalidate: true },
    h(
      'p',
      { class: 'hint' },
      'The buyer’s claim link stops offering the refund and nothing is to be paid. A payment already sent ' +
        'to the confirmed address is still recorded when the server sees it.',
    ),
    h('div', { class: 'field' }, h('label', { for: 'refund-cancel-reason' }, 'Reason (optional)'), reason),
    error,
    h('div', { class: 'form-actions' }, submit, close),
    confirmBox,
    status,
  );
  const element = h(
    'section',
    { class: 'panel', 'aria-labelledby': 'refund-actions-heading' },
    h('h2', { id: 'refund-actions-heading' }, 'Actions'),
    h('div', { class: 'form-actions' }, opener),
    form,
  );

  const setStep = (confirming: boolean) => {
    confirmBox.hidden = !confirming;
    submit.disabled = confirming;
    reason.readOnly = confirming;
  };
  const setOpen = (open: boolean) => {
    form.hidden = !open;
    opener.setAttribute('aria-expanded', String(open));
    if (!open) {
      setStep(false);
      error.textContent = '';
    }
  };

  opener.addEventListener('click', () => {
    if (sending) return;
    setOpen(form.hidden);
    if (!form.hidden) reason.focus();
  });
  close.addEventListener('click', () => {
    if (sending) return;
    setOpen(false);
    opener.focus();
  });
  form.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && !sending) {
      event.preventDefault();
      setOpen(false);
      opener.focus();
    }
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (sending || !refund) return;
    error.textContent = '';
    const amount = formatAssetAmount(refund.amount, refund.asset);
    const why = reason.value.trim();
    question.textContent = `Cancel this refund of ${amount}? This cannot be undone.${why ? ` Reason: “${why}”.` : ''}`;
    setStep(true);
    confirm.focus();
  });
  back.addEventListener('click', () => {
    if (sending) return;
    setStep(false);
    reason.focus();
  });
  confirm.addEventListener('click', async () => {
    // Disabled in the same turn as the click; this guards a click already queued.
    if (sending || !refund) return;
    sending = true;
    for (const button of [confirm, back, close, opener]) button.disabled = true;
    status.textContent = 'Sending…';
    try {
      const cancelled = await api.cancelRefund(refund.refund_id, reason.value, signal);
      if (signal.aborted) return;
      setOpen(false);
      reason.value = '';
      options.cancelled(cancelled);
    } catch (caught) {
      if (signal.aborted) return;
      if (caught instanceof ApiError && (caught.unauthorized || caught.aborted)) {
        options.fail(caught);
        return;
      }
      error.textContent = caught instanceof Error ? caught.message : String(caught);
      setStep(false);
      submit.focus();
    } finally {
      sending = false;
      status.textContent = '';
      for (const button of [confirm, back, close, opener]) button.disabled = false;
    }
  });

  return {
    element,
    show(next) {
      refund = next;
    },
  };
}
