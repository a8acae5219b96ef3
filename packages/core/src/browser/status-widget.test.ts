import { readFileSync } from 'node:fs';
import { Window } from 'happy-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type BuyerStatus,
  mountStatusWidget,
  mountStatusWidgets,
  type StatusWidget,
} from './status-widget.js';

// The buyer's status box as the PHP kernel prints it (StatusWidgetMarkup) and its status endpoint
// answers it (BuyerStatus in HttpReply's envelope), brought to life by the widget in happy-dom.
// Each test has its own happy-dom window.

/** The order situations of the vectors ("_closed": open order, its checkout expired). */
type StatusCase =
  | 'awaiting_payment'
  | 'awaiting_payment_closed'
  | 'underpaid'
  | 'underpaid_closed'
  | 'late_payment_review'
  | 'paid'
  | 'cancelled';

interface StatusFixture {
  /** BuyerStatus::of() */
  status: BuyerStatus;
  /** The status endpoint's body: HttpReply::success(status) */
  answer: string;
  /** StatusWidgetMarkup::render() without and with openModal */
  box: string;
  modalBox: string;
}

// Rendered by the PHP kernel in English for these URLs; php-client's status-fixtures.test.ts keeps
// the file equal to what PHP renders, so this test needs no PHP.
const vectors = JSON.parse(
  readFileSync(new URL('../../vectors/buyer-status.json', import.meta.url), 'utf8'),
) as { statusUrl: string; checkoutUrl: string; cases: Record<StatusCase, StatusFixture> };
const fixtures = vectors.cases;
const STATUS_URL = vectors.statusUrl;
const CHECKOUT_URL = vectors.checkoutUrl;

// Labels unlike the kernel's English ones prove that the texts the widget adds come from the box.
const LABELS = {
  title: 'Krypto-Zahlung',
  pay: 'Jetzt zahlen',
  modalTitle: 'Krypto-Zahlung',
  close: 'Zahlung schließen',
  offline: 'Keine Verbindung; neuer Versuch…',
};

