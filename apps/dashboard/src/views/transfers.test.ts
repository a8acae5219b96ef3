import type { OperatorChainTransfer } from '@cryptocheckout/core';
import { describe, expect, it } from 'vitest';
import {
  type FakeAnswer,
  type FakeRequest,
  openFakeDashboard,
  settle,
  transferOf,
} from '../fake-api.test-helpers.js';
import { formatLocalDateTime } from '../format.js';
import { allowedActions } from './transfers.js';

// The transfers' forward states, decisions and the three actions, in the whole page against a
// scripted operator API (a deposit waiting for approval cannot be made on demand on a local server).

const direct = transferOf();
const needsApproval = transferOf({
  tx_hash: `0x${'2'.repeat(64)}`,
  asset: 'USDT',
  amount: '5',
  transaction_code: 'TXN-DEPOSIT-1',
  unmatched_reason: 'USDT arrived at the deposit address of checkout TXN-DEPOSIT-1, which asked for USDC.',
  forward: { state: 'needs_approval', tx_hash: null, explorer_url: null },
});
const forwardHash = `0x${'f'.repeat(64)}`;
const lateForwarded = transferOf({
  tx_hash: `0x${'3'.repeat(64)}`,
  transaction_code: 'TXN-DEPOSIT-2',
  unmatched_reason: 'Checkout TXN-DEPOSIT-2 did not count this deposit: it is settled.',
  forward: {
    state: 'confirmed',
    tx_hash: forwardHash,
    explorer_url: `https://polygonscan.com/tx/${forwardHash}`,
  },
});
const handled = transferOf({
  tx_hash: `0x${'4'.repeat(64)}`,
  resolution: {
    kind: 'handled',
    at: '2026-03-02T09:30:00.000Z',
    note: 'by the operator token: refunded <b>by hand</b>',
  },
});
const ALL = [direct, needsApproval, lateForwarded, handled];

/** Answers the unmatched list with `items`, and POSTs with `onPost`. */
type OnPost = (request: FakeRequest) => FakeAnswer | Promise<FakeAnswer>;

function unmatchedApi(items: OperatorChainTransfer[], onPost: OnPost) {
  return (request: FakeRequest): FakeAnswer | Promise<FakeAnswer> | undefined => {
    if (request.method === 'POST') return onPost(request);
    if (request.path === '/api/operator/unmatched') return { data: { items, next_cursor: null } };
    return undefined;
  };
}

const decisionButtons = (row: Element) =>
  [...row.querySelectorAll('.decision button')].map((button) => button.textContent?.trim());

async function openUnmatched(onPost: OnPost = () => ({ data: null })) {
  const page = openFakeDashboard('#/unmatched', unmatchedApi(ALL, onPost));
  await settle(() => expect(page.doc.querySelectorAll('tr[data-transfer]')).toHaveLength(4));
  return page;
}

/** Opens a transfer's form with `opener`, fills it and goes on to the confirmation step. */
function fillAndContinue(
  page: Awaited<ReturnType<typeof openUnmatched>>,
  txHash: string,
  opener: string,
  fields: Record<string, string>,
): HTMLFormElement {
  page.buttonsIn(page.transferRow(txHash), opener)[0]!.click();
  const form = page.transferRow(txHash).nextElementSibling!.querySelector('form')!;
  for (const [label, value] of Object.entries(fields))
    page.byLabel<HTMLInputElement>(form, label).value = value;
  page.buttonsIn(form, 'Continue')[0]!.click();
  return form;
}

describe('allowedActions', () => {
  it('offers attach only for direct transfers, approve only for a deposit waiting for it, nothing once decided', () => {
    expect(allowedActions(direct)).toEqual(['attach', 'handled']);
    expect(allowedActions(needsApproval)).toEqual(['handled', 'forward']);
    expect(allowedActions(lateForwarded)).toEqual(['handled']);
    expect(allowedActions(handled)).toEqual([]);
    // Counted by a checkout: the server refuses every decision, so none is offered.
    expect(allowedActions(transferOf({ unmatched_reason: null, transaction_code: 'TXN-1' }))).toEqual([]);
  });
});

