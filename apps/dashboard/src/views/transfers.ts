import type {
  OperatorChainTransfer,
  OperatorDepositForward,
  OperatorTransferResolution,
} from '@cryptocheckout/core';
import { ApiError, type OperatorApi } from '../api.js';
import type { ElementBuilder } from '../dom.js';
import { formatAssetAmount, httpUrlOrNull } from '../format.js';
import { mono, timeText } from './parts.js';

/**
 * What an operator sees of a chain transfer beyond its amount (the forward of a deposit, the
 * decision taken on it) and the three decisions: attach, mark handled, approve forward
 * (docs/operator-dashboard.md "Transfers").
 */

/** A deposit's forward state in words. */
export const FORWARD_LABELS: Readonly<Record<OperatorDepositForward['state'], string>> = {
  waiting: 'Waiting to be forwarded',
  needs_approval: 'Waiting for approval',
  sending: 'Forward being sent',
  mined: 'Forward mined, confirming',
  confirmed: 'Forwarded ✓',
  failed: 'Forward failed; it is tried again',
  elsewhere: 'Forwarded by another call',
};

/** The kind of an operator's decision in words. */
export const RESOLUTION_LABELS: Readonly<Record<OperatorTransferResolution['kind'], string>> = {
  attached: 'Attached',
  handled: 'Handled',
  forward_approved: 'Forward approved',
};

/** The forward of a deposit ("Forwarded ✓ 0x…", linked to the explorer when known); "—" for a direct transfer. */
export function forwardText(h: ElementBuilder, forward: OperatorDepositForward | null): Node | string {
  if (forward === null) return '—';
  const label = FORWARD_LABELS[forward.state] ?? forward.state;
  if (!forward.tx_hash) return h('span', { class: `forward forward--${forward.state}` }, label);
  const url = httpUrlOrNull(forward.explorer_url);
  const hash = mono(h, forward.tx_hash);
  return h(
    'span',
    { class: `forward forward--${forward.state}` },
    `${label} `,
    url
      ? h(
          'a',
          {
            href: url,
            rel: 'noopener noreferrer',
            target: '_blank',
            'aria-label': `Forward ${forward.tx_hash} on a block explorer`,
          },
          hash,
        )
      : hash,
  );
}

/** "Attached <time> by the operator token: <note>" (the server writes who into the note). */
export function resolutionText(h: ElementBuilder, resolution: OperatorTransferResolution): HTMLElement {
  return h(
    'span',
    { class: 'resolution' },
    `${RESOLUTION_LABELS[resolution.kind] ?? resolution.kind} `,
    timeText(h, resolution.at),
    resolution.note ? ` ${resolution.note}` : '',
  );
}

type ActionKind = 'attach' | 'handled' | 'forward';

/** The decisions the server would take for `transfer`: none once decided or when a checkout counted it. */
export function allowedActions(transfer: OperatorChainTransfer): ActionKind[] {
  if (transfer.resolution !== null || transfer.unmatched_reason === null) return [];
  const actions: ActionKind[] = [];
  if (transfer.forward === null) actions.push('attach');
  actions.push('handled');
  if (transfer.forward?.state === 'needs_approval') actions.push('forward');
  return actions;
}

const OPENER_LABELS: Readonly<Record<ActionKind, string>> = {
  attach: 'Attach to checkout',
  handled: 'Mark handled',
  forward: 'Approve forward',
};

const CONFIRM_LABELS: Readonly<Record<ActionKind, string>> = {
  attach: 'Yes, attach',
  handled: 'Yes, mark handled',
  forward: 'Yes, approve forward',
};

/** Stable key of a transfer, for element ids and the open forms. */
export function transferKey(
  transfer: Pick<OperatorChainTransfer, 'network' | 'tx_hash' | 'log_index'>,
): string {
  return `${transfer.network}-${transfer.tx_hash}-${transfer.log_index}`.replace(/[^A-Za-z0-9_-]/g, '_');
}

export interface TransferActionsOptions {
  h: ElementBuilder;
  api: OperatorApi;
  /** Aborted when the view closes: requests under way are cancelled. */
  signal: AbortSignal;
  /** Columns of the table the rows are in: a form row spans them all. */
  columnCount: number;
  /** The server took the decision: the view shows `updated` (redraws its row, or reloads). */
  updated(updated: OperatorChainTransfer): void;
  /** A failure that is not the server refusing the decision (401, network): the view's usual report. */
  fail(error: unknown): void;
}

interface OpenForm {
  kind: ActionKind;
  row: HTMLTableRowElement;
  /** The opener button's focus key, to give focus back when the form closes. */
  openerKey: string;
}

