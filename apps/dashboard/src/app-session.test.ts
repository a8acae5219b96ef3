import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SESSION_ENDED_MESSAGE, SIGNED_OUT_NOTE } from './app.js';
import { openDashboard, signIn, waitFor } from './dashboard-page.test-helpers.js';
import { OPERATOR_TOKEN, type OperatorServer, startOperatorServer } from './real-server.test-helpers.js';
import { TOKEN_KEY } from './session.js';
import { WRONG_TOKEN_MESSAGE } from './views/login.js';

// Signing in and out of the dashboard against the reference server's operator API.

const ROTATED_TOKEN = 'rotated-operator-token-abcdefghijklmnop';

let server: OperatorServer;

beforeEach(async () => {
  server = await startOperatorServer();
  await server.createCheckout({ external_reference: 'ORD-SESSION' });
});
afterEach(() => server.close());

describe('signing in', () => {
  it('keeps the focus on the field and explains where the token is after a wrong one', async () => {
    const page = openDashboard(server);
    const field = page.byLabel<HTMLInputElement>('Operator token');
    expect(field.type).toBe('password');
    expect(page.doc.activeElement).toBe(field);
    signIn(page, 'wrong');
    await waitFor(() => expect(page.alert()).toBe(WRONG_TOKEN_MESSAGE));
    expect(page.doc.activeElement).toBe(field);
    expect(field.getAttribute('aria-invalid')).toBe('true');
    expect(page.window.sessionStorage.getItem(TOKEN_KEY)).toBeNull();
    expect(server.requests.at(-1)).toMatchObject({
      path: '/api/operator/overview',
      authorization: 'Bearer wrong',
    });
  });

  it('opens the transactions list with the mode and navigation once the token is right', async () => {
    const page = openDashboard(server);
    signIn(page, ` ${OPERATOR_TOKEN}\n`);
    await waitFor(() => expect(page.text('h1')).toBe('Transactions'));
    expect(page.window.sessionStorage.getItem(TOKEN_KEY)).toBe(OPERATOR_TOKEN);
    expect(page.window.localStorage.length).toBe(0);
    expect(page.alert()).toBe('');
    expect(page.doc.activeElement).toBe(page.doc.querySelector('h1'));
    expect(page.text('header .brand')).toBe('Crypto Checkout — operator');
    expect(page.text('header .badge')).toBe('Sandbox mode');
    expect(page.texts('header nav a')).toEqual([
      'Transactions',
      'Unmatched payments',
      'Refunds',
      'Merchant keys',
      'Rates',
    ]);
    expect(page.text('header nav a[aria-current="page"]')).toBe('Transactions');
    await waitFor(() => expect(page.texts('#transactions-table tbody a')[0]).toBe('ORD-SESSION'));
    // The token is sent trimmed.
    expect(server.requests.every((request) => request.authorization === `Bearer ${OPERATOR_TOKEN}`)).toBe(
      true,
    );
  });

  it('goes back to sign-in when the server was restarted with another token, and on "Sign out"', async () => {
    await server.restart({ operatorToken: ROTATED_TOKEN });
    const stale = openDashboard(server, { token: OPERATOR_TOKEN });
    await waitFor(() => expect(stale.alert()).toBe(SESSION_ENDED_MESSAGE));
    expect(stale.text('h1')).toBe('Sign in');
    expect(stale.window.sessionStorage.getItem(TOKEN_KEY)).toBeNull();
    stale.controller.stop();

    const page = openDashboard(server, { token: ROTATED_TOKEN });
    await waitFor(() => expect(page.text('h1')).toBe('Transactions'));
    // The same data folder: the order made before the restart is still listed.
    await waitFor(() => expect(page.texts('#transactions-table tbody a')[0]).toBe('ORD-SESSION'));
    page.button('Sign out').click();
    expect(page.text('h1')).toBe('Sign in');
    expect(page.text('.note')).toBe(SIGNED_OUT_NOTE);
    expect(page.window.sessionStorage.getItem(TOKEN_KEY)).toBeNull();
    expect(page.doc.querySelector('header nav')).toBeNull();
  });

  it('ends the session when the server stops accepting the token mid-way', async () => {
    const page = openDashboard(server, { token: OPERATOR_TOKEN });
    await waitFor(() => expect(page.rows('transactions-table')).toHaveLength(1));
    await server.restart({ operatorToken: ROTATED_TOKEN });
    // The next auto-refresh meets the 401.
    await waitFor(() => expect(page.text('h1')).toBe('Sign in'));
    expect(page.alert()).toBe(SESSION_ENDED_MESSAGE);
    expect(page.window.sessionStorage.getItem(TOKEN_KEY)).toBeNull();
    const refused = server.requests.at(-1)!;
    expect(refused.authorization).toBe(`Bearer ${OPERATOR_TOKEN}`);
  });
});
