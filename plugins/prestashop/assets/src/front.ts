import { mountStatusWidgets, openCheckoutModal, type StatusWidget } from '@cryptocheckout/core/browser';

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

/**
 * Wires every Crypto Checkout element of the page: the payment status box of the confirmation and
 * order pages (the kernel's StatusWidgetMarkup, kept current by the shared widget) and the
 * embedded checkout. Returns the status widgets.
 */
export function init(doc: Document = document): StatusWidget[] {
  const embed = doc.querySelector<HTMLElement>('[data-cryptocheckout-embed]');
  if (embed && doc.defaultView) startEmbeddedCheckout(embed, doc.defaultView);
  return mountStatusWidgets(doc);
}
