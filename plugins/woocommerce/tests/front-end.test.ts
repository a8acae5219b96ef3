/** The order-received status widget and the settings form script, in happy-dom. */
import { Window } from 'happy-dom';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mountSettingsForm } from '../assets/src/lib/settings-form.js';
import { type BuyerStatus, mountStatusWidget, type StatusWidget } from '../assets/src/lib/status-widget.js';

const awaiting: BuyerStatus = {
  state: 'awaiting_payment',
  message: 'Waiting for your payment.',
  terminal: false,
  checkout_url: 'https://pay.example.com/pay/3f1c2a9e-8b7d-4c6e-9f0a-1b2c3d4e5f60',
};
const paid: BuyerStatus = {
  state: 'paid',
  message: 'Payment received. Thank you!',
  terminal: true,
  checkout_url: null,
};

function page(status: BuyerStatus, openModal = false) {
  const window = new Window({ url: 'https://shop.example/checkout/?order-received=12&key=wc_order_abc' });
  const document = window.document as unknown as Document;
  const config = {
    statusUrl: 'https://shop.example/wp-json/cryptocheckout/v1/orders/12/status?key=wc_order_abc',
    status,
    openModal,
    i18n: {
      pay: 'Pay now',
      modalTitle: 'Crypto Checkout payment',
      close: 'Close payment',
      offline: 'Retrying…',
    },
  };
  document.body.innerHTML = `<section id="cryptocheckout-status" data-config="${JSON.stringify(config).replace(/"/g, '&quot;')}"><p class="cryptocheckout-status__message">${status.message}</p>${status.checkout_url ? `<p><a class="cryptocheckout-status__pay" href="${status.checkout_url}">Pay now</a></p>` : ''}</section>`;
  return { window, document, element: document.getElementById('cryptocheckout-status') as HTMLElement };
}

let widget: StatusWidget | null = null;
afterEach(() => {
  widget?.stop();
  widget = null;
});

describe('order-received status widget', () => {
  it('polls the status endpoint and shows the final status', async () => {
    const { element, document } = page(awaiting);
    const answers = [awaiting, paid];
    const fetchStatus = vi.fn(async (url: string) => {
      expect(url).toContain('/cryptocheckout/v1/orders/12/status?key=wc_order_abc');
      return new Response(JSON.stringify(answers.shift() ?? paid), { status: 200 });
    });
    widget = mountStatusWidget(element, {
      fetch: fetchStatus as unknown as typeof fetch,
      intervalMs: 5,
      document,
    });
    await vi.waitFor(() => expect(element.getAttribute('data-state')).toBe('paid'));
    expect(element.querySelector('.cryptocheckout-status__message')?.textContent).toBe(
      'Payment received. Thank you!',
    );
    expect(element.querySelector('.cryptocheckout-status__pay')).toBeNull();
    const calls = fetchStatus.mock.calls.length;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(fetchStatus.mock.calls.length).toBe(calls);
  });

  it('does not poll an order that is already final', () => {
    const { element, document } = page(paid);
    const fetchStatus = vi.fn();
    widget = mountStatusWidget(element, { fetch: fetchStatus as unknown as typeof fetch, document });
    expect(widget?.poller.running).toBe(false);
    expect(fetchStatus).not.toHaveBeenCalled();
  });

  it('keeps polling through errors and an unexpected answer', async () => {
    const { element, document } = page(awaiting);
    const answers: (() => Response)[] = [
      () => new Response('oops', { status: 500 }),
      () => new Response('{"state":1}', { status: 200 }),
      () => new Response(JSON.stringify(paid), { status: 200 }),
    ];
    const fetchStatus = vi.fn(async () => (answers.shift() ?? answers[0] ?? (() => new Response('{}')))());
    widget = mountStatusWidget(element, {
      fetch: fetchStatus as unknown as typeof fetch,
      intervalMs: 1,
      document,
    });
    await vi.waitFor(() => expect(element.getAttribute('data-state')).toBe('paid'), { timeout: 5_000 });
    expect(element.getAttribute('data-offline')).toBe('true');
  });

  it('opens the hosted page in a window over the shop when asked, and again from "Pay now"', async () => {
    const { element, document } = page(awaiting, true);
    const fetchStatus = vi.fn(async () => new Response(JSON.stringify(awaiting), { status: 200 }));
    widget = mountStatusWidget(element, {
      fetch: fetchStatus as unknown as typeof fetch,
      intervalMs: 1_000,
      document,
    });
    const dialog = document.querySelector('[role="dialog"]');
    expect(dialog?.getAttribute('aria-label') ?? dialog?.getAttribute('aria-labelledby')).toBeTruthy();
    const iframe = document.querySelector('iframe');
    expect(iframe?.getAttribute('src')).toContain(
      'https://pay.example.com/pay/3f1c2a9e-8b7d-4c6e-9f0a-1b2c3d4e5f60',
    );
    widget?.modal()?.close();
    expect(document.querySelector('iframe')).toBeNull();
    (element.querySelector('.cryptocheckout-status__pay') as HTMLElement).click();
    expect(document.querySelector('iframe')).not.toBeNull();
  });

  it('ignores a box without a readable configuration', () => {
    const { element } = page(awaiting);
    element.setAttribute('data-config', '{not json');
    expect(mountStatusWidget(element)).toBeNull();
  });
});

