import type { OperatorOverview } from '@cryptocheckout/core';
import { type ElementBuilder, replaceChildren } from '../dom.js';
import type { Route } from '../router.js';

/** Product name in the header and the document title. */
export const PRODUCT_NAME = 'Crypto Checkout — operator';

/** The page frame: header (name, mode, navigation, sign-out), the alert region and `<main>`. */
export interface Shell {
  main: HTMLElement;
  /** `role="alert"` region for errors; its id is ALERT_ID. */
  alert: HTMLElement;
  /** Header of a signed-in operator; `onSignOut` runs when "Sign out" is pressed. */
  signedIn(overview: OperatorOverview, onSignOut: () => void): void;
  /** Header with the product name only. */
  signedOut(): void;
  /** Marks the navigation link of `route` with aria-current. */
  markCurrent(route: Route): void;
  /** Shows `message` in the alert region, or empties it. */
  setAlert(message: string | null): void;
}

export const ALERT_ID = 'alert';

const NAV: readonly { href: string; label: string; views: readonly Route['view'][] }[] = [
  { href: '#/transactions', label: 'Transactions', views: ['transactions', 'detail'] },
  { href: '#/unmatched', label: 'Unmatched payments', views: ['unmatched'] },
  { href: '#/refunds', label: 'Refunds', views: ['refunds', 'refund'] },
  { href: '#/merchant-keys', label: 'Merchant keys', views: ['merchant-keys'] },
  { href: '#/rates', label: 'Rates', views: ['rates'] },
];

/** Builds the frame into `root`, replacing what was there (the no-script note). */
export function createShell(h: ElementBuilder, root: HTMLElement): Shell {
  const header = h('header', { class: 'top' });
  const alert = h('div', { id: ALERT_ID, class: 'alert', role: 'alert' });
  const main = h('main', { id: 'main', class: 'main' });
  replaceChildren(root, header, h('div', { class: 'alert-slot' }, alert), main);
  const brand = () => h('p', { class: 'brand' }, PRODUCT_NAME);
  let links: { element: HTMLAnchorElement; views: readonly Route['view'][] }[] = [];

  return {
    main,
    alert,
    signedIn(overview, onSignOut) {
      links = NAV.map((item) => ({ element: h('a', { href: item.href }, item.label), views: item.views }));
      const signOut = h('button', { type: 'button', class: 'btn btn--quiet' }, 'Sign out');
      signOut.addEventListener('click', onSignOut);
      replaceChildren(
        header,
        h(
          'div',
          { class: 'top-brand' },
          brand(),
          h(
            'span',
            {
              class: `badge badge--mode-${overview.mode}`,
              title: `Server ${overview.version}, ${overview.storage}`,
            },
            overview.mode === 'live' ? 'Live mode' : 'Sandbox mode',
          ),
        ),
        h(
          'nav',
          { class: 'top-nav', 'aria-label': 'Sections' },
          h('ul', {}, ...links.map((link) => h('li', {}, link.element))),
        ),
        signOut,
      );
    },
    signedOut() {
      links = [];
      replaceChildren(header, h('div', { class: 'top-brand' }, brand()));
    },
    markCurrent(route) {
      for (const link of links) {
        if (link.views.includes(route.view)) link.element.setAttribute('aria-current', 'page');
        else link.element.removeAttribute('aria-current');
      }
    },
    setAlert(message) {
      alert.textContent = message ?? '';
    },
  };
}