describe('unmatched transfers', () => {
  it('shows each forward state and decision in words, with actions only where the server allows them', async () => {
    const page = await openUnmatched();
    const forwardCell = (hash: string) => page.transferRow(hash).cells[9]!.textContent?.trim();
    expect(forwardCell(direct.tx_hash)).toBe('—');
    expect(forwardCell(needsApproval.tx_hash)).toBe('Waiting for approval');
    expect(forwardCell(lateForwarded.tx_hash)).toBe(`Forwarded ✓ ${forwardHash}`);
    const link = page.transferRow(lateForwarded.tx_hash).cells[9]!.querySelector('a')!;
    expect(link.getAttribute('href')).toBe(`https://polygonscan.com/tx/${forwardHash}`);
    expect(link.getAttribute('rel')).toBe('noopener noreferrer');

    expect(decisionButtons(page.transferRow(direct.tx_hash))).toEqual(['Attach to checkout', 'Mark handled']);
    expect(decisionButtons(page.transferRow(needsApproval.tx_hash))).toEqual([
      'Mark handled',
      'Approve forward',
    ]);
    expect(decisionButtons(page.transferRow(lateForwarded.tx_hash))).toEqual(['Mark handled']);
    const handledRow = page.transferRow(handled.tx_hash);
    expect(decisionButtons(handledRow)).toEqual([]);
    // Server text stays text: the note's markup is shown, never parsed.
    expect(handledRow.querySelector('.decision')!.textContent).toBe(
      `Handled ${formatLocalDateTime('2026-03-02T09:30:00.000Z')} by the operator token: refunded <b>by hand</b>`,
    );
    expect(handledRow.querySelector('b')).toBeNull();
    expect(handledRow.querySelector('.decision time')!.getAttribute('datetime')).toBe(
      '2026-03-02T09:30:00.000Z',
    );
  });

  it('opens a labelled form, focuses it, asks before sending and closes with Cancel or Escape', async () => {
    const page = await openUnmatched();
    const opener = page.buttonsIn(page.transferRow(direct.tx_hash), 'Attach to checkout')[0]!;
    opener.click();
    expect(opener.getAttribute('aria-expanded')).toBe('true');
    const formRow = page.transferRow(direct.tx_hash).nextElementSibling!;
    expect(formRow.classList.contains('action-row')).toBe(true);
    const form = formRow.querySelector('form')!;
    expect(opener.getAttribute('aria-controls')).toBe(form.id);
    const code = page.byLabel<HTMLInputElement>(form, 'Transaction code');
    expect(page.doc.activeElement).toBe(code);
    expect(page.byLabel<HTMLInputElement>(form, 'Note (optional)')).toBeDefined();

    // No code: said in the form, nothing sent.
    page.buttonsIn(form, 'Continue')[0]!.click();
    expect(form.querySelector('.form-error')!.textContent).toBe(
      'Enter the transaction code of the checkout this transfer pays.',
    );
    expect(code.getAttribute('aria-invalid')).toBe('true');
    expect(page.posts()).toEqual([]);

    code.value = 'TXN-ABC';
    page.buttonsIn(form, 'Continue')[0]!.click();
    const confirmBox = form.querySelector<HTMLElement>('.confirm')!;
    expect(confirmBox.hidden).toBe(false);
    expect(confirmBox.textContent).toContain('Count 1,234.5 USDC as a payment of checkout TXN-ABC?');
    expect(page.doc.activeElement).toBe(page.buttonsIn(form, 'Yes, attach')[0]);

    page.buttonsIn(form, 'Cancel')[0]!.click();
    expect(form.isConnected).toBe(false);
    expect(page.doc.activeElement).toBe(opener);
    expect(opener.getAttribute('aria-expanded')).toBe('false');

    // Escape closes it too.
    page.buttonsIn(page.transferRow(direct.tx_hash), 'Mark handled')[0]!.click();
    const handledForm = page.doc.querySelector('.action-row form')!;
    handledForm.dispatchEvent(
      new page.window.KeyboardEvent('keydown', { key: 'Escape', bubbles: true }) as never,
    );
    expect(handledForm.isConnected).toBe(false);
    expect(page.posts()).toEqual([]);
  });

  it('posts an attach once however often it is confirmed, and shows the 409 message verbatim in the form', async () => {
    const refusal =
      'Checkout TXN-OTHER is paid in USDC on POLYGON to 0xdef; this transfer is USDC on POLYGON to 0xbbb, so it cannot pay that checkout.';
    let answer!: (value: FakeAnswer) => void;
    const page = await openUnmatched(
      () =>
        new Promise<FakeAnswer>((resolve) => {
          answer = resolve;
        }),
    );
    const form = fillAndContinue(page, direct.tx_hash, 'Attach to checkout', {
      'Transaction code': ' TXN-OTHER ',
      'Note (optional)': 'buyer paid by mistake ',
    });
    const confirm = page.buttonsIn(form, 'Yes, attach')[0]!;
    confirm.click();
    confirm.click();
    expect(confirm.disabled).toBe(true);
    await settle(() => expect(page.posts()).toHaveLength(1));
    expect(page.posts()[0]).toEqual({
      method: 'POST',
      path: `/api/operator/transfers/POLYGON/${direct.tx_hash}/0/attach`,
      body: { transaction_code: 'TXN-OTHER', note: 'buyer paid by mistake' },
      authorization: 'Bearer fake-operator-token',
    });
    answer({ status: 409, error: { code: 'conflict', message: refusal, field: 'transaction_code' } });
    await settle(() => expect(form.querySelector('.form-error')!.textContent).toBe(refusal));
    expect(form.querySelector('[role="alert"]')).toBe(form.querySelector('.form-error'));
    const code = page.byLabel<HTMLInputElement>(form, 'Transaction code');
    expect(code.getAttribute('aria-invalid')).toBe('true');
    expect(page.doc.activeElement).toBe(code);
    // Back at the first step, ready to correct and try again; the row is unchanged.
    expect(form.querySelector<HTMLElement>('.confirm')!.hidden).toBe(true);
    expect(confirm.disabled).toBe(false);
    expect(decisionButtons(page.transferRow(direct.tx_hash))).toEqual(['Attach to checkout', 'Mark handled']);
    expect(page.text('#alert')).toBe('');
  });

  it('shows the decision in the row once the server took it, and moves focus there', async () => {
    const page = await openUnmatched((request) => ({
      data: {
        ...direct,
        transaction_code: (request.body as { transaction_code: string }).transaction_code,
        resolution: {
          kind: 'attached',
          at: '2026-03-03T08:00:00.000Z',
          note: 'by the operator token: phoned',
        },
      },
    }));
    const form = fillAndContinue(page, direct.tx_hash, 'Attach to checkout', {
      'Transaction code': 'TXN-RIGHT',
      'Note (optional)': 'phoned',
    });
    page.buttonsIn(form, 'Yes, attach')[0]!.click();
    await settle(() =>
      expect(page.transferRow(direct.tx_hash).querySelector('.decision')!.textContent).toBe(
        `Attached ${formatLocalDateTime('2026-03-03T08:00:00.000Z')} by the operator token: phoned`,
      ),
    );
    expect(form.isConnected).toBe(false);
    expect(page.doc.querySelectorAll('.action-row')).toHaveLength(0);
    expect(decisionButtons(page.transferRow(direct.tx_hash))).toEqual([]);
    expect(page.doc.activeElement).toBe(page.transferRow(direct.tx_hash).querySelector('.decision'));
    // The checkout it now pays is linked from the row.
    expect(
      page.transferRow(direct.tx_hash).querySelector('a[href="#/transactions/TXN-RIGHT"]'),
    ).not.toBeNull();
  });

  it('approves a forward and marks a transfer handled with the note only when one is given', async () => {
    const page = await openUnmatched((request) => ({
      data: {
        ...(request.path.includes(needsApproval.tx_hash) ? needsApproval : lateForwarded),
        resolution: {
          kind: request.path.endsWith('/forward') ? 'forward_approved' : 'handled',
          at: '2026-03-03T08:00:00.000Z',
          note: null,
        },
      },
    }));
    let form = fillAndContinue(page, needsApproval.tx_hash, 'Approve forward', {});
    expect(form.querySelector('.confirm')!.textContent).toContain(
      'Forward 5 USDT to the checkout’s merchant wallet?',
    );
    page.buttonsIn(form, 'Yes, approve forward')[0]!.click();
    await settle(() => expect(page.posts()).toHaveLength(1));
    expect(page.posts()[0]).toMatchObject({
      path: `/api/operator/transfers/POLYGON/${needsApproval.tx_hash}/0/forward`,
      body: {},
    });
    await settle(() =>
      expect(page.transferRow(needsApproval.tx_hash).querySelector('.decision')!.textContent).toMatch(
        /^Forward approved /,
      ),
    );

    form = fillAndContinue(page, lateForwarded.tx_hash, 'Mark handled', { 'Note (optional)': 'refunded' });
    page.buttonsIn(form, 'Yes, mark handled')[0]!.click();
    await settle(() => expect(page.posts()).toHaveLength(2));
    expect(page.posts()[1]).toMatchObject({
      path: `/api/operator/transfers/POLYGON/${lateForwarded.tx_hash}/0/handled`,
      body: { note: 'refunded' },
    });
  });
});

