// @vitest-environment happy-dom
// @vitest-environment-options {"url": "https://shop.example/index.php?controller=order-confirmation", "settings": {"navigation": {"disableChildFrameNavigation": true}}}
import { afterEach, describe, expect, it, vi } from 'vitest';
import { attachSettingsForm } from '../assets/src/admin.js';
import {
  fetchOrderStatus,
  type OrderStatus,
  startEmbeddedCheckout,
  startStatusWidget,
} from '../assets/src/front.js';

// The module's browser scripts: the settings form's live wallet check, the confirmation page's
// status widget and the embedded checkout, on happy-dom.

const WALLET = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
const CHECKOUT_URL = 'https://pay.example/pay/3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f';

afterEach(() => {
  document.body.innerHTML = '';
  vi.restoreAllMocks();
});

function settingsForm(network = 'POLYGON', asset = 'USDC', address = ''): HTMLFormElement {
  document.body.innerHTML = `
    <form id="module_form">
      <select name="CRYPTOCHECKOUT_NETWORK">
        <option value="POLYGON">Polygon</option><option value="TRON">TRON</option><option value="BITCOIN">Bitcoin</option>
      </select>
      <select name="CRYPTOCHECKOUT_ASSET">
        <option value="USDC">USDC</option><option value="USDT">USDT</option><option value="BTC">BTC</option><option value="POL">POL</option>
      </select>
      <input type="text" name="CRYPTOCHECKOUT_WALLET_ADDRESS" value="${address}">
    </form>`;
  const form = document.querySelector('form')!;
  (form.querySelector('[name=CRYPTOCHECKOUT_NETWORK]') as HTMLSelectElement).value = network;
  (form.querySelector('[name=CRYPTOCHECKOUT_ASSET]') as HTMLSelectElement).value = asset;
  return form;
}

describe('settings form', () => {
  const field = <T extends Element>(name: string) =>
    document.querySelector<T & Element>(`[name=${name}]`)! as T;

  it('accepts a valid wallet and shows no message', () => {
    settingsForm('POLYGON', 'USDC', WALLET);
    attachSettingsForm(document);
    const wallet = field<HTMLInputElement>('CRYPTOCHECKOUT_WALLET_ADDRESS');
    expect(wallet.getAttribute('aria-invalid')).toBe('false');
    expect(document.querySelector<HTMLElement>('.cryptocheckout-wallet-problem')!.hidden).toBe(true);
  });

  it('explains a wallet of the wrong network while typing, and blocks the submit', () => {
    settingsForm('POLYGON', 'USDC');
    attachSettingsForm(document);
    const wallet = field<HTMLInputElement>('CRYPTOCHECKOUT_WALLET_ADDRESS');
    wallet.value = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
    wallet.dispatchEvent(new Event('input'));
    const problem = document.querySelector<HTMLElement>('.cryptocheckout-wallet-problem')!;
    expect(problem.hidden).toBe(false);
    expect(problem.textContent).toContain('This is a TRON address, but the network is POLYGON.');
    expect(problem.getAttribute('role')).toBe('alert');
    expect(wallet.getAttribute('aria-describedby')).toBe(problem.id);
    expect(wallet.validationMessage).toContain('TRON address');

    const network = field<HTMLSelectElement>('CRYPTOCHECKOUT_NETWORK');
    network.value = 'TRON';
    network.dispatchEvent(new Event('change'));
    expect(problem.hidden).toBe(true);
    expect(wallet.validationMessage).toBe('');
  });

  it('limits the assets to what the network settles, switching to one it offers', () => {
    settingsForm('POLYGON', 'USDC');
    attachSettingsForm(document);
    const network = field<HTMLSelectElement>('CRYPTOCHECKOUT_NETWORK');
    const asset = field<HTMLSelectElement>('CRYPTOCHECKOUT_ASSET');
    network.value = 'BITCOIN';
    network.dispatchEvent(new Event('change'));
    expect(asset.value).toBe('BTC');
    const enabled = [...asset.options].filter((option) => !option.disabled).map((option) => option.value);
    expect(enabled).toEqual(['BTC']);
  });

  it('does nothing on a page without the form', () => {
    expect(attachSettingsForm(document)).toBeNull();
  });
});

function statusBox(state = 'awaiting_payment'): HTMLElement {
  document.body.innerHTML = `
    <section data-cryptocheckout-status data-status-url="/module/cryptocheckout/status?id_order=7&amp;key=k" data-state="${state}">
      <p data-cryptocheckout-label>Waiting</p>
      <a data-cryptocheckout-pay href="${CHECKOUT_URL}">Pay now</a>
    </section>`;
  return document.querySelector<HTMLElement>('[data-cryptocheckout-status]')!;
}

const answer = (data: OrderStatus | Record<string, unknown>, status = 200) =>
  new Response(JSON.stringify({ status: 'success', data }), {
    status,
    headers: { 'content-type': 'application/json' },
  });

