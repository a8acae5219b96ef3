/** The order-received page script and the settings form script, in happy-dom. */

import { describeWithStatusFixtures } from '@cryptocheckout/php-client/test-support';
import { Window } from 'happy-dom';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mountSettingsForm } from '../assets/src/lib/settings-form.js';

const STATUS_URL = 'https://shop.example/wp-json/cryptocheckout/v1/orders/12/status?key=wc_order_abc';
const CHECKOUT_URL = 'https://pay.example.com/pay/3f1c2a9e-8b7d-4c6e-9f0a-1b2c3d4e5f60';

// The status box and the status endpoint's answers come from the PHP kernel (StatusWidgetMarkup,
// BuyerStatus); the widget itself is @cryptocheckout/core's, tested there in depth.
describeWithStatusFixtures(
  'order-received page script (build/thankyou.js)',
  { statusUrl: STATUS_URL, checkoutUrl: CHECKOUT_URL },
  (fixtures) => {
    afterEach(() => {
      vi.useRealTimers();
      vi.unstubAllGlobals();
    });

    /** Runs the entry script on a page holding `box`, as WordPress loads it in the footer. */
    async function loadPage(box: string, answers: string[]) {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      const window = new Window({
        url: 'https://shop.example/checkout/order-received/12/?key=wc_order_abc',
        settings: { navigation: { disableChildFrameNavigation: true } },
      });
      const document = window.document as unknown as Document;
      document.body.innerHTML = `<div class="woocommerce-order">${box}</div>`;
      const fetch = vi.fn<typeof globalThis.fetch>(
        async () => new Response(answers.length > 1 ? answers.shift() : answers[0]),
      );
      vi.stubGlobal('document', document);
      vi.stubGlobal('fetch', fetch);
      vi.resetModules();
      await import('../assets/src/thankyou.js');
      const root = document.querySelector<HTMLElement>('[data-cryptocheckout-status]')!;
      return { document, fetch, root };
    }

    it('follows the status endpoint until the order is paid', async () => {
      const { root, fetch } = await loadPage(fixtures.awaiting_payment.box, [
        fixtures.awaiting_payment.answer,
        fixtures.paid.answer,
      ]);
      expect(fetch).toHaveBeenCalledWith(STATUS_URL, expect.objectContaining({ credentials: 'same-origin' }));
      await vi.advanceTimersByTimeAsync(3_000);
      expect(root.getAttribute('data-state')).toBe('paid');
      expect(root.querySelector('.cryptocheckout-status__message')?.textContent).toBe(
        'Payment received. Thank you!',
      );
      expect(root.querySelector<HTMLElement>('.cryptocheckout-status__actions')?.hidden).toBe(true);
      await vi.advanceTimersByTimeAsync(60_000);
      expect(fetch).toHaveBeenCalledTimes(2);
    });

    it('opens the payment window over the shop when the page asks, and again from "Pay now"', async () => {
      const { document, root, fetch } = await loadPage(fixtures.awaiting_payment.modalBox, [
        fixtures.awaiting_payment.answer,
      ]);
      const dialog = () => document.querySelector('[data-cryptocheckout-modal] [role="dialog"]');
      expect(dialog()?.getAttribute('aria-label')).toBe('Crypto Checkout payment');
      expect(dialog()?.querySelector('iframe')?.getAttribute('src')).toContain(`${CHECKOUT_URL}?embed=1`);
      (dialog()?.querySelector('button') as HTMLButtonElement).click();
      expect(dialog()).toBeNull();
      root.querySelector<HTMLElement>('.cryptocheckout-status__pay')!.click();
      expect(dialog()).not.toBeNull();
      // Paid meanwhile: the window closes and polling ends.
      fetch.mockImplementation(async () => new Response(fixtures.paid.answer));
      await vi.advanceTimersByTimeAsync(3_000);
      expect(dialog()).toBeNull();
      expect(root.getAttribute('data-state')).toBe('paid');
    });

    it('leaves a final status alone', async () => {
      const { root, fetch } = await loadPage(fixtures.cancelled.box, [fixtures.cancelled.answer]);
      await vi.advanceTimersByTimeAsync(60_000);
      expect(fetch).not.toHaveBeenCalled();
      expect(root.querySelector('.cryptocheckout-status__pay')).toBeNull();
    });
  },
);

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

  it('takes a Solana wallet as typed, offers USDC, USDT and SOL there, and names what is wrong with a bad one', () => {
    const window = new Window({ url: 'https://shop.example/wp-admin/admin.php?page=wc-settings' });
    const document = window.document as unknown as Document;
    document.body.innerHTML = `
      <select id="woocommerce_cryptocheckout_wallet_network"><option value="POLYGON" selected>Polygon</option><option value="SOLANA">Solana</option></select>
      <select id="woocommerce_cryptocheckout_wallet_currency"><option value="POL">POL</option><option value="SOL">SOL</option><option value="USDC">USDC</option><option value="USDT">USDT</option></select>
      <input id="woocommerce_cryptocheckout_wallet_address" value="">`;
    (document.getElementById('woocommerce_cryptocheckout_wallet_currency') as HTMLSelectElement).value =
      'USDT';
    mountSettingsForm(document, {
      fieldPrefix: 'woocommerce_cryptocheckout_',
      assetsByNetwork: { POLYGON: ['USDC', 'USDT', 'POL'], SOLANA: ['USDC', 'USDT', 'SOL'] },
      recommendedAsset: 'USDC',
    });
    const $ = (id: string) =>
      document.getElementById(`woocommerce_cryptocheckout_${id}`) as HTMLInputElement & HTMLSelectElement;
    const feedback = () => document.getElementById('woocommerce_cryptocheckout_wallet_address_feedback');
    $('wallet_network').value = 'SOLANA';
    fire($('wallet_network'), 'change');
    // USDT is settled on Solana too: the choice stays.
    expect($('wallet_currency').value).toBe('USDT');
    const offered = Array.from($('wallet_currency').options).filter((option) => !option.disabled);
    expect(offered.map((option) => option.value)).toEqual(['SOL', 'USDC', 'USDT']);

    const wallet = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';
    $('wallet_address').value = wallet;
    fire($('wallet_address'), 'input');
    expect(feedback()?.textContent).toBe(`✓ ${wallet}`);
    $('wallet_address').value = `${wallet.slice(0, -1)}l`;
    fire($('wallet_address'), 'input');
    expect(feedback()?.textContent).toMatch(
      /^The address contains "l", which never appears in a Solana address/,
    );
    expect($('wallet_address').getAttribute('aria-invalid')).toBe('true');
    $('wallet_address').value = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
    fire($('wallet_address'), 'input');
    expect(feedback()?.textContent).toMatch(/^This is an EVM address .*, but the network is SOLANA\./);
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
