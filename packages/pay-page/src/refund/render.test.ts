import { Window } from 'happy-dom';
import { describe, expect, it } from 'vitest';
import { SUPPORTED_LANGUAGES } from '../i18n.js';
import { REFUND_MESSAGES } from './i18n.js';
import {
  addressGroups,
  REFUND_IDS,
  type RefundClaimPageInput,
  type RefundClaimView,
  renderRefundBadFormPage,
  renderRefundClaimPage,
  renderRefundNotFoundPage,
} from './render.js';

const CLAIM = 'Qm9vZ2llV29vZ2llQm9vZ2llV29vZ2llQm9vZ2llV29';
const NOW = new Date('2025-01-10T12:00:00.000Z');
const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const HOSTILE = `</title><script>alert(1)</script><img src=x onerror=alert(2)>"'&<!--`;

function view(overrides: Partial<RefundClaimView> = {}): RefundClaimView {
  return {
    claimCode: CLAIM,
    status: 'awaiting_address',
    merchantDomain: 'shop.example',
    externalReference: 'order-1001',
    amount: '12.340001',
    asset: 'USDC',
    network: 'POLYGON',
    fiatAmount: '12.50',
    fiatCurrency: 'EUR',
    address: null,
    claimExpiresAt: '2025-02-01T12:00:00.000Z',
    paidAt: null,
    txId: null,
    txUrl: null,
    mode: 'live',
    ...overrides,
  };
}

function render(input: Partial<RefundClaimPageInput> & { view?: RefundClaimView } = {}) {
  const page = renderRefundClaimPage({ view: view(), step: 'enter', lang: 'en', now: NOW, ...input });
  // Parsed without running any script, as a browser with JavaScript off would.
  const window = new Window({ settings: { disableJavaScriptEvaluation: true, disableCSSFileLoading: true } });
  window.document.write(page);
  const doc = window.document as unknown as Document;
  const text = (selector: string) =>
    doc.querySelector(selector)?.textContent?.replace(/\s+/g, ' ').trim() ?? '';
  return { page, doc, text };
}

/** The texts an element's aria-describedby points at, in order. */
function descriptions(doc: Document, id: string): string[] {
  const ids = doc.getElementById(id)!.getAttribute('aria-describedby')!.split(' ');
  return ids.map((ref) => doc.getElementById(ref)!.textContent!.replace(/\s+/g, ' ').trim());
}