/** Dispatches an event of the element's own window, as a browser would. */
function fire(element: Element, type: string) {
  const EventClass = (element.ownerDocument.defaultView as unknown as { Event: typeof Event }).Event;
  element.dispatchEvent(new EventClass(type));
}

describe('settings form', () => {
  function form() {
    const window = new Window({ url: 'https://shop.example/wp-admin/admin.php?page=wc-settings' });
    const document = window.document as unknown as Document;
    document.body.innerHTML = `
      <select id="woocommerce_cryptocheckout_wallet_network"><option value="POLYGON" selected>Polygon</option><option value="BITCOIN">Bitcoin</option><option value="TRON">TRON</option></select>
      <select id="woocommerce_cryptocheckout_wallet_currency"><option value="BTC">BTC</option><option value="USDC" selected>USDC</option><option value="USDT">USDT</option></select>
      <input id="woocommerce_cryptocheckout_wallet_address" value="">`;
    const config = {
      fieldPrefix: 'woocommerce_cryptocheckout_',
      assetsByNetwork: { POLYGON: ['USDC', 'USDT', 'POL'], BITCOIN: ['BTC'], TRON: ['USDT', 'TRX'] },
      recommendedAsset: 'USDC',
    };
    const handle = mountSettingsForm(document, config);
    const $ = (id: string) =>
      document.getElementById(`woocommerce_cryptocheckout_${id}`) as HTMLInputElement & HTMLSelectElement;
    const feedback = () => document.getElementById('woocommerce_cryptocheckout_wallet_address_feedback');
    return { window, document, handle, $, feedback };
  }

  function type(input: HTMLInputElement, value: string) {
    input.value = value;
    fire(input, 'input');
  }

  it('checks the wallet address as it is typed, with the core validation messages', () => {
    const { $, feedback } = form();
    type($('wallet_address'), '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359');
    expect(feedback()?.textContent).toBe('✓ 0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359');
    expect($('wallet_address').getAttribute('aria-invalid')).toBeNull();
    type($('wallet_address'), '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3358');
    expect(feedback()?.textContent).toMatch(/checksum/i);
    expect($('wallet_address').getAttribute('aria-invalid')).toBe('true');
    expect($('wallet_address').getAttribute('aria-describedby')).toBe(
      'woocommerce_cryptocheckout_wallet_address_feedback',
    );
  });

  it("re-checks against a newly chosen network and offers only that network's assets", () => {
    const { $, feedback } = form();
    type($('wallet_address'), '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359');
    $('wallet_network').value = 'BITCOIN';
    fire($('wallet_network'), 'change');
    expect(feedback()?.textContent).toMatch(/EVM address .*network is BITCOIN/);
    expect($('wallet_currency').value).toBe('BTC');
    const usdc = Array.from($('wallet_currency').options).find((option) => option.value === 'USDC');
    expect(usdc?.disabled).toBe(true);
    $('wallet_network').value = 'TRON';
    fire($('wallet_network'), 'change');
    expect($('wallet_currency').value).toBe('USDT');
  });

  it('does nothing on a page without the gateway fields', () => {
    const window = new Window();
    expect(
      mountSettingsForm(window.document as unknown as Document, {
        fieldPrefix: 'x_',
        assetsByNetwork: {},
        recommendedAsset: 'USDC',
      }),
    ).toBeNull();
  });
});
