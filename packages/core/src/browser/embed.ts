import { buildEmbedUrl, type EmbedMessage, isEmbedMessage } from '../embed-protocol.js';

/** Why the modal closed: the buyer dismissed it, the pay page asked, or the host called close(). */
export type CheckoutModalCloseReason = 'dismissed' | 'checkout' | 'host';

export interface CheckoutModalOptions {
  /** The `checkout_url` returned by POST /checkout (absolute http(s) URL). */
  checkoutUrl: string;
  /** Called once when the pay page reports the transaction settled. A hint for the UI only. */
  onSettled?: (message: EmbedMessage) => void;
  /** Called once when the modal closes, for whatever reason. */
  onClosed?: (reason: CheckoutModalCloseReason) => void;
  /** Accessible name of the dialog and the frame. Default 'Crypto Checkout payment'. */
  title?: string;
  /** Accessible name of the close button. Default 'Close payment'. */
  closeLabel?: string;
  /** Defaults to the global `document` (or the injected window's). */
  document?: Document;
  /** Defaults to the document's `defaultView`. */
  window?: Window;
}

export interface CheckoutModalHandle {
  /** Closes the modal; later calls do nothing. */
  close(): void;
  readonly iframe: HTMLIFrameElement;
  /** The element with role="dialog". */
  readonly dialog: HTMLElement;
}

const DEFAULT_TITLE = 'Crypto Checkout payment';
const DEFAULT_CLOSE_LABEL = 'Close payment';
const INITIAL_FRAME_HEIGHT = 640;
const MIN_FRAME_HEIGHT = 240;
// The dialog's max-height keeps it inside the viewport; this only bounds absurd values.
const MAX_FRAME_HEIGHT = 4_000;
// Keeps the backdrop above anything the merchant theme stacks.
const TOP_LAYER = '2147483647';

/**
 * Opens the hosted checkout in an accessible modal dialog over the current page and relays the pay
 * page's messages. Styling is applied through `element.style` only, which strict content security
 * policies allow, so the host needs no stylesheet. Throws a TypeError when `checkoutUrl` is not an
 * absolute http(s) URL or the page has no http(s) origin.
 */
