/**
 * Invoice page script of the Crypto Checkout WHMCS module: opens the checkout over the invoice in
 * embedded mode, and keeps the payment status line up to date from the module's status endpoint.
 * Either way the invoice is paid by the server (webhook, cron, status check), never by this script.
 */
import { createStatusPoller, openCheckoutModal, type StatusPoller } from '@cryptocheckout/core';

/** What the module's status endpoint answers. */
export interface InvoiceStatus {
  invoice_status: string;
  state: string;
  message: string;
  terminal: boolean;
}

interface PayAnswer {
  checkout_url?: string;
  invoice_url?: string;
  paid?: boolean;
  error?: string;
}

export interface InvoiceScriptOptions {
  document: Document;
  window: Window;
  fetch: typeof fetch;
  /** Poll interval of the status line (ms). */
  intervalMs?: number;
}

const OPEN_STATES = ['awaiting_payment', 'underpaid'];

function isInvoiceStatus(value: unknown): value is InvoiceStatus {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.invoice_status === 'string' &&
    typeof candidate.state === 'string' &&
    typeof candidate.message === 'string' &&
    typeof candidate.terminal === 'boolean'
  );
}

/** Wires every Crypto Checkout block on the page; returns the pollers it started, for tests. */
export function initInvoicePage(options: InvoiceScriptOptions): StatusPoller[] {
  const { document: doc, window: win } = options;
  const pollers: StatusPoller[] = [];
  for (const block of Array.from(doc.querySelectorAll<HTMLElement>('[data-cryptocheckout]'))) {
    const form = block.querySelector<HTMLFormElement>('form[data-cryptocheckout-pay]');
    const line = block.querySelector<HTMLElement>('[data-cryptocheckout-status]');
    const statusUrl = line?.getAttribute('data-status-url') ?? '';
    let poller: StatusPoller | undefined;

    const startPolling = () => {
      if (line === null || statusUrl === '' || poller?.running) return;
      const initialPaid = line.getAttribute('data-state') === 'paid';
      poller = createStatusPoller<InvoiceStatus>({
        fetchStatus: async (signal) => {
          const response = await options.fetch(statusUrl, {
            signal,
            headers: { Accept: 'application/json' },
            credentials: 'same-origin',
          });
          const body: unknown = await response.json();
          if (!response.ok || !isInvoiceStatus(body))
            throw new Error(`status endpoint answered ${response.status}`);
          return body;
        },
        isTerminal: (status) => status.terminal,
        onUpdate: (status) => {
          line.textContent = status.message;
          line.setAttribute('data-state', status.state);
          if (status.invoice_status === 'Paid' && !initialPaid) win.location.reload();
        },
        document: doc,
        ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }),
      });
      poller.start();
      pollers.push(poller);
    };

    if (OPEN_STATES.includes(line?.getAttribute('data-state') ?? '')) startPolling();

    if (form === null || form.getAttribute('data-mode') !== 'embedded') continue;
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const button = form.querySelector<HTMLButtonElement>('button[type="submit"]');
      if (button) button.disabled = true;
      const body = new URLSearchParams();
      for (const input of Array.from(form.querySelectorAll<HTMLInputElement>('input[type="hidden"]'))) {
        body.append(input.name, input.value);
      }
      options
        .fetch(form.action, {
          method: 'POST',
          body,
          headers: { Accept: 'application/json', 'Content-Type': 'application/x-www-form-urlencoded' },
          credentials: 'same-origin',
        })
        .then(async (response) => {
          const answer = (await response.json()) as PayAnswer;
          if (answer.checkout_url) {
            try {
              openCheckoutModal({
                checkoutUrl: answer.checkout_url,
                document: doc,
                window: win,
                onSettled: () => startPolling(),
                onClosed: () => {
                  if (button) button.disabled = false;
                  startPolling();
                },
              });
            } catch {
              win.location.assign(answer.checkout_url);
            }
            startPolling();
            return;
          }
          if (answer.paid && answer.invoice_url) {
            win.location.assign(answer.invoice_url);
            return;
          }
          if (line) line.textContent = answer.error ?? 'The payment could not be started. Please try again.';
          if (button) button.disabled = false;
        })
        .catch(() => {
          // Without an answer, fall back to the plain form post (the endpoint redirects).
          form.submit();
        });
    });
  }
  return pollers;
}

if (typeof window !== 'undefined' && typeof document !== 'undefined') {
  const start = () => initInvoicePage({ document, window, fetch: window.fetch.bind(window) });
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
}
