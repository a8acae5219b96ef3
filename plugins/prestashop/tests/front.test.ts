// @vitest-environment happy-dom
// @vitest-environment-options {"url": "https://shop.example/index.php?controller=order-confirmation", "settings": {"navigation": {"disableChildFrameNavigation": true}}}
import type { StatusWidget } from '@cryptocheckout/core/browser';
import { describeWithStatusFixtures } from '@cryptocheckout/php-client/test-support';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { attachSettingsForm } from '../assets/src/admin.js';
import { init, startEmbeddedCheckout } from '../assets/src/front.js';

// The module's browser scripts: the settings form's live wallet check, the confirmation page's
// status box and the embedded checkout, on happy-dom.

const WALLET = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
const CHECKOUT_URL = 'https://pay.example/pay/3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f';

afterEach(() => {
  document.body.innerHTML = '';
  vi.restoreAllMocks();
});

function settingsForm(network = 'POLYGON', asset = 'USDC', address = ''): HTMLFormElement {
  document.body.innerHTML = `
    <form id="module_form" class="defaultForm form-horizontal" method="post" novalidate>
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

  it('stops the submit of the novalidate form while the wallet is wrong, and lets a valid one through', () => {
    // PrestaShop 8.1's HelperForm renders the form with `novalidate`: the browser never blocks it.
    const form = settingsForm('POLYGON', 'USDC', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t');
    expect(form.noValidate).toBe(true);
    attachSettingsForm(document);
    const wallet = field<HTMLInputElement>('CRYPTOCHECKOUT_WALLET_ADDRESS');
    const submit = () => {
      const event = new Event('submit', { bubbles: true, cancelable: true });
      form.dispatchEvent(event);
      return event.defaultPrevented;
    };
    expect(submit()).toBe(true);
    expect(document.activeElement).toBe(wallet);
    expect(document.querySelector<HTMLElement>('.cryptocheckout-wallet-problem')!.hidden).toBe(false);

    wallet.value = WALLET;
    expect(submit()).toBe(false);
    wallet.value = '';
    expect(submit()).toBe(false);
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

  it('on Solana, offers USDC, USDT and SOL and checks the wallet as a Solana address', () => {
    document.body.innerHTML = `
      <form method="post" novalidate>
        <select name="CRYPTOCHECKOUT_NETWORK"><option value="POLYGON">Polygon</option><option value="SOLANA">Solana</option></select>
        <select name="CRYPTOCHECKOUT_ASSET"><option value="USDC">USDC</option><option value="USDT">USDT</option><option value="POL">POL</option><option value="SOL">SOL</option></select>
        <input type="text" name="CRYPTOCHECKOUT_WALLET_ADDRESS" value="">
      </form>`;
    const network = field<HTMLSelectElement>('CRYPTOCHECKOUT_NETWORK');
    const asset = field<HTMLSelectElement>('CRYPTOCHECKOUT_ASSET');
    const wallet = field<HTMLInputElement>('CRYPTOCHECKOUT_WALLET_ADDRESS');
    network.value = 'POLYGON';
    asset.value = 'USDT';
    attachSettingsForm(document);
    network.value = 'SOLANA';
    network.dispatchEvent(new Event('change'));
    // USDT is settled on Solana too: the choice stays; POL is not.
    expect(asset.value).toBe('USDT');
    const enabled = [...asset.options].filter((option) => !option.disabled).map((option) => option.value);
    expect(enabled).toEqual(['USDC', 'USDT', 'SOL']);

    const problem = document.querySelector<HTMLElement>('.cryptocheckout-wallet-problem')!;
    wallet.value = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';
    wallet.dispatchEvent(new Event('input'));
    expect(problem.hidden).toBe(true);
    expect(wallet.getAttribute('aria-invalid')).toBe('false');
    wallet.value = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgA';
    wallet.dispatchEvent(new Event('input'));
    expect(problem.hidden).toBe(false);
    expect(problem.textContent).toMatch(/^The address is too short for a Solana address/);
    wallet.value = WALLET;
    wallet.dispatchEvent(new Event('input'));
    expect(problem.textContent).toMatch(/^This is an EVM address .*, but the network is SOLANA\./);
  });

  it('does nothing on a page without the form', () => {
    expect(attachSettingsForm(document)).toBeNull();
  });
});

const STATUS_URL =
  'https://shop.example/index.php?fc=module&module=cryptocheckout&controller=status&id_order=7&key=k';

// The status box and the status controller's answers come from the PHP kernel (StatusWidgetMarkup,
// BuyerStatus in HttpReply's envelope); the widget is @cryptocheckout/core's, tested there in depth.
describeWithStatusFixtures(
  'status box of the confirmation and order pages',
  { statusUrl: STATUS_URL, checkoutUrl: CHECKOUT_URL },
  (fixtures) => {
    let widgets: StatusWidget[] = [];
    afterEach(() => {
      for (const widget of widgets) widget.stop();
      widgets = [];
      vi.useRealTimers();
      vi.unstubAllGlobals();
    });

    function load(box: string, answers: string[]) {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      document.body.innerHTML = `<div id="content">${box}</div>`;
      const fetch = vi.fn<typeof globalThis.fetch>(
        async () => new Response(answers.length > 1 ? answers.shift() : answers[0]),
      );
      vi.stubGlobal('fetch', fetch);
      widgets = init(document);
      return { fetch, root: document.querySelector<HTMLElement>('[data-cryptocheckout-status]')! };
    }

    it('follows the status controller until the order is final, hiding "Pay now"', async () => {
      const { fetch, root } = load(fixtures.awaiting_payment.box, [
        fixtures.awaiting_payment.answer,
        fixtures.paid.answer,
      ]);
      expect(widgets).toHaveLength(1);
      expect(fetch).toHaveBeenCalledWith(STATUS_URL, expect.objectContaining({ credentials: 'same-origin' }));
      await vi.advanceTimersByTimeAsync(3_000);
      expect(root.dataset.state).toBe('paid');
      expect(root.querySelector('.cryptocheckout-status__message')!.textContent).toBe(
        'Payment received. Thank you!',
      );
      expect(root.querySelector<HTMLElement>('.cryptocheckout-status__actions')!.hidden).toBe(true);
      await vi.advanceTimersByTimeAsync(60_000);
      expect(fetch).toHaveBeenCalledTimes(2);
    });

    it('never polls a final status, and leaves "Pay now" a plain link', async () => {
      const { fetch } = load(fixtures.cancelled.box, [fixtures.cancelled.answer]);
      await vi.advanceTimersByTimeAsync(60_000);
      expect(fetch).not.toHaveBeenCalled();
      load(fixtures.awaiting_payment.box, [fixtures.awaiting_payment.answer]);
      document.addEventListener('click', (event) => event.preventDefault(), { once: true });
      document.querySelector<HTMLElement>('.cryptocheckout-status__pay')!.click();
      expect(document.querySelector('[role="dialog"]')).toBeNull();
    });
  },
);

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

  /** Opens the embedded checkout for `returnUrl` and has its pay page report the payment settled. */
  function settleEmbedded(returnUrl?: string) {
    const assign = vi.spyOn(window.location, 'assign').mockImplementation(() => {});
    startEmbeddedCheckout(embedBox(returnUrl), window);
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
    return assign;
  }

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
    expect(settleEmbedded()).toHaveBeenCalledWith(
      'https://shop.example/index.php?controller=order-confirmation&id_order=7',
    );
  });

  it('never follows a return address on another origin', () => {
    expect(settleEmbedded('https://evil.example/phish')).not.toHaveBeenCalled();
  });
});