describe('renderRefundClaimPage: enter', () => {
  it('shows shop, order, amount with network and fiat value, deadline, and a form posting to itself', () => {
    const { doc, text } = render();
    expect(doc.documentElement.getAttribute('lang')).toBe('en');
    expect(text('.merchant-name')).toBe('shop.example');
    expect(text('.reference')).toBe('Order order-1001');
    expect(text('.refund-amount')).toBe('12.340001 USDC on Polygon PoS');
    expect(text('.amount .usd')).toBe('Worth €12.50 at the rate of your payment');
    expect(doc.title).toBe(
      'Where should the shop send your refund? · Refund from shop.example · Crypto Checkout',
    );
    expect(doc.querySelector('time')!.getAttribute('datetime')).toBe('2025-02-01T12:00:00.000Z');
    expect(text('.refund-section .hint')).toBe('Confirm your address by February 1, 2025 at 12:00 PM UTC.');

    const form = doc.querySelector('form')!;
    expect(form.getAttribute('method')).toBe('post');
    expect(form.getAttribute('action')).toBe(`/refund/${CLAIM}?lang=en`);
    expect((doc.querySelector('input[name="step"]') as HTMLInputElement).value).toBe('check');
    for (const name of ['address', 'address_again']) {
      const input = doc.querySelector(`input[name="${name}"]`)!;
      expect(input.getAttribute('type')).toBe('text');
      expect(input.getAttribute('autocomplete')).toBe('off');
      expect(input.getAttribute('spellcheck')).toBe('false');
      expect(input.getAttribute('autocapitalize')).toBe('off');
      expect(input.hasAttribute('aria-invalid')).toBe(false);
      expect(input.hasAttribute('autofocus')).toBe(false);
      // Each input has a visible label of its own.
      expect(doc.querySelector(`label[for="${input.id}"]`)).not.toBeNull();
    }
    expect(text(`label[for="${REFUND_IDS.address}"]`)).toBe('Your address on Polygon PoS');
    expect(descriptions(doc, REFUND_IDS.address)).toEqual([
      'It must be an address on Polygon PoS that can receive USDC. Sent to an address on another network, the refund is lost.',
    ]);
    expect(doc.querySelector('button[type="submit"]')!.textContent).toBe('Continue');
  });

  it('needs no script: no script element, no inline style or handler, own stylesheets only', () => {
    const { doc, page } = render({ view: view({ mode: 'sandbox' }) });
    expect(doc.querySelectorAll('script')).toHaveLength(0);
    expect(doc.querySelectorAll('style')).toHaveLength(0);
    expect(page).not.toMatch(/\sstyle=/);
    expect(page).not.toMatch(/\son[a-z]+=/);
    const sheets = [...doc.querySelectorAll('link[rel="stylesheet"]')].map((link) =>
      link.getAttribute('href'),
    );
    expect(sheets).toEqual([
      expect.stringMatching(/^\/pay\/assets\/pay\.css/),
      expect.stringMatching(/^\/refund\/assets\/refund\.css\?v=[0-9a-f]{12}$/),
    ]);
    expect(doc.querySelector('.sandbox-banner')?.textContent).toContain('Sandbox');
    expect(doc.querySelector('meta[http-equiv="refresh"]')).toBeNull();
  });

  it('shows what the buyer typed again, with the problem tied to its input and focused', () => {
    const { doc, text } = render({
      entered: { address: '0x5290 ', addressAgain: `a"><b>${HOSTILE}` },
      problem: { field: 'address', code: 'checksum_mismatch', message: 'English text' },
    });
    const address = doc.getElementById(REFUND_IDS.address) as HTMLInputElement;
    expect(address.value).toBe('0x5290 ');
    expect((doc.getElementById(REFUND_IDS.addressAgain) as HTMLInputElement).value).toBe(`a"><b>${HOSTILE}`);
    expect(address.getAttribute('aria-invalid')).toBe('true');
    expect(address.hasAttribute('autofocus')).toBe(true);
    expect(descriptions(doc, REFUND_IDS.address)[1]).toBe(
      'A character of the address was probably changed: its checksum does not match. Copy the address again from your wallet.',
    );
    expect(doc.getElementById(REFUND_IDS.addressAgain)!.hasAttribute('aria-invalid')).toBe(false);
    expect(doc.title.startsWith('Error: ')).toBe(true);
    expect(text(`#${REFUND_IDS.addressAgainError}`)).toBe('');
  });

  it('ties mismatch and a missing second entry to the second input', () => {
    for (const [code, expected] of [
      ['mismatch', 'The two addresses differ. Enter the same address in both fields.'],
      ['empty', 'Enter the address a second time.'],
    ] as const) {
      const { doc } = render({
        entered: { address: ADDRESS, addressAgain: '' },
        problem: { field: 'address_again', code },
      });
      const again = doc.getElementById(REFUND_IDS.addressAgain)!;
      expect(again.getAttribute('aria-invalid')).toBe('true');
      expect(descriptions(doc, REFUND_IDS.addressAgain)).toEqual([
        'Paste or type it once more, so that a slip is caught before anything is sent.',
        expected,
      ]);
      expect(doc.getElementById(REFUND_IDS.address)!.hasAttribute('aria-invalid')).toBe(false);
    }
  });

  it('localises every address problem code and falls back to the English message for others', () => {
    const codes = [
      'empty',
      'whitespace',
      'unknown_network',
      'wrong_network',
      'testnet',
      'bad_format',
      'bad_length',
      'bad_character',
      'checksum_mismatch',
    ];
    const seen = new Set<string>();
    for (const code of codes) {
      const { text } = render({ lang: 'fr', problem: { field: 'address', code, message: 'Core says no' } });
      const message = text(`#${REFUND_IDS.addressError}`);
      expect(message, code).not.toBe('Core says no');
      expect(message, code).not.toMatch(/\{\w+\}/);
      seen.add(message);
    }
    expect(seen.size).toBe(codes.length);
    expect(
      render({
        lang: 'de',
        problem: { field: 'address', code: 'from_the_future', message: 'Core says no' },
      }).text(`#${REFUND_IDS.addressError}`),
    ).toBe('Core says no');
    expect(
      render({ lang: 'de', problem: { field: 'address', code: 'from_the_future' } }).text(
        `#${REFUND_IDS.addressError}`,
      ),
    ).toBe(REFUND_MESSAGES.de.problemOther);
    expect(
      render({ problem: { field: 'address', code: 'wrong_network' } }).text(`#${REFUND_IDS.addressError}`),
    ).toBe('This is an address of another network. Enter an address on Polygon PoS.');
  });

  it('words the refusals of addresses that would lose the refund in every language, with the network and asset', () => {
    const codes = ['zero_address', 'token_contract', 'service_address', 'shop_wallet'];
    for (const lang of SUPPORTED_LANGUAGES) {
      const seen = new Set<string>();
      for (const code of codes) {
        const message = render({ lang, problem: { field: 'address', code } }).text(
          `#${REFUND_IDS.addressError}`,
        );
        expect(message, `${lang} ${code}`).not.toBe(REFUND_MESSAGES[lang].problemOther);
        expect(message, `${lang} ${code}`).toContain('Polygon PoS');
        expect(message, `${lang} ${code}`).not.toMatch(/\{\w+\}/);
        seen.add(message);
      }
      expect(seen.size, lang).toBe(codes.length);
    }
    expect(
      render({ problem: { field: 'address', code: 'token_contract' } }).text(`#${REFUND_IDS.addressError}`),
    ).toBe(
      'This is the address of a token contract, not a wallet: USDC sent there is lost. Enter your own wallet address on Polygon PoS.',
    );
  });

  it('escapes the order reference and the shop domain everywhere', () => {
    const { doc, page } = render({
      view: view({ externalReference: HOSTILE, merchantDomain: HOSTILE }),
    });
    expect(doc.querySelectorAll('script')).toHaveLength(0);
    expect(doc.querySelector('img')).toBeNull();
    expect(page).not.toContain('<script>');
    expect(doc.querySelector('.merchant-name')!.textContent).toBe(HOSTILE);
    expect(doc.querySelector('.reference')!.textContent).toBe(`Order ${HOSTILE}`);
    expect(doc.title).toContain(HOSTILE);
  });

  it('without a shop domain, names no shop', () => {
    const { doc, text } = render({ view: view({ merchantDomain: null, fiatAmount: null }) });
    expect(text('.merchant-name')).toBe('Your refund');
    expect(doc.querySelector('.pay-to')).toBeNull();
    expect(doc.querySelector('.amount .usd')).toBeNull();
  });
});