/**
 * The decision buttons of transfer rows and the form each opens in a row below, with a
 * confirmation step and the server's refusal shown in the form. Open forms are kept across
 * redraws of the table: a view that rebuilds its rows asks {@link TransferActions.formRow} again.
 */
export class TransferActions {
  private readonly open = new Map<string, OpenForm>();

  constructor(private readonly options: TransferActionsOptions) {}

  /** The cell content of a transfer's decision: what was decided, the buttons, or "—". */
  decision(transfer: OperatorChainTransfer): Node | string {
    const { h } = this.options;
    if (transfer.resolution) return resolutionText(h, transfer.resolution);
    const actions = allowedActions(transfer);
    if (actions.length === 0) return '—';
    const key = transferKey(transfer);
    const current = this.open.get(key);
    return h(
      'div',
      { class: 'transfer-actions' },
      ...actions.map((kind) => {
        const button = h(
          'button',
          {
            type: 'button',
            class: 'btn btn--small',
            'aria-expanded': current?.kind === kind ? 'true' : 'false',
            'aria-controls': `${key}-form`,
            'data-focus-key': openerKey(key, kind),
          },
          OPENER_LABELS[kind],
        );
        button.addEventListener('click', () => this.toggle(transfer, kind, button));
        return button;
      }),
    );
  }

  /** The open form of `transfer` as a table row, or null: put it right after the transfer's row. */
  formRow(transfer: OperatorChainTransfer): HTMLTableRowElement | null {
    return this.open.get(transferKey(transfer))?.row ?? null;
  }

  private toggle(transfer: OperatorChainTransfer, kind: ActionKind, button: HTMLButtonElement): void {
    const key = transferKey(transfer);
    const current = this.open.get(key);
    if (current) {
      this.close(key, false);
      if (current.kind === kind) return;
    }
    const row = this.form(transfer, kind);
    this.open.set(key, { kind, row, openerKey: openerKey(key, kind) });
    const transferRow = button.closest('tr');
    transferRow?.parentNode?.insertBefore(row, transferRow.nextSibling);
    for (const opener of transferRow?.querySelectorAll('button[aria-expanded]') ?? []) {
      opener.setAttribute('aria-expanded', opener === button ? 'true' : 'false');
    }
    row.querySelector<HTMLElement>('input')?.focus();
  }

  private close(key: string, focusOpener: boolean): void {
    const current = this.open.get(key);
    if (!current) return;
    this.open.delete(key);
    const table = current.row.parentNode;
    current.row.remove();
    for (const opener of table?.querySelectorAll<HTMLElement>('[data-focus-key]') ?? []) {
      if (opener.getAttribute('data-focus-key') === current.openerKey) {
        opener.setAttribute('aria-expanded', 'false');
        if (focusOpener) opener.focus();
      }
    }
  }

