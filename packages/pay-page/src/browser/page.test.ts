import { Window } from 'happy-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  CODE,
  CRYPTO_LINK,
  context,
  NOW,
  OPTIONS,
  SOLANA_LINK,
  SOLANA_OPTION,
  transaction,
} from '../fixtures.test-helpers.js';
import { renderPayPage } from '../render.js';
import type { PayPageContext } from '../state.js';
import { type PayPageController, startPayPage } from './page.js';

type Json = Record<string, unknown>;

/** A stand-in for the server's JSON API: routes by path, records every request. */
function fakeApi(routes: Record<string, (url: URL, init?: RequestInit) => { status?: number; body: Json }>) {
  const requests: { url: URL; init: RequestInit | undefined }[] = [];
  const fetch = vi.fn(async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input), 'https://pay.example');
    requests.push({ url, init });
    const route = routes[url.pathname];
    const { status = 200, body } = route ? route(url, init) : { status: 404, body: { status: 'error' } };
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  });
  return { fetch: fetch as unknown as typeof globalThis.fetch, requests };
}

const ok = (data: unknown) => ({ body: { status: 'success', data } as Json });
const tx = (overrides: Json = {}) => ok({ ...transaction(), ...overrides });

let running: PayPageController | null = null;

function mount(overrides: Partial<PayPageContext>, fetch: typeof globalThis.fetch, extra: Json = {}) {
  const window = new Window({
    url: `https://pay.example/pay/${CODE}`,
    settings: {
      disableJavaScriptFileLoading: true,
      disableCSSFileLoading: true,
      disableJavaScriptEvaluation: true,
    },
  });
  window.document.write(renderPayPage(context(overrides)));
  const navigate = vi.fn<(url: string) => void>();
  const doc = window.document as unknown as Document;
  running = startPayPage({
    document: doc,
    window: window as unknown as globalThis.Window,
    fetch,
    navigate,
    now: () => Date.now(),
    leaveDelayMs: 2_000,
    ...extra,
  });
  const text = (id: string) => doc.getElementById(id)?.textContent?.trim() ?? '';
  return { doc, window, navigate, text, controller: running };
}

/** Lets pending promises and fetch callbacks run without moving the clock far. */
const settle = () => vi.advanceTimersByTimeAsync(10);

beforeEach(() => {
  // The buyer's clock is 3 minutes behind the server's.
  vi.useFakeTimers({
    now: NOW.getTime() - 180_000,
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
  });
});

afterEach(() => {
  running?.stop();
  running = null;
  vi.useRealTimers();
});