describe('renderRefundClaimPage: review', () => {
  it('shows the canonical address in groups that copy as one string, the warning and the confirm form', () => {
    const { doc, text } = render({ step: 'review', reviewAddress: ADDRESS });
    const shown = doc.getElementById(REFUND_IDS.reviewAddress)!;
    expect(shown.textContent).toBe(ADDRESS);
    expect([...shown.children].map((group) => group.textContent)).toEqual([
      '0x',
      '5290',
      '8400',
      '0985',
      '2788',
      '6E0F',
      '7030',
      '0698',
      '57D2',
      'E416',
      '9EE7',
    ]);
    expect(text('.fields')).toContain('Polygon PoS');
    expect(text('.fields')).toContain('USDC');
    expect(text(`#${REFUND_IDS.memo}`)).toContain('memo, tag or payment ID');
    const form = doc.querySelector('form')!;
    expect(form.getAttribute('action')).toBe(`/refund/${CLAIM}?lang=en`);
    expect((form.querySelector('input[name="step"]') as HTMLInputElement).value).toBe('confirm');
    expect((form.querySelector('input[name="address"]') as HTMLInputElement).value).toBe(ADDRESS);
    const box = doc.getElementById(REFUND_IDS.confirmed) as HTMLInputElement;
    expect(box.type).toBe('checkbox');
    expect(box.name).toBe('confirmed');
    expect(box.value).toBe('yes');
    expect(box.checked).toBe(false);
    expect(text(`label[for="${REFUND_IDS.confirmed}"]`)).toBe(
      'This is my address on Polygon PoS and it can receive USDC.',
    );
    expect(descriptions(doc, REFUND_IDS.confirmed)[0]).toContain('exchange deposit address');
    expect(text('button[type="submit"]')).toBe('Confirm address');
    const change = [...doc.querySelectorAll('.refund-actions a')].find(
      (a) => a.textContent === 'Change address',
    );
    expect(change?.getAttribute('href')).toBe(`/refund/${CLAIM}?lang=en`);
  });

  it('ties the unticked box problem to the checkbox', () => {
    const { doc } = render({
      step: 'review',
      reviewAddress: ADDRESS,
      problem: { field: 'confirmed', code: 'not_confirmed' },
    });
    const box = doc.getElementById(REFUND_IDS.confirmed)!;
    expect(box.getAttribute('aria-invalid')).toBe('true');
    expect(box.hasAttribute('autofocus')).toBe(true);
    expect(descriptions(doc, REFUND_IDS.confirmed)[1]).toBe(
      'Tick the box to confirm that this is your address.',
    );
  });

  it('groups addresses without a 0x prefix from their start', () => {
    expect(addressGroups('bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq')).toEqual([
      'bc1q',
      'ar0s',
      'rrr7',
      'xfkv',
      'y5l6',
      '43ly',
      'dnw9',
      're59',
      'gtzz',
      'wf5m',
      'dq',
    ]);
  });
});

