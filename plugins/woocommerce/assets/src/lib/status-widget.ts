import {
  type CheckoutModalHandle,
  createStatusPoller,
  openCheckoutModal,
  type StatusPoller,
} from '@cryptocheckout/core';

/** The buyer-facing status the plugin's status endpoint returns (Gateway\OrderStatus::forBuyer). */
export interface BuyerStatus {
  state: string;
  message: string;
  terminal: boolean;
  checkout_url: string | null;
}

/** The data-config attribute the order-received page prints (Gateway\ThankYou::render). */
export interface WidgetConfig {
  statusUrl: string;
  status: BuyerStatus;
  openModal: boolean;
  i18n: { pay: string; modalTitle: string; close: string; offline: string };
}

export interface WidgetOptions {
  fetch?: typeof fetch;
  /** Passed to the poller; tests use short intervals. */
  intervalMs?: number;
  document?: Document;
}

export interface StatusWidget {
  poller: StatusPoller;
  /** The open payment window, if any. */
  modal(): CheckoutModalHandle | null;
  stop(): void;
}

function isBuyerStatus(value: unknown): value is BuyerStatus {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.state === 'string' &&
    typeof candidate.message === 'string' &&
    typeof candidate.terminal === 'boolean' &&
    (candidate.checkout_url === null || typeof candidate.checkout_url === 'string')
  );
}

/** Reads the widget's configuration from its data-config attribute; null when absent or malformed. */
export function readConfig(element: Element): WidgetConfig | null {
  try {
    const parsed = JSON.parse(element.getAttribute('data-config') ?? '') as Partial<WidgetConfig>;
    if (
      typeof parsed.statusUrl !== 'string' ||
      !isBuyerStatus(parsed.status) ||
      typeof parsed.i18n !== 'object'
    ) {
      return null;
    }
    return parsed as WidgetConfig;
  } catch {
    return null;
  }
}

/**
 * Keeps the order-received page's payment box current: polls the plugin's status endpoint until
 * the order reaches a final state, and opens the hosted payment in a window over the page when the
 * shop uses that display.
 */
export function mountStatusWidget(element: HTMLElement, options: WidgetOptions = {}): StatusWidget | null {
  const config = readConfig(element);
  if (config === null) return null;
  const doc = options.document ?? element.ownerDocument;
  const request = options.fetch ?? ((input, init) => fetch(input, init));
  const message = element.querySelector('.cryptocheckout-status__message');
  let modal: CheckoutModalHandle | null = null;

  const render = (status: BuyerStatus) => {
    element.setAttribute('data-state', status.state);
    if (message !== null) message.textContent = status.message;
    const pay = element.querySelector<HTMLAnchorElement>('.cryptocheckout-status__pay');
    if (status.checkout_url === null) {
      pay?.parentElement?.remove();
      modal?.close();
    } else if (pay !== null) {
      pay.href = status.checkout_url;
    }
  };

  const poller = createStatusPoller<BuyerStatus>({
    fetchStatus: async (signal) => {
      const response = await request(config.statusUrl, {
        signal,
        credentials: 'same-origin',
        headers: { Accept: 'application/json' },
      });
      if (!response.ok) throw new Error(`status endpoint answered HTTP ${response.status}`);
      const body: unknown = await response.json();
      if (!isBuyerStatus(body)) throw new Error('status endpoint answered an unexpected shape');
      return body;
    },
    isTerminal: (status) => status.terminal,
    onUpdate: render,
    onError: () => {
      if (message !== null && message.textContent !== config.i18n.offline) {
        element.setAttribute('data-offline', 'true');
      }
    },
    ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }),
    document: doc,
  });

  const openModal = (url: string) => {
    modal?.close();
    modal = openCheckoutModal({
      checkoutUrl: url,
      title: config.i18n.modalTitle,
      closeLabel: config.i18n.close,
      document: doc,
      onSettled: () => void poller.refresh(),
      onClosed: () => {
        modal = null;
        void poller.refresh();
      },
    });
  };

  element.addEventListener('click', (event) => {
    const target = event.target as Element | null;
    const pay = target?.closest?.('.cryptocheckout-status__pay') as HTMLAnchorElement | null;
    if (pay && config.openModal) {
      event.preventDefault();
      openModal(pay.href);
    }
  });

  render(config.status);
  if (!config.status.terminal) poller.start();
  if (config.openModal && config.status.checkout_url !== null) openModal(config.status.checkout_url);

  return {
    poller,
    modal: () => modal,
    stop: () => {
      poller.stop();
      modal?.close();
    },
  };
}
