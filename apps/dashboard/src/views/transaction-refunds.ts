import {
  compareDecimals,
  parseDecimal,
  type RefundsOfTransaction,
  type Transaction,
} from '@cryptocheckout/core';
import { ApiError } from '../api.js';
import { replaceChildren } from '../dom.js';
import { formatAssetAmount, formatFiat, shortCode } from '../format.js';
import { routeHash } from '../router.js';
import type { ViewContext } from './context.js';
import { cell, dataTable, messageRow, mono, timeText } from './parts.js';
import { refundStatusBadge, shortAddress } from './refund-parts.js';

const COLUMNS = ['Created', 'Refund', 'Status', 'Amount', 'Fiat', 'Address', 'Paid'] as const;
/** Fields of the refund form the server may name in `error.field`. */
const FORM_FIELDS = ['amount', 'currency', 'reason', 'reference'] as const;
type FormField = (typeof FORM_FIELDS)[number];

export interface TransactionRefunds {
  /** The section; kept by the detail view across redraws so the form keeps what was typed. */
  element: HTMLElement;
  /** Shows the refunds of `transaction`; they are read again when its status changes. */
  show(transaction: Transaction): void;
}

/**
 * The "Refunds" section of a transaction: its refunds (`GET /api/refunds?transaction_code`), what
 * it received and what is left to refund, and, for a settled order with something left, the form
 * that creates a refund and opens its page.
 */
