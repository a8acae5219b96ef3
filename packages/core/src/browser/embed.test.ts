// @vitest-environment happy-dom
// @vitest-environment-options {"url": "https://shop.example/checkout", "settings": {"navigation": {"disableChildFrameNavigation": true}}}
import { Window as HappyDomWindow } from 'happy-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EmbedMessage } from '../embed-protocol.js';
import { type CheckoutModalHandle, openCheckoutModal } from './embed.js';

const CODE = '3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f';
const CHECKOUT_URL = `https://pay.example/pay/${CODE}`;
const PAY_ORIGIN = 'https://pay.example';

const message = (fields: Partial<EmbedMessage>): EmbedMessage => ({
  source: 'cryptocheckout',
  version: 1,
  type: 'settled',
  transaction_code: CODE,
  ...fields,
});

function post(
  data: unknown,
  origin: string,
  source: MessageEventSource | null,
  target: Window = window,
): void {
  target.dispatchEvent(new MessageEvent('message', { data, origin, source }));
}

function pressKey(key: string, init: KeyboardEventInit = {}): KeyboardEvent {
  const event = new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...init });
  (document.activeElement ?? document).dispatchEvent(event);
  return event;
}

function frameWindow(handle: CheckoutModalHandle): Window {
  const frame = handle.iframe.contentWindow;
  if (!frame) throw new Error('iframe has no window');
  return frame;
}

const closeButtonOf = (handle: CheckoutModalHandle): HTMLButtonElement => {
  const button = handle.dialog.querySelector('button');
  if (!button) throw new Error('no close button');
  return button;
};

let opener: HTMLButtonElement;
let handles: CheckoutModalHandle[] = [];

function open(overrides: Partial<Parameters<typeof openCheckoutModal>[0]> = {}) {
  const onSettled = vi.fn<(message: EmbedMessage) => void>();
  const onClosed = vi.fn();
  const handle = openCheckoutModal({ checkoutUrl: CHECKOUT_URL, onSettled, onClosed, ...overrides });
  handles.push(handle);
  return { handle, onSettled, onClosed };
}

beforeEach(() => {
  document.body.innerHTML = '<main><button id="pay">Pay with crypto</button></main>';
  document.documentElement.style.overflow = 'scroll';
  opener = document.getElementById('pay') as HTMLButtonElement;
  opener.focus();
});

afterEach(() => {
  for (const handle of handles) handle.close();
  handles = [];
});