describe('status widget on the markup the PHP kernel renders', () => {
  let widget: StatusWidget | null = null;
  let window: Window;
  let document: Document;

  beforeEach(() => {
    // Only the poller's timers: happy-dom and the fetch mock keep running on their own.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    window = new Window({
      url: 'https://shop.example/checkout/order-received/12/',
      settings: { navigation: { disableChildFrameNavigation: true } },
    });
    document = window.document as unknown as Document;
  });

  afterEach(() => {
    widget?.stop();
    widget = null;
    vi.useRealTimers();
    window.close();
  });

  const flush = () => vi.advanceTimersByTimeAsync(0);
  const click = (modifiers: { ctrlKey?: boolean } = {}) =>
    new window.MouseEvent('click', {
      bubbles: true,
      cancelable: true,
      button: 0,
      ...modifiers,
    }) as unknown as MouseEvent;

  function page(html: string): HTMLElement {
    document.body.innerHTML = `<main>${html}</main>`;
    return document.querySelector<HTMLElement>('[data-cryptocheckout-status]')!;
  }

  /** Gives the box {@link LABELS} in its data-config, as a shop in another language prints them. */
  function relabel(root: HTMLElement): HTMLElement {
    const config = JSON.parse(root.getAttribute('data-config')!) as Record<string, unknown>;
    root.setAttribute('data-config', JSON.stringify({ ...config, labels: LABELS }));
    return root;
  }

  /** A status endpoint answering the given bodies in turn (a number is an HTTP error status). */
  function endpoint(...answers: (string | number)[]) {
    return vi.fn<typeof fetch>(async () => {
      const next = answers.length > 1 ? answers.shift()! : answers[0]!;
      return typeof next === 'number'
        ? new Response('Service Unavailable', { status: next })
        : new Response(next, { status: 200, headers: { 'content-type': 'application/json' } });
    });
  }

  const message = (root: HTMLElement) => root.querySelector('.cryptocheckout-status__message')!;
  const payLink = (root: HTMLElement) => root.querySelector<HTMLAnchorElement>('.cryptocheckout-status__pay');
  const payShown = (root: HTMLElement) => {
    const link = payLink(root);
    return link !== null && !link.hidden && !(link.parentElement as HTMLElement).hidden;
  };
  const dialog = () => document.querySelector<HTMLElement>('[data-cryptocheckout-modal] [role="dialog"]');

  it('shows a final status as printed and never polls it', async () => {
    const root = page(fixtures.cancelled.box);
    const fetch = endpoint(fixtures.cancelled.answer);
    widget = mountStatusWidget(root, { fetch });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fetch).not.toHaveBeenCalled();
    expect(widget.polling).toBe(false);
    expect(root.getAttribute('data-state')).toBe('cancelled');
    expect(message(root).textContent).toBe(fixtures.cancelled.status.message);
    expect(payLink(root)).toBeNull();
  });

  it('polls the status endpoint until the status is final, keeping message, state and "Pay now" current', async () => {
    const root = page(fixtures.awaiting_payment.box);
    expect(payShown(root)).toBe(true);
    expect(payLink(root)?.textContent).toBe('Pay now');
    const fetch = endpoint(fixtures.awaiting_payment.answer, fixtures.underpaid.answer, fixtures.paid.answer);
    const onUpdate = vi.fn();
    widget = mountStatusWidget(root, { fetch, intervalMs: 1_000, onUpdate });
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(fetch.mock.calls[0]?.[0]).toBe(STATUS_URL);
    expect(fetch.mock.calls[0]?.[1]).toMatchObject({ credentials: 'same-origin', cache: 'no-store' });
    await flush();
    expect(widget.polling).toBe(true);

    await vi.advanceTimersByTimeAsync(1_000);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(root.getAttribute('data-state')).toBe('underpaid');
    expect(message(root).textContent).toBe(fixtures.underpaid.status.message);
    expect(payShown(root)).toBe(true);

    await vi.advanceTimersByTimeAsync(1_000);
    expect(root.getAttribute('data-state')).toBe('paid');
    expect(payShown(root)).toBe(false);
    expect(onUpdate).toHaveBeenLastCalledWith(fixtures.paid.status);
    expect(widget.status).toEqual(fixtures.paid.status);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fetch).toHaveBeenCalledTimes(3);
    expect(widget.polling).toBe(false);
  });

  it('shows the message as text, never as markup', async () => {
    const root = page(fixtures.awaiting_payment.box);
    const hostile = { ...fixtures.paid.status, message: '<img src=x onerror=alert(1)> Thanks!' };
    widget = mountStatusWidget(root, {
      fetch: endpoint(JSON.stringify({ status: 'success', data: hostile })),
    });
    await flush();
    expect(message(root).textContent).toBe('<img src=x onerror=alert(1)> Thanks!');
    expect(root.querySelector('img')).toBeNull();
  });

  it('shows the offline label while the endpoint fails, backing off, and recovers', async () => {
    const root = relabel(page(fixtures.awaiting_payment.box));
    const errorEnvelope = JSON.stringify({
      status: 'error',
      error: { code: 'unavailable', message: 'down' },
    });
    const fetch = endpoint(
      503,
      errorEnvelope,
      '{"status":"success","data":{"state":1}}',
      fixtures.paid.answer,
    );
    widget = mountStatusWidget(root, { fetch, intervalMs: 1_000, maxIntervalMs: 30_000 });
    await flush();
    const note = root.querySelector<HTMLElement>('.cryptocheckout-status__offline');
    expect(note?.textContent).toBe('Keine Verbindung; neuer Versuch…');
    expect(note?.hidden).toBe(false);
    expect(root.hasAttribute('data-offline')).toBe(true);
    // The last known status stays readable.
    expect(message(root).textContent).toBe(fixtures.awaiting_payment.status.message);

    // 1 s × 2, × 4, × 8: each failure doubles the wait.
    await vi.advanceTimersByTimeAsync(1_999);
    expect(fetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetch).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(4_000);
    expect(fetch).toHaveBeenCalledTimes(3);
    expect(root.hasAttribute('data-offline')).toBe(true);
    await vi.advanceTimersByTimeAsync(8_000);
    expect(fetch).toHaveBeenCalledTimes(4);
    expect(root.getAttribute('data-state')).toBe('paid');
    expect(note?.hidden).toBe(true);
    expect(root.hasAttribute('data-offline')).toBe(false);
  });

  it('opens the payment page over the shop when the box asks, and again from "Pay now"', async () => {
    const root = relabel(page(fixtures.awaiting_payment.modalBox));
    const fetch = endpoint(fixtures.awaiting_payment.answer);
    widget = mountStatusWidget(root, { fetch, intervalMs: 10_000 });
    expect(dialog()?.getAttribute('aria-label')).toBe('Krypto-Zahlung');
    expect(dialog()?.querySelector('button')?.getAttribute('aria-label')).toBe('Zahlung schließen');
    expect(dialog()?.querySelector('iframe')?.getAttribute('src')).toBe(
      `${CHECKOUT_URL}?embed=1&parent_origin=https%3A%2F%2Fshop.example`,
    );
    expect(widget.modal).not.toBeNull();
    await flush();
    expect(fetch).toHaveBeenCalledTimes(1);

    // Closing the modal checks at once whether the buyer paid.
    widget.modal?.close();
    expect(dialog()).toBeNull();
    expect(widget.modal).toBeNull();
    await flush();
    expect(fetch).toHaveBeenCalledTimes(2);

    const event = click();
    payLink(root)!.dispatchEvent(event);
    expect(event.defaultPrevented).toBe(true);
    expect(dialog()).not.toBeNull();
  });

  it('leaves a modified click on "Pay now" to the browser', () => {
    const root = page(fixtures.awaiting_payment.modalBox);
    widget = mountStatusWidget(root, { fetch: endpoint(fixtures.awaiting_payment.answer) });
    widget.modal?.close();
    const seen: boolean[] = [];
    const record = (event: Event) => {
      seen.push(event.defaultPrevented);
      event.preventDefault(); // keeps happy-dom from navigating
    };
    document.addEventListener('click', record);
    try {
      payLink(root)!.dispatchEvent(click({ ctrlKey: true }));
      expect(seen).toEqual([false]);
      expect(dialog()).toBeNull();
    } finally {
      document.removeEventListener('click', record);
    }
  });

  it('follows "Pay now" when the shop does not pay in a modal', () => {
    const root = page(fixtures.awaiting_payment.box);
    widget = mountStatusWidget(root, { fetch: endpoint(fixtures.awaiting_payment.answer) });
    expect(dialog()).toBeNull();
    const seen: boolean[] = [];
    const record = (event: Event) => {
      seen.push(event.defaultPrevented);
      event.preventDefault();
    };
    document.addEventListener('click', record);
    try {
      payLink(root)!.dispatchEvent(click());
      expect(seen).toEqual([false]);
      expect(dialog()).toBeNull();
    } finally {
      document.removeEventListener('click', record);
    }
  });

  it('closes the modal and hides "Pay now" once paying is no longer possible', async () => {
    const root = page(fixtures.underpaid.modalBox);
    const fetch = endpoint(fixtures.underpaid_closed.answer);
    widget = mountStatusWidget(root, { fetch });
    expect(dialog()).not.toBeNull();
    await flush();
    expect(dialog()).toBeNull();
    // The modal closing on a final status is no reason to ask again.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(payShown(root)).toBe(false);
    expect(message(root).textContent).toBe(fixtures.underpaid_closed.status.message);
    expect(widget.polling).toBe(false);
  });

  it('refresh() looks again after a final status and offers a payment page that reappeared', async () => {
    const root = relabel(page(fixtures.underpaid_closed.box));
    expect(payLink(root)).toBeNull();
    const fetch = endpoint(fixtures.underpaid.answer, fixtures.paid.answer);
    widget = mountStatusWidget(root, { fetch, intervalMs: 1_000 });
    expect(fetch).not.toHaveBeenCalled();
    await widget.refresh();
    expect(root.getAttribute('data-state')).toBe('underpaid');
    expect(payShown(root)).toBe(true);
    expect(payLink(root)?.href).toBe(CHECKOUT_URL);
    expect(payLink(root)?.textContent).toBe('Jetzt zahlen');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(payShown(root)).toBe(false);
    expect(widget.polling).toBe(false);
  });

  it('openModal() follows the status meanwhile, and says false where no modal can open', async () => {
    const root = page(fixtures.cancelled.box);
    const fetch = endpoint(fixtures.awaiting_payment.answer);
    widget = mountStatusWidget(root, { fetch, intervalMs: 1_000 });
    expect(widget.openModal()).toBe(false);
    expect(widget.openModal('not a url')).toBe(false);
    expect(fetch).not.toHaveBeenCalled();
    expect(widget.openModal(CHECKOUT_URL)).toBe(true);
    expect(dialog()).not.toBeNull();
    await flush();
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(widget.polling).toBe(true);
  });

  it('stop() ends polling, closes the modal and detaches "Pay now"', async () => {
    const root = page(fixtures.awaiting_payment.modalBox);
    const fetch = endpoint(fixtures.awaiting_payment.answer);
    widget = mountStatusWidget(root, { fetch, intervalMs: 1_000 });
    await flush();
    widget.stop();
    expect(dialog()).toBeNull();
    expect(widget.polling).toBe(false);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fetch).toHaveBeenCalledTimes(1);
    document.addEventListener('click', (event) => event.preventDefault(), { once: true });
    payLink(root)!.dispatchEvent(click());
    expect(dialog()).toBeNull();
    expect(widget.openModal()).toBe(false);
    await widget.refresh();
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('mountStatusWidgets() mounts every box of the page', () => {
    document.body.innerHTML = `${fixtures.paid.box}<div>${fixtures.cancelled.box}</div>`;
    const widgets = mountStatusWidgets(document, { fetch: endpoint(fixtures.paid.answer) });
    expect(widgets.map((mounted) => mounted.status.state)).toEqual(['paid', 'cancelled']);
  });

  it('names the field when data-config is missing or malformed', () => {
    const root = page(fixtures.awaiting_payment.box);
    const config = JSON.parse(root.getAttribute('data-config')!) as Record<string, unknown>;
    const mountWith = (value: unknown) => {
      root.setAttribute('data-config', typeof value === 'string' ? value : JSON.stringify(value));
      return () => mountStatusWidget(root);
    };
    expect(mountWith('{nope')).toThrow('data-config is not JSON');
    expect(mountWith([])).toThrow('data-config must be an object');
    expect(mountWith({ ...config, statusUrl: 5 })).toThrow('data-config.statusUrl must be a string');
    expect(mountWith({ ...config, openModal: 'yes' })).toThrow('data-config.openModal must be a boolean');
    expect(mountWith({ ...config, labels: { pay: 'Pay' } })).toThrow(
      'data-config.labels.title must be a string',
    );
    expect(
      mountWith({
        ...config,
        status: { ...fixtures.awaiting_payment.status, checkout_url: 'javascript:alert(1)' },
      }),
    ).toThrow('data-config.status.checkout_url must be an absolute http(s) URL or null');
    expect(mountWith({ ...config, status: { ...fixtures.awaiting_payment.status, terminal: 0 } })).toThrow(
      'data-config.status.terminal must be a boolean',
    );
    root.removeAttribute('data-config');
    expect(() => mountStatusWidget(root)).toThrow('data-config is missing');
  });
});