export function openCheckoutModal(options: CheckoutModalOptions): CheckoutModalHandle {
  const { doc, win } = resolveDom(options);

  const src = buildEmbedUrl(options.checkoutUrl, win.location.origin);
  const checkoutOrigin = new URL(src).origin;
  const title = options.title ?? DEFAULT_TITLE;
  const closeLabel = options.closeLabel ?? DEFAULT_CLOSE_LABEL;

  const overlay = doc.createElement('div');
  overlay.setAttribute('data-cryptocheckout-modal', '');
  setStyles(overlay, {
    position: 'fixed',
    top: '0',
    right: '0',
    bottom: '0',
    left: '0',
    'z-index': TOP_LAYER,
    display: 'flex',
    'align-items': 'center',
    'justify-content': 'center',
    padding: '16px',
    'box-sizing': 'border-box',
    background: 'rgba(17, 24, 39, 0.6)',
  });

  const dialog = doc.createElement('div');
  dialog.setAttribute('role', 'dialog');
  dialog.setAttribute('aria-modal', 'true');
  dialog.setAttribute('aria-label', title);
  // Focusable by script only, so focus can land on the dialog and announce its name.
  dialog.tabIndex = -1;
  setStyles(dialog, {
    display: 'flex',
    'flex-direction': 'column',
    width: '100%',
    'max-width': '480px',
    'max-height': 'calc(100vh - 32px)',
    'box-sizing': 'border-box',
    overflow: 'hidden',
    background: '#ffffff',
    'border-radius': '12px',
    'box-shadow': '0 20px 50px rgba(0, 0, 0, 0.3)',
  });

  const header = doc.createElement('div');
  setStyles(header, { display: 'flex', 'justify-content': 'flex-end', padding: '4px' });

  const closeButton = doc.createElement('button');
  closeButton.type = 'button';
  closeButton.setAttribute('aria-label', closeLabel);
  closeButton.title = closeLabel;
  closeButton.textContent = '\u00d7';
  setStyles(closeButton, {
    width: '44px',
    height: '44px',
    padding: '0',
    border: '0',
    'border-radius': '8px',
    background: 'transparent',
    color: '#111827',
    'font-size': '28px',
    'line-height': '1',
    cursor: 'pointer',
  });

  const iframe = doc.createElement('iframe');
  iframe.title = title;
  // The pay page offers copy-to-clipboard for addresses and amounts.
  iframe.setAttribute('allow', 'clipboard-write');
  iframe.src = src;
  setStyles(iframe, {
    display: 'block',
    width: '100%',
    height: `${INITIAL_FRAME_HEIGHT}px`,
    'min-height': '0',
    flex: '0 1 auto',
    border: '0',
  });

  header.append(closeButton);
  dialog.append(header, iframe);
  overlay.append(dialog);

  const previouslyFocused = doc.activeElement;
  const root = doc.documentElement;
  const body = doc.body ?? root;
  const savedOverflow = { root: root.style.overflow, body: body.style.overflow };
  let closed = false;
  let settledReported = false;

  const focusFirst = (): void => closeButton.focus();

  function onMessage(event: MessageEvent): void {
    // Only the pay page in this very frame may talk to us: right origin and right window.
    if (event.origin !== checkoutOrigin) return;
    if (event.source === null || event.source !== iframe.contentWindow) return;
    const message: unknown = event.data;
    if (!isEmbedMessage(message)) return;
    if (message.type === 'settled') {
      if (settledReported) return;
      settledReported = true;
      options.onSettled?.(message);
    } else if (message.type === 'closed') {
      close('checkout');
    } else if (message.height !== undefined) {
      const height = Math.min(MAX_FRAME_HEIGHT, Math.max(MIN_FRAME_HEIGHT, Math.ceil(message.height)));
      iframe.style.height = `${height}px`;
    }
  }

  function onKeydown(event: KeyboardEvent): void {
    if (event.key === 'Escape' || event.key === 'Esc') {
      event.preventDefault();
      close('dismissed');
      return;
    }
    if (event.key !== 'Tab') return;
    const focusable: HTMLElement[] = [closeButton, iframe];
    const active = doc.activeElement;
    const index = focusable.indexOf(active as HTMLElement);
    if (event.shiftKey && index <= 0) {
      event.preventDefault();
      iframe.focus();
    } else if (!event.shiftKey && (index === focusable.length - 1 || !dialog.contains(active))) {
      event.preventDefault();
      focusFirst();
    }
  }

  // Tabbing out of the cross-origin frame is invisible to keydown; pull focus back when it escapes.
  function onFocusIn(event: FocusEvent): void {
    if (!overlay.contains(event.target as Node | null)) focusFirst();
  }

  function close(reason: CheckoutModalCloseReason): void {
    if (closed) return;
    closed = true;
    win.removeEventListener('message', onMessage);
    doc.removeEventListener('keydown', onKeydown, true);
    doc.removeEventListener('focusin', onFocusIn, true);
    overlay.remove();
    root.style.overflow = savedOverflow.root;
    body.style.overflow = savedOverflow.body;
    if (isFocusable(previouslyFocused) && previouslyFocused.isConnected) previouslyFocused.focus();
    options.onClosed?.(reason);
  }

  closeButton.addEventListener('click', () => close('dismissed'));
  win.addEventListener('message', onMessage);
  // Capture phase, so the page's own handlers cannot swallow Escape or Tab first.
  doc.addEventListener('keydown', onKeydown, true);
  doc.addEventListener('focusin', onFocusIn, true);

  root.style.overflow = 'hidden';
  body.style.overflow = 'hidden';
  body.append(overlay);
  dialog.focus();

  return {
    close: () => close('host'),
    iframe,
    dialog,
  };
}

function resolveDom(options: CheckoutModalOptions): { doc: Document; win: Window } {
  // Read through globalThis: outside a browser `document` is absent and must not throw.
  const doc: Document | undefined =
    options.document ?? options.window?.document ?? (globalThis.document as Document | undefined);
  const win = options.window ?? doc?.defaultView;
  if (!doc || !win) throw new Error('openCheckoutModal needs a browser document and window');
  return { doc, win };
}

function setStyles(element: HTMLElement, styles: Record<string, string>): void {
  for (const [property, value] of Object.entries(styles)) element.style.setProperty(property, value);
}

function isFocusable(element: Element | null): element is HTMLElement {
  return element !== null && typeof (element as HTMLElement).focus === 'function';
}
