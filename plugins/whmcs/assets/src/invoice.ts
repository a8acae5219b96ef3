/**
 * Invoice page script of the Crypto Checkout WHMCS module: keeps the payment status box (the
 * kernel's StatusWidgetMarkup, through the shared widget) up to date, and in modal mode (the block's
 * data-mode) opens the checkout over the invoice when the buyer presses the pay button. Either way the invoice is
 * paid by the server (webhook, cron, status check), never by this script.
 */
import { mountStatusWidget, STATUS_WIDGET_SELECTOR, type StatusWidget } from '@cryptocheckout/core/browser';

/** What the module's pay endpoint answers to a script (Accept: application/json), in the service's envelope. */
type PayAnswer =
  | { status: 'success'; data: { checkout_url?: string; invoice_url?: string; paid?: boolean } }
  | { status: 'error'; error: { code: string; message: string } };

export interface InvoiceScriptOptions {
  document: Document;
  window: Window;
  fetch: typeof fetch;
  /** Poll interval of the status box (ms). */
  intervalMs?: number;
}

/** Wires every Crypto Checkout block on the page; returns the status widgets it mounted, for tests. */
export function initInvoicePage(options: InvoiceScriptOptions): StatusWidget[] {
  const { document: doc, window: win } = options;
  const widgets: StatusWidget[] = [];
  for (const block of Array.from(doc.querySelectorAll<HTMLElement>('[data-cryptocheckout]'))) {
    const form = block.querySelector<HTMLFormElement>('form[data-cryptocheckout-pay]');
    const modal = block.getAttribute('data-mode') === 'modal';
    const box = block.querySelector<HTMLElement>(STATUS_WIDGET_SELECTOR);
    const paidOnLoad = box?.getAttribute('data-state') === 'paid';
    const widget =
      box === null
        ? null
        : mountStatusWidget(box, {
            fetch: options.fetch,
            intervalMs: options.intervalMs,
            payInModal: modal,
            // WHMCS shows the paid invoice (receipt, "Paid" stamp) only on a fresh page.
            onUpdate: (status) => {
              if (status.state === 'paid' && !paidOnLoad) win.location.reload();
            },
          });
    if (widget !== null) widgets.push(widget);

    if (form === null || !modal) continue;
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
          if (button) button.disabled = false;
          if (answer.status === 'error') {
            showProblem(block, answer.error.message);
            return;
          }
          const { checkout_url: checkoutUrl, invoice_url: invoiceUrl, paid } = answer.data;
          if (checkoutUrl) {
            if (!widget?.openModal(checkoutUrl)) win.location.assign(checkoutUrl);
          } else if (paid && invoiceUrl) {
            win.location.assign(invoiceUrl);
          } else {
            showProblem(block, 'The payment could not be started. Please try again.');
          }
        })
        .catch(() => {
          // Without an answer, fall back to the plain form post (the endpoint redirects).
          form.submit();
        });
    });
  }
  return widgets;
}

/** Shows why the payment could not be started, below the pay button. */
function showProblem(block: HTMLElement, text: string): void {
  let problem = block.querySelector<HTMLElement>('.cryptocheckout-problem');
  if (problem === null) {
    problem = block.ownerDocument.createElement('p');
    problem.className = 'cryptocheckout-problem';
    problem.setAttribute('role', 'alert');
    block.querySelector('form')?.after(problem);
  }
  problem.textContent = text;
}

if (typeof window !== 'undefined' && typeof document !== 'undefined') {
  const start = () => initInvoicePage({ document, window, fetch: window.fetch.bind(window) });
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
}
