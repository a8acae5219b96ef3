import type { Refund, RefundsOfTransaction } from '@cryptocheckout/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDashboard, waitFor } from './dashboard-page.test-helpers.js';
import { formatDecimal } from './format.js';
import { OPERATOR_TOKEN, type OperatorServer, startOperatorServer } from './real-server.test-helpers.js';

// Refunds and merchant keys from the dashboard against the reference server (sandbox mode): an
// order paid through the sandbox, refunded from its page, found in the list, cancelled.

/** The merchant wallet the test server's checkouts are paid to (real-server.test-helpers.ts). */
const MERCHANT_WALLET = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';

let server: OperatorServer;

beforeAll(async () => {
  server = await startOperatorServer();
});
afterAll(() => server?.close());

async function publicApi<T>(path: string): Promise<T> {
  const response = await fetch(`${server.origin}/api${path}`);
  const envelope = (await response.json()) as { status: string; data: T };
  if (envelope.status !== 'success') throw new Error(`${path} answered ${JSON.stringify(envelope)}`);
  return envelope.data;
}

describe('refunding an order from the dashboard', () => {
  it('creates a refund on the settled order, shows it in the list and cancels it', async () => {
    const code = await server.createCheckout({ external_reference: 'ORD-REFUND-1' });
    await server.settle(code);
    const before = await publicApi<RefundsOfTransaction>(`/refunds?transaction_code=${code}`);
    expect(before.refundable).toBe(before.received);

    const page = openDashboard(server, { token: OPERATOR_TOKEN, hash: `#/transactions/${code}` });
    await waitFor(() => expect(page.buttons('Create refund')).toHaveLength(1));
    expect(page.text('#order-refunds-heading + .totals')).toBe(
      `Received ${formatDecimal(before.received)} USDC · refundable ${formatDecimal(before.refundable)} USDC`,
    );
    expect([...page.byLabel<HTMLSelectElement>('Currency').options].map((option) => option.value)).toEqual([
      'USD',
      'USDC',
    ]);

    // More than the order received, asked in its fiat currency: the server's 422 at the amount field.
    page.byLabel<HTMLInputElement>('Amount').value = '100';
    page.button('Create refund').click();
    // The server says the most that can be refunded.
    await waitFor(() => expect(page.text('#refund-amount-error')).toContain(before.refundable));
    expect(page.byLabel<HTMLInputElement>('Amount').getAttribute('aria-invalid')).toBe('true');
    expect(page.window.location.hash).toBe(`#/transactions/${code}`);

    page.byLabel<HTMLInputElement>('Amount').value = '5';
    page.byLabel<HTMLSelectElement>('Currency').value = 'USDC';
    page.byLabel<HTMLInputElement>('Reason (optional)').value = 'one item returned';
    page.button('Create refund').click();
    await waitFor(() => expect(page.text('h1')).toBe('Refund of 5 USDC Awaiting address'));
    expect(page.text('.note')).toMatch(/^Refund created/);
    const claimUrl = page.doc.querySelector('#claim-url')?.getAttribute('href') ?? '';
    expect(claimUrl).toMatch(new RegExp(`^${server.origin}/refund/[A-Za-z0-9_-]{43}$`));
    const refundId = page.window.location.hash.replace('#/refunds/', '');
    const created = await publicApi<Refund>(`/refund?refund_id=${refundId}`);
    expect(created).toMatchObject({
      transaction_code: code,
      status: 'awaiting_address',
      amount: '5',
      asset: 'USDC',
      reason: 'one item returned',
    });

    // The list has it, with the order's reference.
    page.win.location.hash = '#/refunds';
    await waitFor(() =>
      expect(page.doc.querySelector(`#refunds-table tr[data-refund="${refundId}"]`)).not.toBeNull(),
    );
    const row = page.doc.querySelector(`#refunds-table tr[data-refund="${refundId}"]`)!;
    expect([...row.querySelectorAll('td')].map((cell) => cell.textContent).slice(1, 5)).toEqual([
      'ORD-REFUND-1',
      `${refundId.slice(0, 8)}…`,
      'Awaiting address',
      '5 USDC',
    ]);

    // Cancel it from its page.
    row.querySelector<HTMLAnchorElement>(`a[href="#/refunds/${refundId}"]`)!.click();
    await waitFor(() => expect(page.buttons('Cancel refund')).toHaveLength(1));
    page.button('Cancel refund').click();
    page.byLabel<HTMLInputElement>('Reason (optional)').value = 'buyer kept the item';
    page.button('Continue').click();
    page.button('Yes, cancel the refund').click();
    await waitFor(() => expect(page.text('h1')).toBe('Refund of 5 USDC Cancelled'));
    expect(page.buttons('Cancel refund')).toHaveLength(0);
    expect(page.alert()).toBe('');
    expect((await publicApi<Refund>(`/refund?refund_id=${refundId}`)).status).toBe('cancelled');
    // A cancelled refund no longer counts against what is left.
    expect((await publicApi<RefundsOfTransaction>(`/refunds?transaction_code=${code}`)).refundable).toBe(
      before.received,
    );
  });
});

describe('merchant keys from the dashboard', () => {
  it('issues a key shown once, which then refunds through the API, and revokes it', async () => {
    const page = openDashboard(server, { token: OPERATOR_TOKEN, hash: '#/merchant-keys' });
    await waitFor(() => expect(page.text('#merchant-keys-table tbody')).toBe('No merchant key yet.'));
    page.byLabel<HTMLInputElement>('Label').value = 'shop.example';
    page.byLabel<HTMLTextAreaElement>('Wallet addresses').value = MERCHANT_WALLET;
    page.button('Issue key').click();
    await waitFor(() => expect(page.text('#issued-key')).toMatch(/^ccm_/));
    const key = page.text('#issued-key');
    await waitFor(() => expect(page.rows('merchant-keys-table')).toHaveLength(1));
    expect(page.text('#merchant-keys-table')).not.toContain(key);

    // The key works for an order paid to its wallet.
    const code = await server.createCheckout({ external_reference: 'ORD-KEY-1' });
    await server.settle(code);
    const created = await fetch(`${server.origin}/api/refunds`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ transaction_code: code, amount: '1', currency: 'USDC' }),
    });
    expect(created.status).toBe(201);

    // A second visit lists the key and its last use, never the key.
    const again = openDashboard(server, { token: OPERATOR_TOKEN, hash: '#/merchant-keys' });
    await waitFor(() => expect(again.rows('merchant-keys-table')).toHaveLength(1));
    expect(again.doc.querySelector('#issued-key')).toBeNull();
    expect(again.doc.body.textContent).not.toContain(key);
    expect(again.rows('merchant-keys-table')[0]!.querySelectorAll('td')[3]!.textContent).not.toBe('Never');

    again.button('Revoke').click();
    again.button('Yes, revoke').click();
    await waitFor(() =>
      expect(again.rows('merchant-keys-table')[0]!.querySelector('.key-status')?.textContent).toMatch(
        /^Revoked /,
      ),
    );
    const refused = await fetch(`${server.origin}/api/refunds`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ transaction_code: code, amount: '1', currency: 'USDC' }),
    });
    expect(refused.status).toBe(401);
  });
});