  private form(transfer: OperatorChainTransfer, kind: ActionKind): HTMLTableRowElement {
    const { h } = this.options;
    const key = transferKey(transfer);
    const id = (part: string) => `${key}-${part}`;
    const amount = formatAssetAmount(transfer.amount, transfer.asset);
    const code =
      kind === 'attach'
        ? h('input', {
            id: id('code'),
            name: 'transaction_code',
            autocomplete: 'off',
            spellcheck: 'false',
            required: true,
            'aria-describedby': id('code-hint'),
          })
        : null;
    const note = h('input', { id: id('note'), name: 'note', autocomplete: 'off', maxlength: 500 });
    const error = h('p', { id: id('error'), class: 'form-error', role: 'alert' });
    const status = h('p', { class: 'hint', role: 'status' });
    const submit = h('button', { type: 'submit', class: 'btn btn--primary' }, 'Continue');
    const cancel = h('button', { type: 'button', class: 'btn btn--quiet' }, 'Cancel');
    const question = h('p', { class: 'confirm-question' });
    const confirm = h('button', { type: 'button', class: 'btn btn--primary' }, CONFIRM_LABELS[kind]);
    const back = h('button', { type: 'button', class: 'btn btn--quiet' }, 'Back');
    const confirmBox = h(
      'div',
      { class: 'confirm', hidden: true },
      question,
      h('div', { class: 'form-actions' }, confirm, back),
    );
    const fields = h(
      'div',
      { class: 'transfer-form-fields' },
      code
        ? h(
            'div',
            { class: 'field' },
            h('label', { for: id('code') }, 'Transaction code'),
            code,
            h(
              'p',
              { id: id('code-hint'), class: 'hint' },
              `The checkout this transfer pays: it must be paid in ${transfer.asset} on ${transfer.network} to ${transfer.to_address}.`,
            ),
          )
        : null,
      h('div', { class: 'field' }, h('label', { for: id('note') }, 'Note (optional)'), note),
    );
    const form = h(
      'form',
      { id: id('form'), class: 'transfer-form', 'aria-labelledby': id('title'), novalidate: true },
      h('h3', { id: id('title') }, `${OPENER_LABELS[kind]}: ${amount} from ${transfer.from_address}`),
      h('p', { class: 'hint' }, explanation(kind)),
      fields,
      error,
      h('div', { class: 'form-actions' }, submit, cancel),
      confirmBox,
      status,
    );
    let sending = false;

    const showError = (message: string, invalidCode: boolean) => {
      error.textContent = message;
      code?.setAttribute('aria-invalid', invalidCode ? 'true' : 'false');
      if (code) code.setAttribute('aria-describedby', `${id('code-hint')} ${id('error')}`);
    };
    const setStep = (confirming: boolean) => {
      confirmBox.hidden = !confirming;
      submit.disabled = confirming;
      for (const input of [code, note]) if (input) input.readOnly = confirming;
    };

    form.addEventListener('submit', (event) => {
      event.preventDefault();
      if (sending) return;
      const codeValue = code?.value.trim() ?? '';
      if (code && !codeValue) {
        showError('Enter the transaction code of the checkout this transfer pays.', true);
        code.focus();
        return;
      }
      showError('', false);
      question.textContent = confirmation(kind, amount, codeValue, note.value.trim());
      setStep(true);
      confirm.focus();
    });
    back.addEventListener('click', () => {
      if (sending) return;
      setStep(false);
      (code ?? note).focus();
    });
    cancel.addEventListener('click', () => {
      if (!sending) this.close(key, true);
    });
    form.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && !sending) {
        event.preventDefault();
        this.close(key, true);
      }
    });
    confirm.addEventListener('click', async () => {
      // Disabled in the same turn as the click; this guards a click already queued.
      if (sending) return;
      sending = true;
      for (const button of [confirm, back, cancel]) button.disabled = true;
      status.textContent = 'Sending…';
      try {
        const updated = await this.send(transfer, kind, code?.value.trim() ?? '', note.value);
        if (this.options.signal.aborted) return;
        this.close(key, false);
        this.options.updated(updated);
      } catch (caught) {
        if (this.options.signal.aborted) return;
        if (caught instanceof ApiError && caught.unauthorized) {
          // The session ended: the app shows the sign-in form instead of this view.
          this.options.fail(caught);
          return;
        }
        const message = caught instanceof Error ? caught.message : String(caught);
        const invalidCode = caught instanceof ApiError && caught.field === 'transaction_code';
        showError(message, invalidCode);
        setStep(false);
        (invalidCode && code ? code : submit).focus();
      } finally {
        sending = false;
        status.textContent = '';
        for (const button of [confirm, back, cancel]) button.disabled = false;
      }
    });
    return h('tr', { class: 'action-row' }, h('td', { colspan: this.options.columnCount }, form));
  }

  private send(
    transfer: OperatorChainTransfer,
    kind: ActionKind,
    code: string,
    note: string,
  ): Promise<OperatorChainTransfer> {
    const { api, signal } = this.options;
    switch (kind) {
      case 'attach':
        return api.attachTransfer(transfer, code, note, signal);
      case 'handled':
        return api.markTransferHandled(transfer, note, signal);
      case 'forward':
        return api.approveForward(transfer, note, signal);
    }
  }
}

function openerKey(key: string, kind: ActionKind): string {
  return `transfer:${key}:${kind}`;
}

function explanation(kind: ActionKind): string {
  switch (kind) {
    case 'attach':
      return 'Counts this confirmed transfer as a payment of a checkout paid to this same wallet, asset and network: the checkout moves as if the buyer had paid it, and its settlement webhook goes out when it settles.';
    case 'handled':
      return 'Records that you dealt with this transfer outside the service (refunded it, booked it by hand). Nothing else changes.';
    case 'forward':
      return 'Lets the server forward this token to the checkout’s merchant wallet (the deposit address can pay no one else). It is not counted as a payment.';
  }
}

function confirmation(kind: ActionKind, amount: string, code: string, note: string): string {
  const withNote = note ? ` Note: “${note}”.` : '';
  switch (kind) {
    case 'attach':
      return `Count ${amount} as a payment of checkout ${code}? This cannot be undone.${withNote}`;
    case 'handled':
      return `Mark ${amount} as handled outside the service? This cannot be undone.${withNote}`;
    case 'forward':
      return `Forward ${amount} to the checkout’s merchant wallet? This cannot be undone.${withNote}`;
  }
}