describe('openCheckoutModal', () => {
  it('renders an accessible modal dialog around the embedded checkout', () => {
    const { handle } = open();
    const { dialog, iframe } = handle;

    expect(dialog.isConnected).toBe(true);
    expect(dialog.getAttribute('role')).toBe('dialog');
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    expect(dialog.getAttribute('aria-label')).toBe('Crypto Checkout payment');
    expect(dialog.contains(iframe)).toBe(true);
    expect(iframe.title).toBe('Crypto Checkout payment');

    const src = new URL(iframe.src);
    expect(src.origin + src.pathname).toBe(CHECKOUT_URL);
    expect(src.searchParams.get('embed')).toBe('1');
    expect(src.searchParams.get('parent_origin')).toBe('https://shop.example');

    const closeButton = closeButtonOf(handle);
    expect(closeButton.type).toBe('button');
    expect(closeButton.getAttribute('aria-label')).toBe('Close payment');
  });

  it('uses the given title and close label as accessible names', () => {
    const { handle } = open({ title: 'Bezahlen', closeLabel: 'Schließen' });
    expect(handle.dialog.getAttribute('aria-label')).toBe('Bezahlen');
    expect(handle.iframe.title).toBe('Bezahlen');
    expect(closeButtonOf(handle).getAttribute('aria-label')).toBe('Schließen');
  });

  it('moves focus into the dialog and back to the opener on close', () => {
    const { handle } = open();
    expect(document.activeElement).toBe(handle.dialog);
    handle.close();
    expect(document.activeElement).toBe(opener);
  });

  it('locks background scroll while open and restores the previous value', () => {
    const { handle } = open();
    expect(document.documentElement.style.overflow).toBe('hidden');
    expect(document.body.style.overflow).toBe('hidden');
    handle.close();
    expect(document.documentElement.style.overflow).toBe('scroll');
    expect(document.body.style.overflow).toBe('');
  });

  it('closes on Escape', () => {
    const { handle, onClosed } = open();
    const event = pressKey('Escape');
    expect(event.defaultPrevented).toBe(true);
    expect(handle.dialog.isConnected).toBe(false);
    expect(onClosed).toHaveBeenCalledExactlyOnceWith('dismissed');
    expect(document.activeElement).toBe(opener);
  });

  it('closes from the close button', () => {
    const { handle, onClosed } = open();
    closeButtonOf(handle).click();
    expect(handle.dialog.isConnected).toBe(false);
    expect(onClosed).toHaveBeenCalledExactlyOnceWith('dismissed');
  });

  it('traps Tab and Shift+Tab inside the dialog', () => {
    const { handle } = open();
    const closeButton = closeButtonOf(handle);

    expect(pressKey('Tab', { shiftKey: true }).defaultPrevented).toBe(true);
    expect(document.activeElement).toBe(handle.iframe);

    expect(pressKey('Tab').defaultPrevented).toBe(true);
    expect(document.activeElement).toBe(closeButton);

    expect(pressKey('Tab', { shiftKey: true }).defaultPrevented).toBe(true);
    expect(document.activeElement).toBe(handle.iframe);

    // Moving forward from the close button is left to the browser: the frame is next anyway.
    closeButton.focus();
    expect(pressKey('Tab').defaultPrevented).toBe(false);
  });

  it('pulls focus back when it lands outside the dialog', () => {
    const { handle } = open();
    opener.focus();
    expect(document.activeElement).toBe(closeButtonOf(handle));
  });

  it('reports settled once and keeps the modal open', () => {
    const { handle, onSettled, onClosed } = open();
    const settled = message({ type: 'settled', status: 'settled' });
    post(settled, PAY_ORIGIN, frameWindow(handle));
    post(settled, PAY_ORIGIN, frameWindow(handle));

    expect(onSettled).toHaveBeenCalledExactlyOnceWith(settled);
    expect(onClosed).not.toHaveBeenCalled();
    expect(handle.dialog.isConnected).toBe(true);
  });

  it('closes when the pay page says closed', () => {
    const { handle, onClosed } = open();
    post(message({ type: 'closed', status: 'pending' }), PAY_ORIGIN, frameWindow(handle));
    expect(handle.dialog.isConnected).toBe(false);
    expect(onClosed).toHaveBeenCalledExactlyOnceWith('checkout');
  });

  it('resizes the frame within bounds', () => {
    const { handle } = open();
    const resize = (height: number) =>
      post(message({ type: 'resize', height }), PAY_ORIGIN, frameWindow(handle));

    resize(812.4);
    expect(handle.iframe.style.height).toBe('813px');
    resize(10);
    expect(handle.iframe.style.height).toBe('240px');
    resize(1_000_000);
    expect(handle.iframe.style.height).toBe('4000px');
  });

  it('ignores messages from another origin, even from the frame itself', () => {
    const { handle, onSettled, onClosed } = open();
    const frame = frameWindow(handle);
    post(message({ type: 'settled' }), 'https://evil.example', frame);
    post(message({ type: 'closed' }), 'https://shop.example', frame);
    post(message({ type: 'closed' }), 'http://pay.example', frame);

    expect(onSettled).not.toHaveBeenCalled();
    expect(onClosed).not.toHaveBeenCalled();
    expect(handle.dialog.isConnected).toBe(true);
  });

  it('ignores messages with the right origin from another window', () => {
    const { handle, onSettled, onClosed } = open();
    const otherFrame = document.createElement('iframe');
    otherFrame.src = 'https://pay.example/pay/other';
    document.body.append(otherFrame);

    post(message({ type: 'settled' }), PAY_ORIGIN, otherFrame.contentWindow);
    post(message({ type: 'closed' }), PAY_ORIGIN, window);
    post(message({ type: 'closed' }), PAY_ORIGIN, null);

    expect(onSettled).not.toHaveBeenCalled();
    expect(onClosed).not.toHaveBeenCalled();
    expect(handle.dialog.isConnected).toBe(true);
  });

  it('ignores malformed messages from the frame', () => {
    const { handle, onSettled, onClosed } = open();
    const frame = frameWindow(handle);
    const heightBefore = handle.iframe.style.height;
    for (const data of [
      'settled',
      JSON.stringify(message({ type: 'settled' })),
      { ...message({ type: 'settled' }), version: 2 },
      { ...message({ type: 'closed' }), source: 'other' },
      { ...message({ type: 'closed' }), extra: true },
      { ...message({ type: 'resize' }), height: '900' },
      message({ type: 'resize' }),
      null,
    ]) {
      post(data, PAY_ORIGIN, frame);
    }

    expect(onSettled).not.toHaveBeenCalled();
    expect(onClosed).not.toHaveBeenCalled();
    expect(handle.iframe.style.height).toBe(heightBefore);
    expect(handle.dialog.isConnected).toBe(true);
  });

  it('removes every element and listener on close, and closes only once', () => {
    const bodyBefore = document.body.innerHTML;
    const { handle, onSettled, onClosed } = open();
    const frame = frameWindow(handle);
    handle.close();

    expect(document.body.innerHTML).toBe(bodyBefore);
    expect(document.querySelector('[data-cryptocheckout-modal]')).toBeNull();
    expect(onClosed).toHaveBeenCalledExactlyOnceWith('host');

    post(message({ type: 'settled' }), PAY_ORIGIN, frame);
    post(message({ type: 'closed' }), PAY_ORIGIN, frame);
    pressKey('Escape');
    handle.close();
    const outside = document.createElement('button');
    document.body.append(outside);
    outside.focus();

    expect(onSettled).not.toHaveBeenCalled();
    expect(onClosed).toHaveBeenCalledTimes(1);
    expect(document.activeElement).toBe(outside);
  });

  it('removes exactly the window and document listeners it added', () => {
    const targets = [window, document] as const;
    const added = targets.map((target) => vi.spyOn(target, 'addEventListener'));
    const removed = targets.map((target) => vi.spyOn(target, 'removeEventListener'));
    try {
      const { handle } = open();
      const addedCalls = added.map((spy) => spy.mock.calls.slice());
      expect(addedCalls.flat().map(([type]) => type)).toEqual(
        expect.arrayContaining(['message', 'keydown', 'focusin']),
      );
      expect(removed.every((spy) => spy.mock.calls.length === 0)).toBe(true);

      handle.close();
      removed.forEach((spy, index) => {
        expect(spy.mock.calls).toEqual(addedCalls[index]);
      });
    } finally {
      for (const spy of [...added, ...removed]) spy.mockRestore();
    }
  });

  it('rejects a checkout URL that is not absolute http(s) before touching the page', () => {
    const bodyBefore = document.body.innerHTML;
    expect(() => openCheckoutModal({ checkoutUrl: '/pay/x' })).toThrow(TypeError);
    expect(() => openCheckoutModal({ checkoutUrl: 'javascript:alert(1)' })).toThrow(TypeError);
    expect(document.body.innerHTML).toBe(bodyBefore);
    expect(document.documentElement.style.overflow).toBe('scroll');
  });

  it('works on an injected window instead of the global one', async () => {
    const other = new HappyDomWindow({
      url: 'https://merchant.example/basket',
      settings: { navigation: { disableChildFrameNavigation: true } },
    });
    try {
      const otherWindow = other as unknown as globalThis.Window;
      const { handle, onClosed } = open({ window: otherWindow });

      expect(document.querySelector('[role="dialog"]')).toBeNull();
      expect(other.document.querySelector('[role="dialog"]')).toBe(handle.dialog);
      expect(new URL(handle.iframe.src).searchParams.get('parent_origin')).toBe('https://merchant.example');

      post(message({ type: 'closed' }), PAY_ORIGIN, frameWindow(handle), otherWindow);
      expect(onClosed).toHaveBeenCalledExactlyOnceWith('checkout');
      expect(other.document.querySelector('[role="dialog"]')).toBeNull();
    } finally {
      await other.happyDOM.close();
    }
  });
});