describe('renderRefundClaimPage: status', () => {
  it('awaiting payment: the confirmed address, what the shop sends, and a refresh every 30 s', () => {
    const { doc, text } = render({
      view: view({ status: 'awaiting_payment', address: ADDRESS }),
      step: 'status',
    });
    expect(text(`#${REFUND_IDS.title}`)).toBe('Address confirmed');
    expect(text('.refund-status')).toContain('Your address is confirmed:');
    expect(doc.querySelector('.refund-status .refund-address')!.textContent).toBe(ADDRESS);
    expect(text('.refund-status')).toContain(
      'The shop will send 12.340001 USDC on Polygon PoS. This page refreshes by itself.',
    );
    expect(doc.querySelector('meta[http-equiv="refresh"]')!.getAttribute('content')).toBe('30');
    expect(doc.querySelector('form')).toBeNull();
  });

  it('shows the status whatever step is asked once the address is confirmed', () => {
    const { doc } = render({
      view: view({ status: 'awaiting_payment', address: ADDRESS }),
      step: 'review',
      reviewAddress: '0x8ba1f109551bD432803012645Ac136ddd64DBA72',
    });
    expect(doc.querySelector('form')).toBeNull();
    expect(doc.querySelector('.refund-address')!.textContent).toBe(ADDRESS);
  });

  it('paid: amount, address, date and a link to the transaction', () => {
    const { doc, text } = render({
      view: view({
        status: 'paid',
        address: ADDRESS,
        paidAt: '2025-01-12T08:30:00.000Z',
        txId: '0xabc123',
        txUrl: 'https://polygonscan.com/tx/0xabc123',
      }),
      step: 'status',
    });
    expect(text(`#${REFUND_IDS.title}`)).toBe('Refund sent');
    expect(text('.refund-status')).toContain('12.340001 USDC was sent on Polygon PoS to:');
    expect(text('.refund-status')).toContain('Sent on January 12, 2025 at 8:30 AM UTC.');
    expect(doc.querySelector('.refund-status a')!.getAttribute('href')).toBe(
      'https://polygonscan.com/tx/0xabc123',
    );
    expect(text('.refund-tx')).toBe('0xabc123');
    expect(doc.querySelector('.status--settled')).not.toBeNull();
    expect(doc.querySelector('meta[http-equiv="refresh"]')).toBeNull();
  });

  it('paid without a safe explorer URL: the transaction id only', () => {
    const { doc, text } = render({
      view: view({ status: 'paid', address: ADDRESS, txId: 'sandbox-tx-1', txUrl: 'javascript:alert(1)' }),
      step: 'status',
    });
    expect(doc.querySelector('.refund-status a')).toBeNull();
    expect(text('.refund-tx')).toBe('sandbox-tx-1');
  });

  it('cancelled and expired tell the buyer to contact the shop', () => {
    const cancelled = render({ view: view({ status: 'cancelled' }), step: 'status' });
    expect(cancelled.text(`#${REFUND_IDS.title}`)).toBe('Refund cancelled');
    expect(cancelled.text('.refund-status')).toContain('Contact shop.example');
    const expired = render({ view: view({ status: 'expired' }), step: 'status' });
    expect(expired.text(`#${REFUND_IDS.title}`)).toBe('This refund claim has expired');
    expect(expired.text('.refund-status')).toBe(
      'This refund claim has expired No address was confirmed by February 1, 2025 at 12:00 PM UTC. Contact shop.example to receive your refund.',
    );
    expect(expired.doc.querySelector('form')).toBeNull();
  });

  it('after the claim deadline, shows an unclaimed refund as expired instead of the form', () => {
    const { doc, text } = render({ now: new Date('2025-02-01T12:00:00.000Z') });
    expect(doc.querySelector('form')).toBeNull();
    expect(text(`#${REFUND_IDS.title}`)).toBe('This refund claim has expired');
  });
});

