import { Window } from 'happy-dom';
import { describe, expect, it } from 'vitest';
import {
  CODE,
  CRYPTO_LINK,
  context,
  lockedRate,
  OPTIONS,
  SOLANA_LINK,
  SOLANA_OPTION,
  transaction,
} from './fixtures.test-helpers.js';
import { renderPayPage } from './render.js';
import type { PayPageContext, PayPageState } from './state.js';

/** Parses the rendered page without running any script, as a browser with JavaScript off would. */
function parse(page: string): Document {
  const window = new Window({ settings: { disableJavaScriptEvaluation: true, disableCSSFileLoading: true } });
  window.document.write(page);
  return window.document as unknown as Document;
}

function render(overrides: Partial<PayPageContext> = {}): { page: string; doc: Document } {
  const page = renderPayPage(context(overrides));
  return { page, doc: parse(page) };
}

function text(doc: Document, selector: string): string {
  return doc.querySelector(selector)?.textContent?.replace(/\s+/g, ' ').trim() ?? '';
}

function state(doc: Document): PayPageState {
  return JSON.parse(doc.getElementById('cc-state')!.textContent!) as PayPageState;
}

const HOSTILE = `</script><script>alert(1)</script><img src=x onerror=alert(2)>"'&<!--`;

describe('renderPayPage', () => {
  it('shows the merchant domain, the order amount in fiat and in USD, and every rail', () => {
    const { doc } = render();
    expect(doc.documentElement.getAttribute('lang')).toBe('en');
    expect(text(doc, '.merchant-name')).toBe('shop.example');
    expect(doc.title).toContain('shop.example');
    expect(text(doc, '.amount .fiat')).toBe('€12.50');
    expect(text(doc, '.amount .usd')).toBe('$13.60 in US dollars');
    const rails = [...doc.querySelectorAll('.rail')].map((rail) => rail.textContent);
    expect(rails).toHaveLength(3);
    expect(rails[0]).toContain('Polygon PoS');
    expect(rails[0]).toContain('13.6 USDC');
    expect(rails[1]).toContain('€12.50');
    // Rails the order cannot use come last, folded under one line that counts them.
    const folded = doc.querySelector('details.rails-unavailable')!;
    expect(folded.hasAttribute('open')).toBe(false);
    expect(text(doc, 'details.rails-unavailable > summary')).toBe('Not offered for this order (1)');
    expect(folded.querySelector('.rail')!.textContent).toContain('0.00014321 BTC');
    expect(text(doc, '.rail-reason')).toBe('Not available for this amount');
  });

  it('links each available rail to the page itself, so choosing works without JavaScript', () => {
    const { doc } = render();
    const usdc = doc.querySelector('a[data-rail="usdc_polygon"]')!;
    expect(usdc.getAttribute('href')).toBe(`/pay/${CODE}?method=usdc_polygon&lang=en`);
    expect(doc.querySelector('a[data-rail="btc"]')).toBeNull();
    expect(doc.querySelector('[data-rail="card"]')?.getAttribute('href')).toBe(
      `/pay/${CODE}?method=card&lang=en`,
    );
  });

  it('loads only its own script and stylesheet, with no inline script or style', () => {
    const { doc, page } = render({ selected: { link: CRYPTO_LINK } });
    const scripts = [...doc.querySelectorAll('script')];
    const executable = scripts.filter((script) => script.getAttribute('type') !== 'application/json');
    expect(executable.map((script) => script.getAttribute('src'))).toEqual([
      expect.stringMatching(/^\/pay\/assets\/pay\.js(\?v=\w+)?$/),
    ]);
    expect(executable[0]!.textContent).toBe('');
    expect(doc.querySelector('link[rel="stylesheet"]')?.getAttribute('href')).toMatch(
      /^\/pay\/assets\/pay\.css/,
    );
    expect(doc.querySelectorAll('style')).toHaveLength(0);
    expect(page).not.toMatch(/\sstyle=/);
    expect(page).not.toMatch(/\son[a-z]+=/);
  });

  it('without a chosen rail, keeps the instructions hidden and empty', () => {
    const { doc } = render();
    expect(doc.getElementById('cc-pay')!.hasAttribute('hidden')).toBe(true);
    expect(text(doc, '#cc-address')).toBe('');
    expect(doc.querySelector('#cc-qr svg')).toBeNull();
  });

  it('with a chosen crypto rail, shows amount, address, network, QR code and wallet link in the markup', () => {
    const { doc } = render({ selected: { link: CRYPTO_LINK } });
    const pay = doc.getElementById('cc-pay')!;
    expect(pay.hasAttribute('hidden')).toBe(false);
    expect(text(doc, '#cc-pay-title')).toBe('Send 13.6 USDC');
    expect(text(doc, '#cc-amount')).toBe('13.6');
    expect(text(doc, '#cc-address')).toBe(CRYPTO_LINK.address);
    expect(text(doc, '#cc-network')).toBe('Polygon PoS');
    expect(text(doc, '#cc-warning')).toContain('Send only USDC on Polygon PoS');
    expect(doc.querySelector('#cc-qr svg path')?.getAttribute('d')).toMatch(/^M\d+ \d+h\d+/);
    expect(doc.getElementById('cc-qr')!.getAttribute('aria-label')).toMatch(/QR code/);
    expect(doc.getElementById('cc-wallet')!.getAttribute('href')).toBe(CRYPTO_LINK.uri);
    expect(doc.querySelector('a[data-rail="usdc_polygon"]')!.getAttribute('aria-current')).toBe('true');
    // Copy needs the script; the buttons stay hidden until it runs.
    expect([...doc.querySelectorAll('button.copy')].every((button) => button.hasAttribute('hidden'))).toBe(
      true,
    );
  });

  it('uses a QR code the server already rendered', () => {
    const { doc } = render({ selected: { link: CRYPTO_LINK, qrSvg: '<svg id="from-server"></svg>' } });
    expect(doc.querySelector('#cc-qr #from-server')).not.toBeNull();
  });

  it('never links a wallet URI that could run script', () => {
    const link = { ...CRYPTO_LINK, uri: 'javascript:alert(1)' };
    const { doc, page } = render({ selected: { link } });
    expect(page).not.toMatch(/href="javascript:/i);
    expect(doc.getElementById('cc-wallet')!.hasAttribute('hidden')).toBe(true);
    expect(doc.getElementById('cc-qr')!.hasAttribute('hidden')).toBe(true);
    expect(doc.querySelector('#cc-qr svg')).toBeNull();
  });

  it('with a chosen fiat rail, offers the rail page as a plain link', () => {
    const link = {
      kind: 'fiat' as const,
      payment_method: 'card',
      redirect_url: `https://pay.example/sandbox/card/${CODE}?method=card`,
      expires_at: CRYPTO_LINK.expires_at,
    };
    const { doc } = render({ selected: { link } });
    const anchor = doc.getElementById('cc-fiat-link')!;
    expect(anchor.getAttribute('href')).toBe(link.redirect_url);
    expect(anchor.textContent).toBe('Continue to Card');
    expect(doc.getElementById('cc-pay')!.hasAttribute('hidden')).toBe(true);
  });

  it('escapes a hostile order reference and merchant domain everywhere', () => {
    const { doc, page } = render({
      transaction: transaction({ external_reference: HOSTILE }),
      merchantDomain: HOSTILE,
    });
    expect(page).not.toContain('<script>alert');
    expect(page).not.toContain('<img src=x');
    expect(doc.querySelectorAll('img')).toHaveLength(0);
    expect(doc.querySelectorAll('script')).toHaveLength(2);
    expect(text(doc, '.merchant-name')).toBe(HOSTILE);
    expect(text(doc, '.reference')).toBe(`Order ${HOSTILE}`);
    expect(doc.title).toContain(HOSTILE);
    // The JSON block survives intact and round-trips the hostile values.
    expect(state(doc).merchant).toBe(HOSTILE);
  });

  it('escapes hostile rail names and payment link values', () => {
    const options = context().paymentOptions.map((option) => ({ ...option, name: HOSTILE }));
    const link = { ...CRYPTO_LINK, address: HOSTILE, asset: HOSTILE };
    const { doc, page } = render({ paymentOptions: options, selected: { link } });
    expect(page).not.toContain('<img src=x');
    expect(doc.querySelectorAll('script')).toHaveLength(2);
    expect(text(doc, '#cc-address')).toBe(HOSTILE);
    expect(text(doc, '.rail-name')).toContain(HOSTILE);
  });

  it('shows why a rail is not offered, as the description of the rail, which stays visible but disabled', () => {
    const reason =
      'Not offered: the merchant is paid in USDC on Polygon PoS, and payments go straight to that wallet without conversion.';
    const options = OPTIONS.map((option) =>
      option.slug === 'btc' ? { ...option, unavailable_reason: reason } : option,
    );
    const { doc } = render({ paymentOptions: options });
    const rail = doc.querySelector('.rail--unavailable')!;
    expect(rail.textContent).toContain('Bitcoin');
    expect(rail.getAttribute('role')).toBe('link');
    expect(rail.getAttribute('aria-disabled')).toBe('true');
    // Out of the tab order and never a target: nothing to activate.
    expect(rail.hasAttribute('href')).toBe(false);
    expect(rail.hasAttribute('tabindex')).toBe(false);
    expect(rail.hasAttribute('data-rail')).toBe(false);
    const description = doc.getElementById(rail.getAttribute('aria-describedby')!)!;
    expect(description.textContent).toBe(reason);
    expect(description.closest('li')).toBe(rail.closest('li'));
    // Outside the rail itself, so a screen reader does not read the reason in the name as well.
    expect(rail.contains(description)).toBe(false);
    expect(rail.textContent).not.toContain('Not offered');
    expect(doc.querySelectorAll('a.rail[aria-describedby]')).toHaveLength(0);
  });

  it('shows why a stablecoin rail is paused while the coin trades under its floor', () => {
    const reason =
      'USDC trades at 0.9500 USD, under the 0.98 USD floor: paying in USDC is paused until it recovers.';
    const options = OPTIONS.map((option) =>
      option.slug === 'usdc_polygon' ? { ...option, available: false, unavailable_reason: reason } : option,
    );
    const { doc } = render({ paymentOptions: options });
    // Not offered as a choice, but listed with the reason among the rails not offered.
    expect(doc.querySelector('a[data-rail="usdc_polygon"]')).toBeNull();
    const rail = [...doc.querySelectorAll('.rail--unavailable')].find((item) =>
      item.textContent?.includes('Polygon PoS'),
    )!;
    expect(rail.closest('details.rails-unavailable')).not.toBeNull();
    expect(doc.getElementById(rail.getAttribute('aria-describedby')!)!.textContent).toBe(reason);
    expect(text(doc, 'details.rails-unavailable > summary')).toBe('Not offered for this order (2)');
  });

  it('without a reason from the server, describes an unavailable rail in the page language', () => {
    const { doc } = render({ lang: 'de' });
    const rail = doc.querySelector('.rail--unavailable')!;
    expect(doc.getElementById(rail.getAttribute('aria-describedby')!)!.textContent).toBe(
      'Für diesen Betrag nicht verfügbar',
    );
  });

  it('escapes a hostile reason for an unavailable rail', () => {
    const options = OPTIONS.map((option) => ({ ...option, available: false, unavailable_reason: HOSTILE }));
    const { doc, page } = render({ paymentOptions: options });
    expect(page).not.toContain('<img src=x');
    expect(doc.querySelectorAll('img')).toHaveLength(0);
    expect(doc.querySelectorAll('script')).toHaveLength(2);
    const reasons = [...doc.querySelectorAll('.rail-reason')].map((reason) => reason.textContent);
    expect(reasons).toEqual([HOSTILE, HOSTILE, HOSTILE]);
    // Every reason has its own id, so each rail is described by its own text.
    const ids = [...doc.querySelectorAll('.rail--unavailable')].map((rail) =>
      rail.getAttribute('aria-describedby'),
    );
    expect(new Set(ids).size).toBe(3);
    // Nothing is offered, so the folded list is open: the buyer sees why at once.
    expect(doc.querySelector('details.rails-unavailable')!.hasAttribute('open')).toBe(true);
  });

  it('in live mode, tells the buyer to send exactly the amount, next to it', () => {
    const { doc } = render({ mode: 'live', selected: { link: CRYPTO_LINK } });
    const note = doc.getElementById('cc-exact-amount')!;
    expect(note.textContent).toBe(
      'Send exactly this amount: a different amount cannot be matched to your order.',
    );
    expect(note.closest('.field')).toBe(doc.getElementById('cc-amount')!.closest('.field'));
    // Sandbox amounts are not tagged: no such note there.
    const sandbox = render({ mode: 'sandbox', selected: { link: CRYPTO_LINK } }).doc;
    expect(sandbox.getElementById('cc-exact-amount')).toBeNull();
    expect(text(sandbox, '#cc-pay')).not.toContain('exactly');
  });

  it('on Solana, tells the buyer to pay with the QR code or wallet link (the reference), not an exact amount', () => {
    const paymentOptions = [SOLANA_OPTION, ...OPTIONS];
    const { doc } = render({ mode: 'live', paymentOptions, selected: { link: SOLANA_LINK } });
    // Solana Pay requests are matched by their reference, whatever the amount (docs/solana.md).
    expect(doc.getElementById('cc-exact-amount')!.hidden).toBe(true);
    const note = doc.getElementById('cc-reference-note')!;
    expect(note.hidden).toBe(false);
    expect(note.textContent).toBe(
      'Pay with the QR code or “Open in wallet”: the payment then carries this order’s reference. A transfer typed in by hand to this address cannot be matched to your order.',
    );
    expect(note.closest('.field')).toBe(doc.getElementById('cc-address')!.closest('.field'));
    expect(text(doc, '#cc-pay-title')).toBe('Send 13.6 USDC');
    expect(text(doc, '#cc-network')).toBe('Solana');
    expect(text(doc, '#cc-address')).toBe(SOLANA_LINK.address);
    expect(text(doc, '#cc-warning')).toBe('Send only USDC on Solana. Anything else may be lost.');
    expect(doc.getElementById('cc-wallet')!.getAttribute('href')).toBe(SOLANA_LINK.uri);
    expect(doc.getElementById('cc-qr')!.hidden).toBe(false);
    // The script switches the notes with the rail: each rail says which one it shows.
    expect(state(doc).rails.map((rail) => [rail.slug, rail.payNote])).toEqual([
      ['usdc_solana', 'reference'],
      ['usdc_polygon', 'exact_amount'],
      ['btc', 'exact_amount'],
      ['card', null],
    ]);
    // The EVM rail of the same page keeps its exact-amount note and no reference note.
    const evm = render({ mode: 'live', paymentOptions, selected: { link: CRYPTO_LINK } }).doc;
    expect(evm.getElementById('cc-exact-amount')!.hidden).toBe(false);
    expect(evm.getElementById('cc-reference-note')!.hidden).toBe(true);
    // The sandbox matches by neither: no note at all.
    const sandbox = render({ mode: 'sandbox', paymentOptions, selected: { link: SOLANA_LINK } }).doc;
    expect(sandbox.getElementById('cc-reference-note')).toBeNull();
    expect(state(sandbox).rails.every((rail) => rail.payNote === null)).toBe(true);
  });

  it.each([
    ['de', 'Zahlen Sie über den QR-Code oder „In Wallet öffnen“'],
    ['fr', 'Payez avec le QR code ou « Ouvrir dans le portefeuille »'],
    ['es', 'Paga con el código QR o «Abrir en el monedero»'],
  ])('says "pay with the QR code or the wallet link" on Solana in %s', (lang, start) => {
    const paymentOptions = [SOLANA_OPTION, ...OPTIONS];
    const { doc } = render({ lang, mode: 'live', paymentOptions, selected: { link: SOLANA_LINK } });
    expect(text(doc, '#cc-reference-note')).toMatch(new RegExp(`^${start}`));
  });

  it.each([
    ['de', 'Genau diesen Betrag senden'],
    ['fr', 'Envoyez exactement ce montant'],
    ['es', 'Envía exactamente este importe'],
  ])('says "send exactly this amount" in %s', (lang, start) => {
    const { doc } = render({ lang, mode: 'live', selected: { link: CRYPTO_LINK } });
    expect(text(doc, '#cc-exact-amount')).toMatch(new RegExp(`^${start}`));
  });

  it('drops success and cancel URLs that are not http(s)', () => {
    const { doc, page } = render({
      successUrl: 'javascript:alert(1)',
      cancelUrl: 'data:text/html,<b>x</b>',
      transaction: transaction({ status: 'settled' }),
    });
    expect(page).not.toContain('javascript:');
    expect(page).not.toContain('data:text');
    expect(state(doc).successUrl).toBeNull();
    expect(doc.querySelector('#cc-status-action a')).toBeNull();
  });

  it('hands the browser script its state, with the strings of the page language', () => {
    const { doc } = render({ lang: 'de', mode: 'sandbox', selected: { link: CRYPTO_LINK } });
    const data = state(doc);
    expect(data).toMatchObject({
      code: CODE,
      status: 'pending',
      amountInUsd: 13.6,
      receivedUsd: 0,
      expiresAt: '2025-01-01T12:50:00.000Z',
      serverNow: '2025-01-01T12:00:00.000Z',
      apiBase: '/api',
      pagePath: `/pay/${CODE}`,
      mode: 'sandbox',
      lang: 'de',
      merchant: 'shop.example',
      successUrl: 'https://shop.example/thanks',
      cancelUrl: 'https://shop.example/cart',
      selected: CRYPTO_LINK,
    });
    expect(data.text.copy).toBe('Kopieren');
    expect(data.rails.map((rail) => rail.networkName)).toEqual(['Polygon PoS', 'Bitcoin', null]);
  });

  it.each([
    ['de', 'Zu zahlender Betrag', '12,50 €'],
    ['fr', 'Montant à payer', '12,50 €'],
    ['es', 'Importe a pagar', '12,50 €'],
  ])('speaks %s', (lang, label, amount) => {
    const { doc } = render({ lang });
    expect(doc.documentElement.getAttribute('lang')).toBe(lang);
    expect(text(doc, '#cc-amount-label')).toBe(label);
    expect(text(doc, '.amount .fiat').replace(/\s/g, ' ')).toBe(amount);
    expect(doc.querySelector(`.languages a[lang="${lang}"]`)!.getAttribute('aria-current')).toBe('true');
  });

  it('falls back to English for an unsupported language', () => {
    const { doc } = render({ lang: 'xx' });
    expect(doc.documentElement.getAttribute('lang')).toBe('en');
    expect(text(doc, '#cc-amount-label')).toBe('Amount to pay');
  });

  it('shows the countdown while waiting and the amount still due when underpaid', () => {
    const pending = render().doc;
    expect(text(pending, '#cc-status-title')).toBe('Waiting for your payment');
    expect(text(pending, '#cc-countdown')).toBe('Time left: 50:00');
    const underpaid = render({ transaction: transaction({ status: 'underpaid', received_usd: 10.2 }) }).doc;
    expect(text(underpaid, '#cc-status-title')).toBe('Partly paid');
    expect(text(underpaid, '#cc-status-detail')).toBe('$3.40 still to pay');
    const processing = render({ transaction: transaction({ status: 'processing' }) }).doc;
    expect(processing.getElementById('cc-countdown')!.hasAttribute('hidden')).toBe(true);
  });

  it('on a settled order, hides the rails and links back to the merchant', () => {
    const { doc } = render({
      transaction: transaction({ status: 'settled', received_usd: 13.6, late: true }),
      selected: { link: CRYPTO_LINK },
    });
    expect(text(doc, '#cc-status-title')).toBe('Payment complete. Thank you!');
    expect(text(doc, '#cc-status-detail')).toContain('after the deadline');
    expect(doc.getElementById('cc-methods')).toBeNull();
    expect(doc.getElementById('cc-pay')!.hasAttribute('hidden')).toBe(true);
    expect(doc.querySelector('#cc-status-action a')!.getAttribute('href')).toBe(
      'https://shop.example/thanks',
    );
    expect(doc.getElementById('cc-cancel')).toBeNull();
  });

  it('on an expired order, links back to the cancel URL', () => {
    const { doc } = render({ transaction: transaction({ status: 'expired' }) });
    expect(text(doc, '#cc-status-title')).toBe('This payment request has expired');
    expect(doc.querySelector('#cc-status-action a')!.getAttribute('href')).toBe('https://shop.example/cart');
    expect(doc.getElementById('cc-countdown')!.hasAttribute('hidden')).toBe(true);
  });

  it('in sandbox mode, says so and carries the simulate controls for the script', () => {
    const { doc } = render({ mode: 'sandbox', selected: { link: CRYPTO_LINK } });
    expect(text(doc, '.sandbox-banner')).toContain('Sandbox');
    expect(doc.body.classList.contains('is-sandbox')).toBe(true);
    const sizes = [...doc.querySelectorAll('[data-simulate]')].map((button) =>
      button.getAttribute('data-simulate'),
    );
    expect(sizes).toEqual(['full', 'partial', 'over']);
    const live = render({ mode: 'live', selected: { link: CRYPTO_LINK } }).doc;
    expect(live.querySelector('.sandbox-banner')).toBeNull();
    expect(live.querySelector('[data-simulate]')).toBeNull();
  });

  it('when embedded, keeps the embed parameters on its links and leaves the frame for merchant URLs', () => {
    const embed = { embedded: true, parentOrigin: 'https://shop.example' };
    const { doc } = render({ embed });
    expect(doc.body.classList.contains('is-embedded')).toBe(true);
    const href = doc.querySelector('a[data-rail="usdc_polygon"]')!.getAttribute('href')!;
    const query = new URL(href, 'https://pay.example').searchParams;
    expect(query.get('embed')).toBe('1');
    expect(query.get('parent_origin')).toBe('https://shop.example');
    expect(doc.getElementById('cc-cancel')!.getAttribute('target')).toBe('_top');
  });

  it('labels every control and keeps one h1', () => {
    const { doc } = render({ mode: 'sandbox', selected: { link: CRYPTO_LINK } });
    expect(doc.querySelectorAll('h1')).toHaveLength(1);
    for (const button of doc.querySelectorAll('button')) {
      expect(button.getAttribute('aria-label') ?? button.textContent?.trim()).toBeTruthy();
    }
    for (const input of doc.querySelectorAll('input')) {
      expect(doc.querySelector(`label[for="${input.id}"]`)).not.toBeNull();
    }
    expect(doc.querySelector('meta[name="viewport"]')!.getAttribute('content')).toContain(
      'width=device-width',
    );
  });
});

describe('renderPayPage: the locked rate', () => {
  const withRate = (
    overrides: Parameters<typeof lockedRate>[0] = {},
    tx: Parameters<typeof transaction>[0] = {},
  ) => ({ transaction: transaction({ rate: lockedRate(overrides), ...tx }) }) as const;

  it('shows the rate of a non-USD order under the amount: sources, when published, how long it holds', () => {
    const { doc } = render(withRate());
    const line = doc.getElementById('cc-rate')!;
    expect(line.closest('section.amount')).not.toBeNull();
    expect(text(doc, '#cc-rate')).toBe(
      '1 EUR = 1.0612 USD · ECB, ExchangeRate-API · 1 Jan 11:00 UTC · price held until 12:50 UTC',
    );
    // Each part stays whole; a separator ends the part before it and is decoration only.
    expect([...line.querySelectorAll('.rate-part')].map((part) => part.textContent)).toEqual([
      '1 EUR = 1.0612 USD ·',
      'ECB, ExchangeRate-API ·',
      '1 Jan 11:00 UTC ·',
      'price held until 12:50 UTC',
    ]);
    const separators = [...line.querySelectorAll('.rate-sep')];
    expect(separators).toHaveLength(3);
    expect(separators.every((sep) => sep.getAttribute('aria-hidden') === 'true')).toBe(true);
  });

  it('names the spread, keeps every digit of the rate, and dates a hold that ends on another day', () => {
    const { doc } = render(
      withRate(
        { usd_per_unit: '0.0066934512', spread_percent: '1.5', held_until: '2025-01-02T00:30:00.000Z' },
        {
          fiat_currency: 'JPY',
        },
      ),
    );
    expect(text(doc, '#cc-rate')).toBe(
      '1 JPY = 0.0066934512 USD incl. 1.5% spread · ECB, ExchangeRate-API · 1 Jan 11:00 UTC · price held until 2 Jan 00:30 UTC',
    );
    // The spread is a part of its own, so a narrow screen breaks the line before it, not inside it.
    const parts = [...doc.querySelectorAll('#cc-rate .rate-part')].map((part) => part.textContent);
    expect(parts.slice(0, 2)).toEqual(['1 JPY = 0.0066934512 USD', 'incl. 1.5% spread ·']);
  });

  it('shows the static table by its date alone, with the year when it is not this one', () => {
    const { doc } = render(
      withRate({
        source: 'static table 2024-11-01',
        sources: ['static table'],
        as_of: '2024-11-01T00:00:00.000Z',
      }),
    );
    expect(text(doc, '#cc-rate')).toBe(
      '1 EUR = 1.0612 USD · fixed rate table · 1 Nov 2024 · price held until 12:50 UTC',
    );
  });

  it.each([
    [
      'de',
      '1 EUR = 1,0612 USD inkl. 1 % Aufschlag · ECB, ExchangeRate-API · 1. Jan. 11:00 UTC · Preis gilt bis 12:50 UTC',
    ],
    [
      'fr',
      '1 EUR = 1,0612 USD marge de 1 % incluse · ECB, ExchangeRate-API · 1 janv. 11:00 UTC · prix garanti jusqu’à 12:50 UTC',
    ],
    [
      'es',
      '1 EUR = 1,0612 USD margen del 1 % incluido · ECB, ExchangeRate-API · 1 ene 11:00 UTC · precio fijo hasta 12:50 UTC',
    ],
  ])('speaks %s', (lang, expected) => {
    const { doc } = render({ lang, ...withRate({ spread_percent: '1' }) });
    expect(text(doc, '#cc-rate').replace(/\s/g, ' ')).toBe(expected);
  });

  it('once the order is settled or expired, no longer says the price holds', () => {
    for (const status of ['settled', 'expired'] as const) {
      const { doc } = render(withRate({}, { status }));
      expect(text(doc, '#cc-rate')).toBe('1 EUR = 1.0612 USD · ECB, ExchangeRate-API · 1 Jan 11:00 UTC');
    }
  });

  it('shows nothing for a USD order (nothing is converted) or without a rate (older data)', () => {
    const usd = render(withRate({ usd_per_unit: '1' }, { fiat_currency: 'USD', fiat_amount: 13.6 })).doc;
    expect(usd.getElementById('cc-rate')).toBeNull();
    const older = render().doc;
    expect(older.getElementById('cc-rate')).toBeNull();
    expect(older.querySelector('section.amount')!.textContent).not.toContain('USD ·');
  });

  it('escapes hostile source names and currency codes', () => {
    const { doc, page } = render(withRate({ sources: [HOSTILE, 'ECB'] }, { fiat_currency: HOSTILE }));
    expect(page).not.toContain('<img src=x');
    expect(doc.querySelectorAll('img')).toHaveLength(0);
    expect(doc.querySelectorAll('script')).toHaveLength(2);
    const parts = [...doc.querySelectorAll('#cc-rate .rate-part')].map((part) => part.textContent);
    expect(parts[0]).toBe(`1 ${HOSTILE} = 1.0612 USD ·`);
    expect(parts[1]).toBe(`${HOSTILE}, ECB ·`);
  });
});
