import type { OperatorIssuedMerchantKey, OperatorMerchantKey } from '@cryptocheckout/core';
import { ApiError } from '../api.js';
import { focusByKey, keepFocusAndScroll, replaceChildren } from '../dom.js';
import type { View, ViewContext } from './context.js';
import { cell, dataTable, messageRow, mono, timeText } from './parts.js';
import { copyButton } from './refund-parts.js';

const COLUMNS = ['Label', 'Wallets', 'Created', 'Last used', 'Status'] as const;

/**
 * Merchant keys: the list (label, wallets, created, last used, revoked), a form that issues a key
 * and shows it this once, and Revoke with a confirmation step.
 */
export function merchantKeysView(ctx: ViewContext): View {
  const { h, doc, win, api } = ctx;
  const views = new AbortController();
  let keys: OperatorMerchantKey[] | null = null;
  /** The key whose revoke confirmation is open, the request under way, and a refusal to show. */
  let confirming: string | null = null;
  let revoking: string | null = null;
  let revokeError = '';
  let issuing = false;

  const heading = h('h1', { tabindex: -1 }, 'Merchant keys');
  const intro = h(
    'p',
    { class: 'intro' },
    'A merchant key lets a shop create and cancel refunds through the API (Authorization: Bearer ccm_…) for ' +
      'orders paid to the wallets it names, without the operator token. Revoke a key the shop no longer uses.',
  );

  // Issue form.
  const label = h('input', { id: 'key-label', name: 'label', autocomplete: 'off', maxlength: 80 });
  const wallets = h('textarea', {
    id: 'key-wallets',
    name: 'wallet_addresses',
    rows: 3,
    spellcheck: 'false',
    autocomplete: 'off',
  });
  const labelError = h('p', { id: 'key-label-error', class: 'form-error' });
  const walletsError = h('p', { id: 'key-wallets-error', class: 'form-error' });
  label.setAttribute('aria-describedby', 'key-label-error');
  wallets.setAttribute('aria-describedby', 'key-wallets-hint key-wallets-error');
  const formError = h('p', { class: 'form-error', role: 'alert' });
  const issue = h('button', { type: 'submit', class: 'btn btn--primary' }, 'Issue key');
  const form = h(
    'form',
    { class: 'transfer-form', 'aria-labelledby': 'issue-heading', novalidate: true },
    h('h2', { id: 'issue-heading' }, 'Issue a key'),
    h('div', { class: 'field' }, h('label', { for: 'key-label' }, 'Label'), label, labelError),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'key-wallets' }, 'Wallet addresses'),
      h(
        'p',
        { id: 'key-wallets-hint', class: 'hint' },
        'One per line: the wallets whose orders the key may refund.',
      ),
      wallets,
      walletsError,
    ),
    formError,
    h('div', { class: 'form-actions' }, issue),
  );
  const issued = h('div', { class: 'issued-slot' });

  const list = dataTable(h, 'merchant-keys-table', 'Merchant keys, newest first', COLUMNS);
  list.body.appendChild(messageRow(h, COLUMNS.length, 'Loading…'));
  const element = h('section', { class: 'view' }, heading, intro, issued, form, list.element);

  function showIssueError(field: 'label' | 'wallet_addresses' | null, message: string): void {
    labelError.textContent = field === 'label' ? message : '';
    walletsError.textContent = field === 'wallet_addresses' ? message : '';
    formError.textContent = field === null ? message : '';
    label.setAttribute('aria-invalid', String(field === 'label'));
    wallets.setAttribute('aria-invalid', String(field === 'wallet_addresses'));
    if (field === 'label') label.focus();
    if (field === 'wallet_addresses') wallets.focus();
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (issuing) return;
    const name = label.value.trim();
    const addresses = wallets.value
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== '');
    if (!name) return showIssueError('label', 'Give the key a label, such as the shop’s name.');
    if (addresses.length === 0) {
      return showIssueError('wallet_addresses', 'Enter at least one wallet address, one per line.');
    }
    showIssueError(null, '');
    issuing = true;
    issue.disabled = true;
    try {
      const key = await api.issueMerchantKey(name, addresses, views.signal);
      if (views.signal.aborted) return;
      label.value = '';
      wallets.value = '';
      showIssued(key);
      await load();
    } catch (error) {
      if (views.signal.aborted) return;
      if (error instanceof ApiError && (error.unauthorized || error.aborted)) return ctx.fail(error);
      const field = error instanceof ApiError ? error.field : null;
      showIssueError(
        field === 'label' || field === 'wallet_addresses' ? field : null,
        error instanceof Error ? error.message : String(error),
      );
    } finally {
      issuing = false;
      issue.disabled = false;
    }
  });

  /** The new key, this once: only this view holds it, and "Done" or leaving the page drops it. */
  function showIssued(key: OperatorIssuedMerchantKey): void {
    const value = h('code', { id: 'issued-key', class: 'mono issued-key' }, key.key);
    const done = h('button', { type: 'button', class: 'btn btn--quiet' }, 'Done');
    done.addEventListener('click', () => {
      replaceChildren(issued);
      label.focus();
    });
    const panel = h(
      'section',
      { class: 'panel callout', 'aria-labelledby': 'issued-heading', tabindex: -1 },
      h('h2', { id: 'issued-heading' }, `New key: ${key.label}`),
      h(
        'p',
        { class: 'warning' },
        'Copy this key now and give it to the shop: it is not shown again. The server keeps only a hash of it.',
      ),
      h('p', { class: 'copyable' }, value, ' ', copyButton(h, win, value, 'Copy key', 'copy:key')),
      h('div', { class: 'form-actions' }, done),
    );
    replaceChildren(issued, panel);
    panel.focus();
  }

  async function load(): Promise<void> {
    try {
      const next = await api.merchantKeys(views.signal);
      if (views.signal.aborted) return;
      keys = next;
      render();
    } catch (error) {
      if (!views.signal.aborted) ctx.fail(error);
    }
  }

  function render(): void {
    if (!keys) return;
    const current = keys;
    keepFocusAndScroll(doc, win, () => {
      if (current.length === 0) {
        replaceChildren(list.body, messageRow(h, COLUMNS.length, 'No merchant key yet.'));
        return;
      }
      replaceChildren(list.body, ...current.flatMap((key) => [row(key), confirmRow(key)]));
    });
  }

  function row(key: OperatorMerchantKey): HTMLTableRowElement {
    let status: Node | string;
    if (key.revoked_at) {
      status = h('span', {}, 'Revoked ', timeText(h, key.revoked_at));
    } else {
      const revoke = h(
        'button',
        {
          type: 'button',
          class: 'btn btn--small',
          'aria-expanded': String(confirming === key.key_id),
          'data-focus-key': `revoke:${key.key_id}`,
        },
        'Revoke',
      );
      revoke.addEventListener('click', () => {
        if (revoking) return;
        confirming = confirming === key.key_id ? null : key.key_id;
        revokeError = '';
        render();
        if (confirming) focusByKey(doc, `confirm-revoke:${key.key_id}`);
      });
      status = h('span', { class: 'transfer-actions' }, 'Active ', revoke);
    }
    return h(
      'tr',
      { 'data-key': key.key_id },
      cell(h, key.label, 'wrap'),
      cell(
        h,
        h('span', { class: 'wallet-list' }, ...key.wallet_addresses.map((address) => mono(h, address))),
        'wrap',
      ),
      cell(h, timeText(h, key.created_at)),
      cell(h, key.last_used_at ? timeText(h, key.last_used_at) : 'Never'),
      h('td', { class: 'key-status', tabindex: -1 }, status),
    );
  }

  function confirmRow(key: OperatorMerchantKey): HTMLTableRowElement | null {
    if (confirming !== key.key_id || key.revoked_at) return null;
    const busy = revoking === key.key_id;
    const yes = h(
      'button',
      {
        type: 'button',
        class: 'btn btn--primary',
        disabled: busy,
        'data-focus-key': `confirm-revoke:${key.key_id}`,
      },
      'Yes, revoke',
    );
    const back = h('button', { type: 'button', class: 'btn btn--quiet', disabled: busy }, 'Back');
    yes.addEventListener('click', () => void revoke(key));
    back.addEventListener('click', () => {
      if (revoking) return;
      confirming = null;
      render();
      focusByKey(doc, `revoke:${key.key_id}`);
    });
    return h(
      'tr',
      { class: 'action-row' },
      h(
        'td',
        { colspan: COLUMNS.length },
        h(
          'div',
          { class: 'confirm' },
          h(
            'p',
            { class: 'confirm-question' },
            `Revoke the key “${key.label}”? A shop using it can no longer create or cancel refunds. This cannot be undone.`,
          ),
          h('p', { class: 'form-error', role: 'alert' }, revokeError),
          h('p', { class: 'hint', role: 'status' }, busy ? 'Sending…' : ''),
          h('div', { class: 'form-actions' }, yes, back),
        ),
      ),
    );
  }

  async function revoke(key: OperatorMerchantKey): Promise<void> {
    // The button is disabled in the redraw below; this guards a click already queued.
    if (revoking) return;
    revoking = key.key_id;
    revokeError = '';
    render();
    try {
      const revoked = await api.revokeMerchantKey(key.key_id, views.signal);
      if (views.signal.aborted) return;
      keys = (keys ?? []).map((item) => (item.key_id === revoked.key_id ? revoked : item));
      confirming = null;
    } catch (error) {
      if (views.signal.aborted) return;
      if (error instanceof ApiError && (error.unauthorized || error.aborted)) return ctx.fail(error);
      revokeError = error instanceof Error ? error.message : String(error);
    } finally {
      revoking = null;
    }
    render();
    if (confirming === null)
      list.body.querySelector<HTMLElement>(`tr[data-key="${key.key_id}"] .key-status`)?.focus();
    else focusByKey(doc, `confirm-revoke:${key.key_id}`);
  }

  void load();

  return {
    element,
    heading,
    destroy() {
      views.abort();
    },
  };
}
