import type { View, ViewContext } from './context.js';

/** An address of the dashboard that leads nowhere. */
export function notFoundView(ctx: ViewContext, path: string): View {
  const { h } = ctx;
  const heading = h('h1', { tabindex: -1 }, 'Page not found');
  const element = h(
    'section',
    { class: 'view' },
    heading,
    h(
      'p',
      {},
      `The dashboard has no page “${path}”. `,
      h('a', { href: '#/transactions' }, 'Go to the transactions'),
    ),
  );
  return { element, heading, destroy() {} };
}