describe('status widget', () => {
  it('polls until the order is final, updating label and state, hiding "Pay now"', async () => {
    const box = statusBox();
    const answers = [
      { state: 'awaiting_payment', label: 'Waiting', final: false },
      { state: 'paid', label: 'Payment received. Thank you!', final: true },
    ];
    const fetchMock = vi.fn(async () =>
      answer(answers.shift() ?? { state: 'paid', label: 'x', final: true }),
    );
    const poller = startStatusWidget(box, {
      fetch: fetchMock as unknown as typeof fetch,
      intervalMs: 5,
      document: null,
    })!;
    await vi.waitFor(() => expect(box.dataset.state).toBe('paid'));
    expect(box.querySelector('[data-cryptocheckout-label]')!.textContent).toBe(
      'Payment received. Thank you!',
    );
    expect(box.querySelector<HTMLElement>('[data-cryptocheckout-pay]')!.hidden).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(poller.running).toBe(false);
    expect(fetchMock.mock.calls[0]).toEqual([
      '/module/cryptocheckout/status?id_order=7&key=k',
      expect.objectContaining({ credentials: 'same-origin' }),
    ]);
  });

  it('shows the label as text, never as markup', async () => {
    const box = statusBox();
    const fetchMock = vi.fn(async () =>
      answer({ state: 'cancelled', label: '<img src=x onerror=alert(1)>', final: true }),
    );
    startStatusWidget(box, { fetch: fetchMock as unknown as typeof fetch, document: null });
    await vi.waitFor(() => expect(box.dataset.state).toBe('cancelled'));
    expect(box.querySelector('img')).toBeNull();
    expect(box.querySelector('[data-cryptocheckout-label]')!.textContent).toBe(
      '<img src=x onerror=alert(1)>',
    );
  });

  it('rejects answers that are not a success envelope', async () => {
    const signal = new AbortController().signal;
    await expect(
      fetchOrderStatus(
        '/s',
        signal,
        (async () => new Response('{}', { status: 500 })) as unknown as typeof fetch,
      ),
    ).rejects.toThrow('HTTP 500');
    await expect(
      fetchOrderStatus('/s', signal, (async () => answer({ state: 1 })) as unknown as typeof fetch),
    ).rejects.toThrow('unexpected status answer');
  });
});

describe('embedded checkout', () => {
  function embedBox(
    returnUrl = 'https://shop.example/index.php?controller=order-confirmation&id_order=7',
  ): HTMLElement {
    document.body.innerHTML = `
      <section data-cryptocheckout-embed data-checkout-url="${CHECKOUT_URL}" data-return-url="${returnUrl}">
        <a data-cryptocheckout-open href="${CHECKOUT_URL}">Open</a>
      </section>`;
    return document.querySelector<HTMLElement>('[data-cryptocheckout-embed]')!;
  }

  const dialog = () => document.querySelector<HTMLElement>('[role="dialog"]');

  it('opens the checkout in a modal at once, and the button reopens it after closing', () => {
    const box = embedBox();
    startEmbeddedCheckout(box, window);
    const frame = dialog()!.querySelector('iframe')!;
    expect(frame.getAttribute('src')).toContain(
      `${CHECKOUT_URL}?embed=1&parent_origin=https%3A%2F%2Fshop.example`,
    );
    document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    dialog()?.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    expect(dialog()).toBeNull();
    box.querySelector<HTMLElement>('[data-cryptocheckout-open]')!.click();
    expect(dialog()).not.toBeNull();
  });

  it('sends the buyer to the confirmation page when the pay page reports the payment settled', () => {
    const box = embedBox();
    const assign = vi.spyOn(window.location, 'assign').mockImplementation(() => {});
    startEmbeddedCheckout(box, window);
    const frame = dialog()!.querySelector('iframe')!;
    window.dispatchEvent(
      new MessageEvent('message', {
        origin: 'https://pay.example',
        source: frame.contentWindow,
        data: {
          source: 'cryptocheckout',
          version: 1,
          type: 'settled',
          transaction_code: '3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f',
          status: 'settled',
        },
      }),
    );
    expect(assign).toHaveBeenCalledWith(
      'https://shop.example/index.php?controller=order-confirmation&id_order=7',
    );
  });

  it('never follows a return address on another origin', () => {
    const box = embedBox('https://evil.example/phish');
    const assign = vi.spyOn(window.location, 'assign').mockImplementation(() => {});
    startEmbeddedCheckout(box, window);
    const frame = dialog()!.querySelector('iframe')!;
    window.dispatchEvent(
      new MessageEvent('message', {
        origin: 'https://pay.example',
        source: frame.contentWindow,
        data: { source: 'cryptocheckout', version: 1, type: 'settled', transaction_code: 'abc' },
      }),
    );
    expect(assign).not.toHaveBeenCalled();
  });
});