export function transactionRefunds(ctx: ViewContext, signal: AbortSignal): TransactionRefunds {
  const { h, api } = ctx;
  let shownStatus: string | null = null;
  let transaction: Transaction | null = null;
  let sending = false;

  const totals = h('p', { class: 'totals' });
  const list = dataTable(h, 'refunds-of-order-table', 'Refunds of this order', COLUMNS);
  list.body.appendChild(messageRow(h, COLUMNS.length, 'Loading…'));
  const formSlot = h('div');
  const element = h(
    'section',
    { class: 'panel', 'aria-labelledby': 'order-refunds-heading' },
    h('h2', { id: 'order-refunds-heading' }, 'Refunds'),
    totals,
    list.element,
    formSlot,
  );

  // The form, built once.
  const id = (field: string) => `refund-${field}`;
  const inputs = {
    amount: h('input', { id: id('amount'), name: 'amount', inputmode: 'decimal', autocomplete: 'off' }),
    currency: h('select', { id: id('currency'), name: 'currency' }),
    reason: h('input', { id: id('reason'), name: 'reason', autocomplete: 'off', maxlength: 200 }),
    reference: h('input', { id: id('reference'), name: 'reference', autocomplete: 'off', maxlength: 64 }),
  } satisfies Record<FormField, HTMLInputElement | HTMLSelectElement>;
  const errorOf = (field: FormField) => h('p', { id: id(`${field}-error`), class: 'form-error' });
  const errors: Record<FormField, HTMLElement> = {
    amount: errorOf('amount'),
    currency: errorOf('currency'),
    reason: errorOf('reason'),
    reference: errorOf('reference'),
  };
  const labels: Record<FormField, string> = {
    amount: 'Amount',
    currency: 'Currency',
    reason: 'Reason (optional)',
    reference: 'Your reference (optional)',
  };
  const formError = h('p', { class: 'form-error', role: 'alert' });
  const status = h('p', { class: 'hint', role: 'status' });
  const submit = h('button', { type: 'submit', class: 'btn btn--primary' }, 'Create refund');
  const form = h(
    'form',
    { class: 'transfer-form', 'aria-labelledby': 'refund-form-heading', novalidate: true },
    h('h3', { id: 'refund-form-heading' }, 'Refund'),
    h(
      'p',
      { class: 'hint' },
      'An amount in the order’s currency is converted at the rate the checkout locked. The buyer confirms the ' +
        'address on the claim link you get next; the merchant then pays it from the wallet that received the order.',
    ),
    ...FORM_FIELDS.map((field) => {
      inputs[field].setAttribute('aria-describedby', id(`${field}-error`));
      return h(
        'div',
        { class: 'field' },
        h('label', { for: id(field) }, labels[field]),
        inputs[field],
        errors[field],
      );
    }),
    formError,
    h('div', { class: 'form-actions' }, submit),
    status,
  );

  function showErrors(field: FormField | null, message: string): void {
    formError.textContent = field === null ? message : '';
    for (const name of FORM_FIELDS) {
      errors[name].textContent = name === field ? message : '';
      inputs[name].setAttribute('aria-invalid', name === field ? 'true' : 'false');
    }
    if (field !== null) inputs[field].focus();
  }

  /** The amount as typed, or why it cannot be sent; checked against what is left when asked in the asset. */
  function checkAmount(refunds: RefundsOfTransaction): { amount: string } | { problem: string } {
    const typed = inputs.amount.value.trim();
    if (!typed) return { problem: 'Enter the amount to refund, such as 12.50.' };
    let amount: string;
    try {
      amount = parseDecimal(typed, 'amount');
    } catch (error) {
      return { problem: error instanceof Error ? error.message : String(error) };
    }
    if (compareDecimals(amount, '0') === 0) return { problem: 'The amount must be more than 0.' };
    if (inputs.currency.value === refunds.asset && compareDecimals(amount, refunds.refundable) > 0) {
      return { problem: `At most ${formatAssetAmount(refunds.refundable, refunds.asset)} can be refunded.` };
    }
    return { amount };
  }

  let current: RefundsOfTransaction | null = null;
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (sending || !current || !transaction) return;
    const checked = checkAmount(current);
    if ('problem' in checked) {
      showErrors('amount', checked.problem);
      return;
    }
    showErrors(null, '');
    sending = true;
    submit.disabled = true;
    status.textContent = 'Creating the refund…';
    const optional = (value: string) => value.trim() || undefined;
    try {
      const created = await api.createRefund(
        {
          transaction_code: transaction.transaction_code,
          amount: checked.amount,
          currency: inputs.currency.value,
          reason: optional(inputs.reason.value),
          reference: optional(inputs.reference.value),
        },
        signal,
      );
      if (signal.aborted) return;
      ctx.navigate({
        view: 'refund',
        refundId: created.refund_id,
        created: created.created ? 'new' : 'existing',
      });
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof ApiError && (error.unauthorized || error.aborted)) {
        ctx.fail(error);
        return;
      }
      const field = error instanceof ApiError ? error.field : null;
      const named = (FORM_FIELDS as readonly (string | null)[]).includes(field) ? (field as FormField) : null;
      showErrors(named, error instanceof Error ? error.message : String(error));
      if (named === null) submit.focus();
    } finally {
      sending = false;
      submit.disabled = false;
      status.textContent = '';
    }
  });

  async function load(): Promise<void> {
    if (!transaction) return;
    try {
      const refunds = await api.refundsOfTransaction(transaction.transaction_code, signal);
      if (signal.aborted) return;
      current = refunds;
      render(refunds);
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof ApiError && (error.unauthorized || error.aborted)) {
        ctx.fail(error);
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      replaceChildren(list.body, messageRow(h, COLUMNS.length, `The refunds could not be read: ${message}`));
    }
  }

  function render(refunds: RefundsOfTransaction): void {
    totals.textContent = `Received ${formatAssetAmount(refunds.received, refunds.asset)} · refundable ${formatAssetAmount(refunds.refundable, refunds.asset)}`;
    replaceChildren(
      list.body,
      ...(refunds.refunds.length === 0
        ? [messageRow(h, COLUMNS.length, 'No refund yet.')]
        : refunds.refunds.map((refund) =>
            h(
              'tr',
              { 'data-refund': refund.refund_id },
              cell(h, timeText(h, refund.created_at)),
              cell(
                h,
                h(
                  'a',
                  {
                    href: routeHash({ view: 'refund', refundId: refund.refund_id }),
                    'aria-label': `Refund ${refund.refund_id}`,
                  },
                  mono(h, shortCode(refund.refund_id)),
                ),
              ),
              cell(h, refundStatusBadge(h, refund.status)),
              cell(h, formatAssetAmount(refund.amount, refund.asset), 'num'),
              cell(
                h,
                refund.fiat_amount === null ? '—' : formatFiat(refund.fiat_amount, refund.fiat_currency),
                'num',
              ),
              cell(
                h,
                refund.address
                  ? h('span', { class: 'mono', title: refund.address }, shortAddress(refund.address))
                  : '—',
              ),
              cell(h, timeText(h, refund.paid_at)),
            ),
          )),
    );
    const tx = transaction!;
    const refundable = compareDecimals(refunds.refundable, '0') > 0;
    if (tx.status === 'settled' && refundable) {
      fillCurrencies(tx.fiat_currency, refunds.asset);
      if (!form.isConnected) replaceChildren(formSlot, form);
    } else {
      replaceChildren(
        formSlot,
        h(
          'p',
          { class: 'hint' },
          tx.status !== 'settled'
            ? 'Only a settled order can be refunded.'
            : 'Nothing is left to refund: every amount received is refunded or being refunded.',
        ),
      );
    }
  }

  function fillCurrencies(fiat: string, asset: string): void {
    const wanted = fiat === asset ? [fiat] : [fiat, asset];
    const present = [...inputs.currency.options].map((option) => option.value);
    if (present.join() === wanted.join()) return;
    replaceChildren(inputs.currency, ...wanted.map((code) => h('option', { value: code }, code)));
  }

  return {
    element,
    show(next) {
      transaction = next;
      if (next.status === shownStatus) return;
      shownStatus = next.status;
      void load();
    },
  };
}
