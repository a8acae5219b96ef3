import { Window } from 'happy-dom';
import { afterEach, vi } from 'vitest';
import { type DashboardController, startDashboard } from './app.js';
import { EVENT_DEADLINE_MS, type OperatorServer } from './real-server.test-helpers.js';
import { TOKEN_KEY } from './session.js';

/**
 * The whole dashboard in a happy-dom window whose address is the server's `/dashboard`, reading
 * the real operator API through the server's recording fetch. Test files that import this stop
 * every page they opened after each test.
 */

const opened: DashboardController[] = [];

afterEach(() => {
  for (const controller of opened.splice(0)) controller.stop();
});

export type DashboardPage = ReturnType<typeof openDashboard>;

/**
 * Opens the dashboard of `server` at `hash`, signed in already when `token` is given (as a token
 * kept from earlier in the tab). Timers are short so live parts show within a test.
 */
export function openDashboard(server: OperatorServer, options: { hash?: string; token?: string } = {}) {
  const window = new Window({
    url: `${server.origin}/dashboard/${options.hash ?? ''}`,
    settings: { disableJavaScriptFileLoading: true, disableCSSFileLoading: true },
  });
  window.document.write('<!doctype html><html><head></head><body><div id="app"></div></body></html>');
  if (options.token) window.sessionStorage.setItem(TOKEN_KEY, options.token);
  const win = window as unknown as globalThis.Window & typeof globalThis;
  const doc = window.document as unknown as Document;
  const controller = startDashboard({
    document: doc,
    window: win,
    fetch: server.fetch,
    apiBase: server.base,
    timing: { refreshMs: 80, followUpMs: 80, followUpForMs: 4_000 },
  });
  opened.push(controller);
  const text = (selector: string) => doc.querySelector(selector)?.textContent?.trim() ?? '';
  const texts = (selector: string) =>
    [...doc.querySelectorAll(selector)].map((element) => element.textContent?.trim() ?? '');
  const byLabel = <T extends HTMLElement>(label: string): T => {
    const element = [...doc.querySelectorAll('label')].find((item) => item.textContent?.trim() === label);
    const control = element ? doc.getElementById(element.getAttribute('for') ?? '') : null;
    if (!control) throw new Error(`No control labelled ${label}`);
    return control as T;
  };
  const buttons = (label: string) =>
    [...doc.querySelectorAll('button')].filter(
      (item) => item.textContent?.trim() === label,
    ) as HTMLButtonElement[];
  const button = (label: string) => {
    const found = buttons(label)[0];
    if (!found) throw new Error(`No button ${label}`);
    return found;
  };
  const alert = () => text('[role="alert"]');
  // Data rows only: the "Loading…" row a table shows before its first answer is not a transaction.
  const rows = (tableId: string) => doc.querySelectorAll(`#${tableId} tbody tr:not(.message-row)`);
  return { window, win, doc, controller, text, texts, byLabel, button, buttons, alert, rows };
}

/** Types `token` into the sign-in form and submits it. */
export function signIn(page: DashboardPage, token: string): void {
  page.byLabel<HTMLInputElement>('Operator token').value = token;
  page.button('Sign in').click();
}

/** Retries `check` until it passes (4 s at most): the page and the server work in the background. */
export const waitFor = <T>(check: () => T) => vi.waitFor(check, { timeout: EVENT_DEADLINE_MS, interval: 20 });
