import type { OperatorMerchantKey } from '@cryptocheckout/core';
import { describe, expect, it } from 'vitest';
import { type FakeAnswer, type FakeRequest, openFakeDashboard, settle } from '../fake-api.test-helpers.js';
import { formatLocalDateTime } from '../format.js';

// The merchant keys screen against a scripted API: the list, issuing a key (shown once), revoking.

const WALLET_A = '0x1111222233334444555566667777888899990000';
const WALLET_B = '0xaaaa222233334444555566667777888899990000';
const KEY = `ccm_${'k'.repeat(43)}`;

function keyOf(overrides: Partial<OperatorMerchantKey> = {}): OperatorMerchantKey {
  return {
    key_id: 'key-1',
    label: 'Shop A',
    wallet_addresses: [WALLET_A],
    created_at: '2026-03-01T10:00:00.000Z',
    revoked_at: null,
    last_used_at: null,
    ...overrides,
  };
}

/** A server holding `keys`; POSTs go to `onPost`, which may change them. */
function openKeys(
  keys: OperatorMerchantKey[],
  onPost: (request: FakeRequest) => FakeAnswer | Promise<FakeAnswer>,
) {
  return openFakeDashboard('#/merchant-keys', (request) => {
    if (request.method === 'POST') return onPost(request);
    if (request.path === '/api/operator/merchant-keys') return { data: keys };
    return undefined;
  });
}

const rowOf = (page: ReturnType<typeof openKeys>, keyId: string) =>
  page.doc.querySelector<HTMLTableRowElement>(`tr[data-key="${keyId}"]`)!;
const cellsOf = (row: Element) => [...row.querySelectorAll('td')].map((cell) => cell.textContent?.trim());

