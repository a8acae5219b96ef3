import type { OperatorOverview } from '@cryptocheckout/core';
import { ApiError, OperatorApi } from './api.js';
import { elementBuilder } from './dom.js';
import { parseRoute, type Route, routeHash } from './router.js';
import { Session, sessionStorageOf } from './session.js';
import type { Preferences, Timing, View, ViewContext } from './views/context.js';
import { detailView } from './views/detail.js';
import { type LoginView, loginView } from './views/login.js';
import { merchantKeysView } from './views/merchant-keys.js';
import { notFoundView } from './views/not-found.js';
import { ratesView } from './views/rates.js';
import { refundDetailView } from './views/refund-detail.js';
import { refundsView } from './views/refunds.js';
import { createShell, PRODUCT_NAME } from './views/shell.js';
import { transactionsView } from './views/transactions.js';
import { unmatchedView } from './views/unmatched.js';

/** Shown on the sign-in form when the server stops accepting the token mid-session. */
export const SESSION_ENDED_MESSAGE = 'Your session ended; sign in again.';
/** Shown on the sign-in form after "Sign out". */
export const SIGNED_OUT_NOTE = 'You are signed out.';

/** What the dashboard needs from the browser; injectable so tests can run it in happy-dom. */
export interface DashboardEnvironment {
  document: Document;
  window: Window & typeof globalThis;
  fetch: typeof fetch;
  /** Base URL of the operator API. Default `/api/operator`. */
  apiBase?: string;
  /** Where the token is kept. Default the window's sessionStorage. */
  storage?: Storage | null;
  timing?: Partial<Timing>;
}

export interface DashboardController {
  /** Removes listeners and stops every timer and request. */
  stop(): void;
}

const DEFAULT_TIMING: Timing = { refreshMs: 5_000, followUpMs: 2_000, followUpForMs: 30_000 };

/**
 * Starts the dashboard in the element `#app` (or the body): sign-in when no token is kept,
 * otherwise the view of the current hash route.
 */
export function startDashboard(env: DashboardEnvironment): DashboardController {
  const doc = env.document;
  const win = env.window;
  const h = elementBuilder(doc);
  const session = new Session(env.storage !== undefined ? env.storage : sessionStorageOf(win));
  const apiBase = env.apiBase ?? '/api/operator';
  const timing: Timing = { ...DEFAULT_TIMING, ...env.timing };
  const preferences: Preferences = { autoRefresh: true };
  const apiFor = (token: () => string | null) => new OperatorApi({ base: apiBase, fetch: env.fetch, token });
  const api = apiFor(() => session.token);
  const root = doc.getElementById('app') ?? doc.body;
  const shell = createShell(h, root);
  let overview: OperatorOverview | null = null;
  let view: View | null = null;
  let login: LoginView | null = null;
  let listHash = '#/transactions';
  let refundsHash = '#/refunds';
  let stopped = false;

  function closeViews(): void {
    view?.destroy();
    view = null;
    login?.destroy();
    login = null;
  }

  function showLogin(alertMessage: string | null, note?: string): void {
    closeViews();
    overview = null;
    shell.signedOut();
    shell.setAlert(alertMessage);
    login = loginView({
      h,
      apiFor: (token) => apiFor(() => token),
      setAlert: shell.setAlert,
      onSignedIn(token, accepted) {
        session.signIn(token);
        signedIn(accepted);
      },
      ...(note ? { note } : {}),
    });
    shell.main.replaceChildren(login.element);
    doc.title = `Sign in — ${PRODUCT_NAME}`;
    login.field.focus();
  }

  function signedIn(accepted: OperatorOverview): void {
    if (stopped) return;
    closeViews();
    overview = accepted;
    shell.signedIn(accepted, () => {
      session.signOut();
      showLogin(null, SIGNED_OUT_NOTE);
    });
    shell.setAlert(null);
    showRoute();
  }

  function sessionEnded(): void {
    session.signOut();
    if (overview !== null) showLogin(SESSION_ENDED_MESSAGE);
  }

  const context = (): ViewContext => ({
    doc,
    win,
    h,
    api,
    overview: overview!,
    preferences,
    timing,
    listHash,
    refundsHash,
    navigate(route: Route) {
      const hash = routeHash(route);
      if (win.location.hash === hash) showRoute();
      else win.location.hash = hash;
    },
    fail(error: unknown) {
      if (error instanceof ApiError && error.aborted) return;
      if (error instanceof ApiError && error.unauthorized) {
        sessionEnded();
        return;
      }
      shell.setAlert(error instanceof Error ? error.message : String(error));
    },
    clearAlert: () => shell.setAlert(null),
  });

  function showRoute(): void {
    if (overview === null || stopped) return;
    const route = parseRoute(win.location.hash);
    shell.markCurrent(route);
    if (route.view === 'transactions') listHash = routeHash(route);
    if (route.view === 'refunds') refundsHash = routeHash(route);
    if (view?.update?.(route)) return;
    closeViews();
    shell.setAlert(null);
    const ctx = context();
    switch (route.view) {
      case 'transactions':
        view = transactionsView(ctx, route.filter);
        break;
      case 'detail':
        view = detailView(ctx, route.code);
        break;
      case 'unmatched':
        view = unmatchedView(ctx);
        break;
      case 'refunds':
        view = refundsView(ctx, route.filter);
        break;
      case 'refund':
        view = refundDetailView(ctx, route.refundId, route.created ?? null);
        break;
      case 'merchant-keys':
        view = merchantKeysView(ctx);
        break;
      case 'rates':
        view = ratesView(ctx);
        break;
      case 'not-found':
        view = notFoundView(ctx, route.path);
        break;
    }
    shell.main.replaceChildren(view.element);
    doc.title = `${view.heading.textContent} — ${PRODUCT_NAME}`;
    view.heading.focus();
  }

  const onHashChange = () => showRoute();
  win.addEventListener('hashchange', onHashChange);

  if (session.token) {
    // A kept token is checked once more: the server may have been restarted with a new one.
    shell.main.replaceChildren(h('p', { class: 'hint view' }, 'Loading…'));
    api.overview().then(signedIn, (error: unknown) => {
      if (stopped) return;
      if (error instanceof ApiError && error.unauthorized) {
        session.signOut();
        showLogin(SESSION_ENDED_MESSAGE);
      } else {
        showLogin(error instanceof Error ? error.message : String(error));
      }
    });
  } else {
    showLogin(null);
  }

  return {
    stop() {
      stopped = true;
      win.removeEventListener('hashchange', onHashChange);
      closeViews();
    },
  };
}