describe('startPayPage', () => {
  it('counts down by the server clock and polls the status at once', async () => {
    const api = fakeApi({ '/api/transaction': () => tx() });
    const { text } = mount({}, api.fetch);
    expect(text('cc-countdown')).toBe('Time left: 50:00');
    await vi.advanceTimersByTimeAsync(61_000);
    expect(text('cc-countdown')).toBe('Time left: 48:59');
    expect(api.requests[0]!.url.search).toBe(`?transaction_code=${CODE}`);
  });

  it('shows an underpayment with the amount still due, keeping the countdown', async () => {
    const api = fakeApi({ '/api/transaction': () => tx({ status: 'underpaid', received_usd: 10.1 }) });
    const { text, doc } = mount({}, api.fetch);
    await settle();
    expect(text('cc-status-title')).toBe('Partly paid');
    expect(text('cc-status-detail')).toBe('$3.50 still to pay');
    expect(doc.getElementById('cc-status')!.className).toBe('status status--underpaid');
    expect(doc.getElementById('cc-countdown')!.hidden).toBe(false);
  });

  it('on settlement, stops polling and returns the buyer to the success URL after a pause', async () => {
    const api = fakeApi({ '/api/transaction': () => tx({ status: 'settled', received_usd: 13.6 }) });
    const { text, navigate, doc } = mount({}, api.fetch);
    await settle();
    expect(text('cc-status-title')).toBe('Payment complete. Thank you!');
    expect(text('cc-status-detail')).toBe('Taking you back to shop.example…');
    expect(doc.getElementById('cc-methods')!.hidden).toBe(true);
    expect(doc.querySelector('#cc-status-action a')!.getAttribute('href')).toBe(
      'https://shop.example/thanks',
    );
    expect(navigate).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(navigate).toHaveBeenCalledExactlyOnceWith('https://shop.example/thanks');
    await vi.advanceTimersByTimeAsync(30_000);
    expect(api.requests).toHaveLength(1);
  });

  it('when embedded, reports settled and then closed to the parent origin instead of navigating', async () => {
    const api = fakeApi({ '/api/transaction': () => tx({ status: 'settled', received_usd: 13.6 }) });
    const parentWindow = { postMessage: vi.fn() };
    const { navigate, text } = mount(
      { embed: { embedded: true, parentOrigin: 'https://shop.example' } },
      api.fetch,
      { parentWindow },
    );
    await settle();
    const expected = { source: 'cryptocheckout', version: 1, transaction_code: CODE, status: 'settled' };
    expect(parentWindow.postMessage).toHaveBeenCalledExactlyOnceWith(
      { ...expected, type: 'settled' },
      'https://shop.example',
    );
    expect(text('cc-status-detail')).toBe('This window closes in a moment.');
    await vi.advanceTimersByTimeAsync(2_000);
    expect(parentWindow.postMessage).toHaveBeenLastCalledWith(
      { ...expected, type: 'closed' },
      'https://shop.example',
    );
    expect(navigate).not.toHaveBeenCalled();
  });

  it('when embedded, turns the cancel link into a closed message', async () => {
    const api = fakeApi({ '/api/transaction': () => tx() });
    const parentWindow = { postMessage: vi.fn() };
    const { doc } = mount({ embed: { embedded: true, parentOrigin: 'https://shop.example' } }, api.fetch, {
      parentWindow,
    });
    await settle();
    const click = new (doc.defaultView as unknown as typeof globalThis).MouseEvent('click', {
      bubbles: true,
      cancelable: true,
    });
    doc.getElementById('cc-cancel')!.dispatchEvent(click);
    expect(click.defaultPrevented).toBe(true);
    expect(parentWindow.postMessage).toHaveBeenCalledWith(
      expect.objectContaining({ type: 'closed', status: 'pending' }),
      'https://shop.example',
    );
  });

  it('without a verified parent origin, posts nothing', async () => {
    const api = fakeApi({ '/api/transaction': () => tx({ status: 'settled' }) });
    const parentWindow = { postMessage: vi.fn() };
    const { navigate } = mount({ embed: { embedded: true, parentOrigin: null } }, api.fetch, {
      parentWindow,
    });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(parentWindow.postMessage).not.toHaveBeenCalled();
    // Only a click may take the top window away from a frame.
    expect(navigate).not.toHaveBeenCalled();
  });

  it('choosing a crypto rail fills in amount, address, QR code and wallet link', async () => {
    const api = fakeApi({ '/api/transaction': () => tx(), '/api/payment_link': () => ok(CRYPTO_LINK) });
    const { doc, text, window } = mount({ mode: 'sandbox' }, api.fetch);
    await settle();
    expect(doc.getElementById('cc-pay')!.hidden).toBe(true);
    (doc.querySelector('a[data-rail="usdc_polygon"]') as HTMLElement).click();
    await settle();
    expect(api.requests.at(-1)!.url.search).toBe(`?transaction_code=${CODE}&payment_method=usdc_polygon`);
    expect(doc.getElementById('cc-pay')!.hidden).toBe(false);
    expect(text('cc-pay-title')).toBe('Send 13.6 USDC');
    expect(text('cc-address')).toBe(CRYPTO_LINK.address);
    expect(text('cc-network')).toBe('Polygon PoS');
    expect(doc.getElementById('cc-wallet')!.getAttribute('href')).toBe(CRYPTO_LINK.uri);
    expect(doc.querySelector('#cc-qr svg path')!.getAttribute('d')).toMatch(/^M\d+ \d+h\d+/);
    expect(doc.getElementById('cc-sandbox')!.hidden).toBe(false);
    expect(
      [...doc.querySelectorAll<HTMLElement>('button[data-copy]')].every((button) => !button.hidden),
    ).toBe(true);
    expect(doc.querySelector('a[data-rail="usdc_polygon"]')!.getAttribute('aria-current')).toBe('true');
    expect(text('cc-methods-title')).toBe('Or pay another way');
    expect(new URL(window.location.href).searchParams.get('method')).toBe('usdc_polygon');
    expect(doc.activeElement?.id).toBe('cc-pay-title');
  });

  it('in live mode, switches the note with the rail: exact amount on Polygon, the reference on Solana', async () => {
    const links: Record<string, unknown> = { usdc_polygon: CRYPTO_LINK, usdc_solana: SOLANA_LINK };
    const api = fakeApi({
      '/api/transaction': () => tx(),
      '/api/payment_link': (url) => ok(links[url.searchParams.get('payment_method')!]),
    });
    const { doc, text } = mount(
      { mode: 'live', paymentOptions: [SOLANA_OPTION, ...OPTIONS], selected: { link: CRYPTO_LINK } },
      api.fetch,
    );
    await settle();
    const exact = doc.getElementById('cc-exact-amount')!;
    const reference = doc.getElementById('cc-reference-note')!;
    expect([exact.hidden, reference.hidden]).toEqual([false, true]);

    (doc.querySelector('a[data-rail="usdc_solana"]') as HTMLElement).click();
    await settle();
    expect(text('cc-network')).toBe('Solana');
    expect(text('cc-address')).toBe(SOLANA_LINK.address);
    expect(doc.getElementById('cc-wallet')!.getAttribute('href')).toBe(SOLANA_LINK.uri);
    expect(doc.querySelector('#cc-qr svg path')!.getAttribute('d')).toMatch(/^M\d+ \d+h\d+/);
    expect([exact.hidden, reference.hidden]).toEqual([true, false]);
    expect(text('cc-reference-note')).toMatch(/^Pay with the QR code or “Open in wallet”/);

    (doc.querySelector('a[data-rail="usdc_polygon"]') as HTMLElement).click();
    await settle();
    expect([exact.hidden, reference.hidden]).toEqual([false, true]);
  });

  it('hides the wallet link and QR code for a URI that could run script', async () => {
    const link = { ...CRYPTO_LINK, uri: 'javascript:alert(1)' };
    const api = fakeApi({ '/api/transaction': () => tx(), '/api/payment_link': () => ok(link) });
    const { doc } = mount({}, api.fetch);
    (doc.querySelector('a[data-rail="usdc_polygon"]') as HTMLElement).click();
    await settle();
    expect(doc.getElementById('cc-wallet')!.hidden).toBe(true);
    expect(doc.getElementById('cc-wallet')!.getAttribute('href')).toBe('#');
    expect(doc.querySelector('#cc-qr svg')).toBeNull();
  });

  it('choosing a fiat rail sends the buyer to its redirect URL', async () => {
    const redirect = `https://pay.example/sandbox/card/${CODE}?method=card`;
    const api = fakeApi({
      '/api/transaction': () => tx(),
      '/api/payment_link': () =>
        ok({
          kind: 'fiat',
          payment_method: 'card',
          redirect_url: redirect,
          expires_at: CRYPTO_LINK.expires_at,
        }),
    });
    const { doc, navigate, text } = mount({}, api.fetch);
    await settle();
    (doc.querySelector('a[data-rail="card"]') as HTMLElement).click();
    await settle();
    expect(text('cc-status-detail')).toBe('Taking you to Card…');
    expect(navigate).toHaveBeenCalledExactlyOnceWith(redirect);
  });

  it('shows the server’s message when a rail cannot be used', async () => {
    const api = fakeApi({
      '/api/transaction': () => tx(),
      '/api/payment_link': () => ({
        status: 422,
        body: {
          status: 'error',
          error: { code: 'unprocessable', message: 'Amount below this rail’s minimum.' },
        },
      }),
    });
    const { doc, text } = mount({}, api.fetch);
    (doc.querySelector('a[data-rail="usdc_polygon"]') as HTMLElement).click();
    await settle();
    // Later status polls must not wipe the message.
    await vi.advanceTimersByTimeAsync(7_000);
    expect(
      api.requests.filter((request) => request.url.pathname === '/api/transaction').length,
    ).toBeGreaterThan(1);
    expect(text('cc-error')).toBe('Amount below this rail’s minimum.');
    expect(doc.getElementById('cc-error')!.hidden).toBe(false);
    expect(doc.getElementById('cc-pay')!.hidden).toBe(true);
  });

  it('simulates a sandbox payment and refreshes the status at once', async () => {
    let status = 'pending';
    const api = fakeApi({
      '/api/transaction': () => tx({ status }),
      '/api/sandbox/pay': (_url, init) => {
        status = 'processing';
        return ok({ ...transaction(), status, body: JSON.parse(String(init?.body)) });
      },
    });
    const { doc, text } = mount({ mode: 'sandbox', selected: { link: CRYPTO_LINK } }, api.fetch);
    await settle();
    (doc.getElementById('cc-unconfirmed') as HTMLInputElement).checked = true;
    (doc.querySelector('button[data-simulate="partial"]') as HTMLElement).click();
    await settle();
    const post = api.requests.find((request) => request.url.pathname === '/api/sandbox/pay')!;
    expect(post.init?.method).toBe('POST');
    expect(JSON.parse(String(post.init?.body))).toEqual({
      transaction_code: CODE,
      payment_method: 'usdc_polygon',
      size: 'partial',
      confirmed: false,
    });
    expect(text('cc-sandbox-result')).toBe('Payment simulated.');
    expect(text('cc-status-title')).toBe('Payment received, waiting for confirmation');
    expect(doc.getElementById('cc-countdown')!.hidden).toBe(true);
  });

  it('tells the buyer about a lost connection only after repeated failures', async () => {
    const api = fakeApi({ '/api/transaction': () => ({ status: 503, body: { status: 'error' } }) });
    const { doc, text } = mount({}, api.fetch);
    await settle();
    expect(doc.getElementById('cc-error')!.hidden).toBe(true);
    await vi.advanceTimersByTimeAsync(6_500);
    expect(text('cc-error')).toBe('Connection problem, retrying…');
  });

  it('asks the server as soon as the countdown runs out and shows the expiry', async () => {
    let status = 'pending';
    const expiresAt = '2025-01-01T12:00:05.000Z';
    const api = fakeApi({ '/api/transaction': () => tx({ status, expires_at: expiresAt }) });
    const { doc, text } = mount({ transaction: transaction({ expires_at: expiresAt }) }, api.fetch, {
      pollIntervalMs: 60_000,
    });
    await settle();
    status = 'expired';
    await vi.advanceTimersByTimeAsync(4_000);
    expect(api.requests).toHaveLength(1);
    expect(text('cc-countdown')).toBe('Time left: 0:01');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(api.requests).toHaveLength(2);
    expect(text('cc-status-title')).toBe('This payment request has expired');
    expect(doc.getElementById('cc-pay')!.hidden).toBe(true);
    expect(doc.querySelector('#cc-status-action a')!.getAttribute('href')).toBe('https://shop.example/cart');
  });

  it('leaves a page without readable state alone', () => {
    const window = new Window({ settings: { disableJavaScriptEvaluation: true } });
    window.document.write('<p>plain</p><script type="application/json" id="cc-state">{broken</script>');
    const fetch = vi.fn();
    const controller = startPayPage({
      document: window.document as unknown as Document,
      window: window as unknown as globalThis.Window,
      fetch,
      navigate: vi.fn(),
    });
    expect(controller).toBeNull();
    expect(fetch).not.toHaveBeenCalled();
  });
});