describe('every language', () => {
  const pages = (lang: string) => [
    render({ lang, problem: { field: 'address', code: 'bad_length' } }),
    render({
      lang,
      step: 'review',
      reviewAddress: ADDRESS,
      problem: { field: 'confirmed', code: 'not_confirmed' },
    }),
    render({ lang, view: view({ status: 'awaiting_payment', address: ADDRESS }), step: 'status' }),
    render({
      lang,
      view: view({ status: 'paid', address: ADDRESS, paidAt: NOW.toISOString(), txId: '0x1', txUrl: null }),
      step: 'status',
    }),
    render({ lang, view: view({ status: 'cancelled' }), step: 'status' }),
    render({ lang, view: view({ status: 'expired', mode: 'sandbox' }), step: 'status' }),
  ];

  it.each(SUPPORTED_LANGUAGES)('%s renders each step with its lang attribute and no missing text', (lang) => {
    for (const { doc, page } of pages(lang)) {
      expect(doc.documentElement.getAttribute('lang')).toBe(lang);
      const visible = doc.body.textContent!;
      expect(visible).not.toMatch(/\{\w+\}/);
      expect(visible).not.toContain('undefined');
      expect(page).not.toContain('undefined');
      expect(doc.querySelector(`nav a[hreflang="${lang}"]`)!.getAttribute('aria-current')).toBe('true');
    }
    if (lang !== 'en') {
      const [enter] = pages(lang);
      expect(enter!.text(`#${REFUND_IDS.title}`)).toBe(REFUND_MESSAGES[lang].enterTitle);
      expect(enter!.text(`#${REFUND_IDS.title}`)).not.toBe(REFUND_MESSAGES.en.enterTitle);
    }
  });

  it('falls back to English for an unknown language', () => {
    const { doc } = render({ lang: 'xx' });
    expect(doc.documentElement.getAttribute('lang')).toBe('en');
  });
});

describe('renderRefundNotFoundPage', () => {
  it('depends on the language alone and names no refund', () => {
    expect(renderRefundNotFoundPage('de')).toBe(renderRefundNotFoundPage('de'));
    const page = renderRefundNotFoundPage('fr');
    expect(page).toContain('<html lang="fr">');
    expect(page).toContain('Remboursement introuvable');
    expect(page).not.toContain('<script');
    expect(renderRefundNotFoundPage('xx')).toBe(renderRefundNotFoundPage('en'));
  });

  it('the bad-form page links back to the claim', () => {
    expect(renderRefundBadFormPage('es', CLAIM)).toContain(`href="/refund/${CLAIM}?lang=es"`);
  });
});