describe('merchant keys', () => {
  it('lists label, wallets, created, last used and whether each key is revoked', async () => {
    const used = keyOf({ wallet_addresses: [WALLET_A, WALLET_B], last_used_at: '2026-03-02T08:00:00.000Z' });
    const revoked = keyOf({ key_id: 'key-2', label: 'Old shop', revoked_at: '2026-03-03T08:00:00.000Z' });
    const page = openKeys([used, revoked], () => ({ data: null }));
    await settle(() => expect(page.doc.querySelectorAll('tr[data-key]')).toHaveLength(2));
    expect(page.text('h1')).toBe('Merchant keys');
    expect(page.text('header nav a[aria-current="page"]')).toBe('Merchant keys');
    expect(cellsOf(rowOf(page, 'key-1'))).toEqual([
      'Shop A',
      `${WALLET_A}${WALLET_B}`,
      formatLocalDateTime(used.created_at),
      formatLocalDateTime(used.last_used_at!),
      'Active Revoke',
    ]);
    expect(cellsOf(rowOf(page, 'key-2'))).toEqual([
      'Old shop',
      WALLET_A,
      formatLocalDateTime(revoked.created_at),
      'Never',
      `Revoked ${formatLocalDateTime(revoked.revoked_at!)}`,
    ]);
    expect(page.buttonsIn(rowOf(page, 'key-2'), 'Revoke')).toHaveLength(0);
  });

  it('issues a key and shows it once with a copy button and a warning; a reload does not show it', async () => {
    const keys: OperatorMerchantKey[] = [];
    const page = openKeys(keys, (request) => {
      const body = request.body as { label: string; wallet_addresses: string[] };
      const issued = keyOf({ label: body.label, wallet_addresses: body.wallet_addresses });
      keys.push(issued);
      return { status: 201, data: { ...issued, key: KEY } };
    });
    await settle(() => expect(page.text('#merchant-keys-table tbody')).toBe('No merchant key yet.'));
    page.byLabel<HTMLInputElement>(page.doc, 'Label').value = ' Shop A ';
    page.byLabel<HTMLTextAreaElement>(page.doc, 'Wallet addresses').value =
      `${WALLET_A}\n\n  ${WALLET_B}  \r\n`;
    const issue = page.buttonsIn(page.doc, 'Issue key')[0]!;
    issue.click();
    issue.click();
    await settle(() => expect(page.text('#issued-key')).toBe(KEY));
    expect(page.posts()).toHaveLength(1);
    expect(page.posts()[0]).toEqual({
      method: 'POST',
      path: '/api/operator/merchant-keys',
      body: { label: 'Shop A', wallet_addresses: [WALLET_A, WALLET_B] },
      authorization: 'Bearer fake-operator-token',
    });
    const panel = page.doc.querySelector<HTMLElement>('.callout')!;
    expect(panel.querySelector('.warning')?.textContent).toMatch(/it is not shown again/);
    expect(page.doc.activeElement).toBe(panel);
    page.buttonsIn(panel, 'Copy key')[0]!.click();
    await settle(() => expect(panel.querySelector('.copy-status')?.textContent).toBe('Copied'));
    expect(await page.window.navigator.clipboard.readText()).toBe(KEY);
    // The list shows the new key (never the key itself); the form is empty for the next one.
    await settle(() => expect(page.doc.querySelectorAll('tr[data-key]')).toHaveLength(1));
    expect(page.text('#merchant-keys-table')).not.toContain(KEY);
    expect(page.byLabel<HTMLInputElement>(page.doc, 'Label').value).toBe('');

    // Another visit of the screen (a reload) reads the list only: the key is gone for good.
    const again = openKeys(keys, () => ({ data: null }));
    await settle(() => expect(again.doc.querySelectorAll('tr[data-key]')).toHaveLength(1));
    expect(again.doc.querySelector('#issued-key')).toBeNull();
    expect(again.doc.body.textContent).not.toContain(KEY);
    // "Done" drops it from this page too.
    page.buttonsIn(panel, 'Done')[0]!.click();
    expect(page.doc.querySelector('#issued-key')).toBeNull();
  });

  it('asks for a label and a wallet before sending, and shows the server naming a field at that field', async () => {
    const message = 'wallet_addresses[0] "0x12" is no address on any network the server knows.';
    const page = openKeys([], () => ({
      status: 400,
      error: { code: 'invalid_request', message, field: 'wallet_addresses' },
    }));
    await settle(() => expect(page.text('#merchant-keys-table tbody')).toBe('No merchant key yet.'));
    const issue = page.buttonsIn(page.doc, 'Issue key')[0]!;
    issue.click();
    expect(page.text('#key-label-error')).toBe('Give the key a label, such as the shop’s name.');
    page.byLabel<HTMLInputElement>(page.doc, 'Label').value = 'Shop A';
    issue.click();
    expect(page.text('#key-wallets-error')).toBe('Enter at least one wallet address, one per line.');
    expect(page.posts()).toEqual([]);
    page.byLabel<HTMLTextAreaElement>(page.doc, 'Wallet addresses').value = '0x12';
    issue.click();
    await settle(() => expect(page.text('#key-wallets-error')).toBe(message));
    const wallets = page.byLabel<HTMLTextAreaElement>(page.doc, 'Wallet addresses');
    expect(wallets.getAttribute('aria-invalid')).toBe('true');
    expect(page.doc.activeElement).toBe(wallets);
    expect(page.text('#key-label-error')).toBe('');
    expect(page.doc.querySelector('#issued-key')).toBeNull();
  });

  it('revokes after a confirmation, with one request however often confirmed', async () => {
    const keys = [keyOf()];
    let answer!: (value: FakeAnswer) => void;
    const page = openKeys(
      keys,
      () =>
        new Promise<FakeAnswer>((resolve) => {
          answer = resolve;
        }),
    );
    await settle(() => expect(page.doc.querySelectorAll('tr[data-key]')).toHaveLength(1));
    // Back closes the question without sending.
    page.buttonsIn(page.doc, 'Revoke')[0]!.click();
    expect(page.text('.confirm-question')).toBe(
      'Revoke the key “Shop A”? A shop using it can no longer create or cancel refunds. This cannot be undone.',
    );
    expect(page.doc.activeElement).toBe(page.buttonsIn(page.doc, 'Yes, revoke')[0]);
    page.buttonsIn(page.doc, 'Back')[0]!.click();
    expect(page.doc.querySelector('.confirm')).toBeNull();
    expect(page.doc.activeElement).toBe(page.buttonsIn(page.doc, 'Revoke')[0]);

    page.buttonsIn(page.doc, 'Revoke')[0]!.click();
    page.buttonsIn(page.doc, 'Yes, revoke')[0]!.click();
    page.buttonsIn(page.doc, 'Yes, revoke')[0]!.click();
    expect(page.buttonsIn(page.doc, 'Yes, revoke')[0]!.disabled).toBe(true);
    await settle(() => expect(page.posts()).toHaveLength(1));
    expect(page.posts()[0]).toMatchObject({ path: '/api/operator/merchant-keys/key-1/revoke' });
    answer({ status: 409, error: { code: 'conflict', message: 'The key is revoked already.' } });
    await settle(() => expect(page.text('.confirm [role="alert"]')).toBe('The key is revoked already.'));
    expect(page.buttonsIn(page.doc, 'Yes, revoke')[0]!.disabled).toBe(false);

    page.buttonsIn(page.doc, 'Yes, revoke')[0]!.click();
    await settle(() => expect(page.posts()).toHaveLength(2));
    answer({ data: keyOf({ revoked_at: '2026-03-04T08:00:00.000Z' }) });
    await settle(() =>
      expect(cellsOf(rowOf(page, 'key-1'))[4]).toBe(
        `Revoked ${formatLocalDateTime('2026-03-04T08:00:00.000Z')}`,
      ),
    );
    expect(page.doc.querySelector('.confirm')).toBeNull();
    expect(page.doc.activeElement).toBe(rowOf(page, 'key-1').querySelector('.key-status'));
  });
});
