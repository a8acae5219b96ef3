import { createStatusPoller, openCheckoutModal, type StatusPoller } from '@cryptocheckout/core';

/** What the module's status controller answers inside its success envelope. */
export interface OrderStatus {
  state: string;
  label: string;
  final: boolean;
}

export interface StatusWidgetOptions {
  fetch?: typeof fetch;
  document?: Document | null;
  intervalMs?: number;
}

function isOrderStatus(value: unknown): value is OrderStatus {
  if (typeof value !== 'object' || value === null) return false;
  const data = value as Record<string, unknown>;
  return typeof data.state === 'string' && typeof data.label === 'string' && typeof data.final === 'boolean';
}

/** Reads the status controller's answer; throws on anything but a success envelope. */
export async function fetchOrderStatus(
  url: string,
  signal: AbortSignal,
  fetchImpl: typeof fetch = fetch,
): Promise<OrderStatus> {
  const response = await fetchImpl(url, {
    signal,
    credentials: 'same-origin',
    headers: { accept: 'application/json' },
  });
  if (!response.ok) throw new Error(`status request failed with HTTP ${response.status}`);
  const body = (await response.json()) as { status?: unknown; data?: unknown };
  if (body.status !== 'success' || !isOrderStatus(body.data)) throw new Error('unexpected status answer');
  return body.data;
}

/**
 * Keeps the payment status box of the confirmation / order page current: polls the module's
 * status controller until the order reaches a final state, updating the label and hiding the
 * "Pay now" button once the order no longer awaits payment.
 */
export function startStatusWidget(root: HTMLElement, options: StatusWidgetOptions = {}): StatusPoller | null {
  const url = root.dataset.statusUrl;
  if (!url) return null;
  const label = root.querySelector<HTMLElement>('[data-cryptocheckout-label]');
  const payButton = root.querySelector<HTMLElement>('[data-cryptocheckout-pay]');
  const poller = createStatusPoller<OrderStatus>({
    fetchStatus: (signal) => fetchOrderStatus(url, signal, options.fetch ?? fetch),
    isTerminal: (status) => status.final,
    onUpdate: (status) => {
      root.dataset.state = status.state;
      if (label) label.textContent = status.label;
      if (payButton) payButton.hidden = status.state !== 'awaiting_payment';
    },
    ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }),
    ...(options.document === undefined ? {} : { document: options.document }),
  });
  poller.start();
  return poller;
}

/** True when `url` is an http(s) address on the page's own origin. */
function isSameOrigin(url: string, win: Window): boolean {
  try {
    return new URL(url, win.location.href).origin === win.location.origin;
  } catch {
    return false;
  }
}

/**
 * Embedded display mode: opens the hosted checkout in a modal over the shop. When the pay page
 * reports the payment settled, the buyer goes on to the confirmation page, where the order
 * itself is confirmed from the service. The "open" button reopens a closed modal.
 */
export function startEmbeddedCheckout(root: HTMLElement, win: Window = window): () => void {
  const checkoutUrl = root.dataset.checkoutUrl ?? '';
  const returnUrl = root.dataset.returnUrl ?? '';
  let open = false;
  const show = () => {
    if (open) return;
    open = true;
    openCheckoutModal({
      checkoutUrl,
      document: root.ownerDocument,
      window: win,
      onSettled: () => {
        if (isSameOrigin(returnUrl, win)) win.location.assign(returnUrl);
      },
      onClosed: () => {
        open = false;
      },
    });
  };
  const button = root.querySelector<HTMLElement>('[data-cryptocheckout-open]');
  button?.addEventListener('click', (event) => {
    event.preventDefault();
    show();
  });
  show();
  return show;
}

/** Wires every Crypto Checkout element of the page. */
export function init(doc: Document = document): void {
  for (const root of doc.querySelectorAll<HTMLElement>('[data-cryptocheckout-status]'))
    startStatusWidget(root);
  const embed = doc.querySelector<HTMLElement>('[data-cryptocheckout-embed]');
  if (embed && doc.defaultView) startEmbeddedCheckout(embed, doc.defaultView);
}