describe('transfers of a transaction', () => {
  it('shows forward and decision columns and reads the transaction again after a decision', async () => {
    const code = 'TXN-DEPOSIT-1';
    let decided = false;
    const detail = () => ({
      transaction: {
        transaction_code: code,
        external_reference: 'ORD-9',
        status: 'pending',
        late: false,
        fiat_amount: 10,
        fiat_currency: 'USD',
        amount_in_usd: 10,
        received_usd: 0,
        wallet_address: `0x${'b'.repeat(40)}`,
        wallet_currency: 'USDC',
        wallet_network: 'POLYGON',
        payment_method: 'usdc_polygon',
        created_at: '2026-03-01T09:00:00.000Z',
        expires_at: '2026-03-01T10:00:00.000Z',
        settled_at: null,
        payout_dispatched: false,
        checkout_url: 'https://pay.example/x',
      },
      webhook_url_origin: null,
      usd_rate: '1',
      rate_source: 'fixed',
      monitor_until: '2026-03-02T10:00:00.000Z',
      history: [],
      payments: [],
      payment_options: [],
      deliveries: [],
      chain_transfers: [
        decided
          ? {
              ...needsApproval,
              resolution: { kind: 'forward_approved', at: '2026-03-03T08:00:00.000Z', note: null },
            }
          : needsApproval,
      ],
    });
    const page = openFakeDashboard(`#/transactions/${code}`, (request) => {
      if (request.method === 'POST') {
        decided = true;
        return { data: detail().chain_transfers[0] };
      }
      if (request.path === `/api/operator/transactions/${code}`) return { data: detail() };
      return undefined;
    });
    await settle(() =>
      expect(page.doc.querySelectorAll('#transfers-table tr[data-transfer]')).toHaveLength(1),
    );
    const headers = [...page.doc.querySelectorAll('#transfers-table th')].map((th) => th.textContent);
    expect(headers.slice(-2)).toEqual(['Forward', 'Decision']);
    const row = page.transferRow(needsApproval.tx_hash);
    expect(row.cells[7]!.textContent).toBe('Waiting for approval');
    expect(decisionButtons(row)).toEqual(['Mark handled', 'Approve forward']);

    const form = fillAndContinue(page, needsApproval.tx_hash, 'Approve forward', { 'Note (optional)': 'ok' });
    page.buttonsIn(form, 'Yes, approve forward')[0]!.click();
    await settle(() =>
      expect(page.transferRow(needsApproval.tx_hash).querySelector('.decision')!.textContent).toMatch(
        /^Forward approved/,
      ),
    );
    const reads = page.requests.filter((request) => request.path === `/api/operator/transactions/${code}`);
    expect(reads).toHaveLength(2);
    expect(page.posts()[0]!.body).toEqual({ note: 'ok' });
  });
});
