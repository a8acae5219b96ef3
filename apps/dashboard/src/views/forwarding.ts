import type { NetworkHealth, ServerHealth } from '../api.js';
import { type Child, type ElementBuilder, replaceChildren } from '../dom.js';
import { formatBaseUnits, formatDecimal, nativeCoin } from '../format.js';
import type { ViewContext } from './context.js';
import { mono } from './parts.js';

/** A native coin amount in wei as "1.2345 POL": exact, every decimal kept, grouped. */
export function formatNativeAmount(wei: string, network: string): string {
  return `${formatDecimal(formatBaseUnits(wei))} ${nativeCoin(network)}`;
}

/**
 * One deposit-mode network's forwarding: the sweeper that pays the forwards' gas and its balance,
 * a plain warning when it cannot pay the next forward, the deposits waiting, the forwards under way
 * and the last error. `network` is the network's name ("POLYGON").
 */
export function forwardingCard(h: ElementBuilder, network: string, health: NetworkHealth): HTMLElement {
  const forwarding = health.forwarding;
  const headingId = `forwarding-${network.replace(/[^A-Za-z0-9_-]/g, '_')}-heading`;
  const card = h(
    'article',
    { class: 'forwarding-card', 'aria-labelledby': headingId },
    h('h3', { id: headingId }, `Forwarding on ${network}`),
  );
  if (health.depositFactoryProblem) {
    card.appendChild(h('p', { class: 'warning' }, health.depositFactoryProblem));
  }
  if (!forwarding) return card;
  const coin = nativeCoin(network);
  if (forwarding.needsGas) {
    const needed = forwarding.needsGas.neededWei;
    card.appendChild(
      h(
        'p',
        { class: 'warning' },
        `Needs gas: the sweeper cannot pay for the next forward, so deposits wait. Send ${coin} to ${forwarding.sweeper}` +
          (needed ? ` (the next forward needs about ${formatNativeAmount(needed, network)}).` : '.'),
      ),
    );
  }
  const rows: [string, Child][] = [
    ['Sweeper', mono(h, forwarding.sweeper)],
    [
      'Sweeper balance',
      forwarding.sweeperBalanceWei === null
        ? 'Not read yet'
        : formatNativeAmount(forwarding.sweeperBalanceWei, network),
    ],
    ['Deposits waiting', String(forwarding.depositsWaiting)],
    ['Forwards in flight', String(forwarding.forwardsInFlight)],
    ['Forwards sent', String(forwarding.forwardsSent)],
    ['Sending', forwarding.sending ? 'Yes, this node' : 'No: another node holds the right to send'],
    ['Last error', forwarding.lastError ?? 'None'],
  ];
  card.appendChild(
    h(
      'dl',
      { class: 'summary' },
      ...rows.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
    ),
  );
  return card;
}

/** The networks of `health` in deposit mode, by name. */
export function depositNetworks(health: ServerHealth): [string, NetworkHealth][] {
  return Object.entries(health.networks ?? {}).filter(
    ([, network]) => network.forwarding !== undefined || network.depositFactoryProblem !== undefined,
  );
}

export interface ForwardingSection {
  /** Empty and hidden until the server reports a network in deposit mode. */
  element: HTMLElement;
  /** Reads `/api/health` again and redraws the cards. */
  refresh(): Promise<void>;
}

/** The "Forwarding" panel of the overview: a card per deposit-mode network, from `GET /api/health`. */
export function forwardingSection(ctx: ViewContext, signal: AbortSignal): ForwardingSection {
  const { h, api } = ctx;
  const cards = h('div', { class: 'forwarding-cards' });
  const element = h(
    'section',
    { class: 'panel', 'aria-labelledby': 'forwarding-heading', hidden: true },
    h('h2', { id: 'forwarding-heading' }, 'Forwarding'),
    h(
      'p',
      { class: 'hint' },
      'Deposit mode: payments reach an address per checkout and the server forwards them to the merchant, paying the gas from its sweeper.',
    ),
    cards,
  );
  return {
    element,
    async refresh() {
      let health: ServerHealth;
      try {
        health = await api.health(signal);
      } catch (error) {
        if (!signal.aborted) ctx.fail(error);
        return;
      }
      if (signal.aborted) return;
      const networks = depositNetworks(health);
      element.hidden = networks.length === 0;
      replaceChildren(cards, ...networks.map(([name, network]) => forwardingCard(h, name, network)));
    },
  };
}
