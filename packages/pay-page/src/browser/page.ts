import {
  type CryptoPaymentLink,
  EMBED_MESSAGE_SOURCE,
  EMBED_PROTOCOL_VERSION,
  type EmbedMessageType,
  type PaymentLink,
} from '@cryptocheckout/core';
import { createStatusPoller, postToParent, type StatusPoller } from '@cryptocheckout/core/browser';
import {
  formatCountdown,
  formatText,
  formatUsd,
  isHttpUrl,
  isSafeWalletUri,
  statusTitle,
  usdStillDue,
} from '../format.js';
import { qrGeometry } from '../qr.js';
import { IDS, type PayPageState } from '../state.js';
import { ApiFailure, PayApi, type TransactionView } from './api.js';

/** What the page script needs from its surroundings; injectable so tests can stand in for the browser. */
export interface PayPageEnvironment {
  document: Document;
  window: Window;
  fetch: typeof fetch;
  /** Leaves the page for `url` (the success page, a fiat rail). */
  navigate(url: string): void;
  /** Current time in ms; defaults to Date.now. */
  now?: () => number;
  /** Wait before leaving the page after payment. Default 3000. */
  leaveDelayMs?: number;
  /** Status poll interval. Default 3000. */
  pollIntervalMs?: number;
  /** Window embedding this page; defaults to `window.parent` when the page is framed. */
  parentWindow?: Pick<Window, 'postMessage'> | null;
}

/** Handle of a running page script. */
export interface PayPageController {
  /** Stops polling and timers. */
  stop(): void;
  /** Polls the status now. */
  refresh(): Promise<void>;
}

const SVG_NS = 'http://www.w3.org/2000/svg';
// After this many failed polls in a row the buyer is told; one blip is not worth a message.
const ERRORS_BEFORE_NOTICE = 2;

/**
 * Brings the server-rendered pay page to life: live status with countdown, choosing rails without
 * reloading, copy buttons, sandbox controls and the embed protocol. Returns null when the page
 * carries no readable state, leaving the plain server-rendered page in place.
 */
export function startPayPage(env: PayPageEnvironment): PayPageController | null {
  const doc = env.document;
  const win = env.window;
  const now = env.now ?? Date.now;
  const loaded = readState(doc);
  if (!loaded) return null;
  const state: PayPageState = loaded;
  const t = state.text;
  const api = new PayApi(state.apiBase, state.code, env.fetch);
  const leaveDelayMs = env.leaveDelayMs ?? 3_000;
  // The countdown follows the server's clock, not the buyer's, which may be off by minutes.
  const clockOffset = Date.parse(state.serverNow) - now();
  const el = (id: string): HTMLElement | null => doc.getElementById(id);
  const parentOrigin = state.embed.embedded ? state.embed.parentOrigin : null;
  const parentWindow =
    env.parentWindow !== undefined ? env.parentWindow : win.parent === win ? null : win.parent;

  let view: TransactionView = {
    status: state.status,
    amount_in_usd: state.amountInUsd,
    received_usd: state.receivedUsd,
    late: state.late,
    expires_at: state.expiresAt,
  };
  let cryptoLink: CryptoPaymentLink | null = state.selected?.kind === 'crypto' ? state.selected : null;
  let railRequest = 0;
  let countdownTimer: ReturnType<typeof setInterval> | undefined;
  let leaveTimer: ReturnType<typeof setTimeout> | undefined;
  let refreshedAtExpiry = false;
  let stopped = false;
  // Which kind of message the error box shows: a status poll clears only its own kind.
  let errorSource: 'connection' | 'rail' | null = null;
  const cleanups: Array<() => void> = [];

  const poller: StatusPoller = createStatusPoller<TransactionView>({
    fetchStatus: (signal) => api.transaction(signal),
    isTerminal: (value) => value.status === 'settled' || value.status === 'expired',
    onUpdate: applyTransaction,
    onError: (_error, attempt) => {
      if (attempt >= ERRORS_BEFORE_NOTICE) showError(t.connectionProblem, 'connection');
    },
    intervalMs: env.pollIntervalMs ?? 3_000,
    document: doc,
  });

  function on<K extends keyof HTMLElementEventMap>(
    target: HTMLElement | null,
    type: K,
    listener: (event: HTMLElementEventMap[K]) => void,
  ): void {
    if (!target) return;
    target.addEventListener(type, listener as EventListener);
    cleanups.push(() => target.removeEventListener(type, listener as EventListener));
  }

  function showError(message: string | null, source: 'connection' | 'rail' = 'rail'): void {
    const box = el(IDS.error);
    if (!box) return;
    box.textContent = message ?? '';
    box.hidden = message === null;
    errorSource = message === null ? null : source;
  }

  function post(type: EmbedMessageType, extra: { height?: number } = {}): void {
    if (!parentOrigin || !parentWindow) return;
    postToParent(
      {
        source: EMBED_MESSAGE_SOURCE,
        version: EMBED_PROTOCOL_VERSION,
        type,
        transaction_code: state.code,
        status: view.status,
        ...extra,
      },
      parentOrigin,
      parentWindow,
    );
  }

  // --- status -------------------------------------------------------------------------------

  function applyTransaction(next: TransactionView): void {
    if (errorSource === 'connection') showError(null);
    const previous = view.status;
    view = next;
    renderStatus();
    if (next.status === previous) return;
    if (next.status === 'settled') onSettled();
    else if (next.status === 'expired') onExpired();
    else if (next.status === 'underpaid' && cryptoLink) {
      // The link may now ask for only the remainder; show what is actually still due.
      void loadRail(cryptoLink.payment_method, false);
    }
  }

  function renderStatus(): void {
    const status = view.status;
    doc.body.className = doc.body.className.replace(/\bstatus-\w+/, `status-${status}`);
    const section = el(IDS.status);
    if (section) section.className = `status status--${status}`;
    setText(IDS.statusTitle, statusTitle(status, t));
    const details: string[] = [];
    if (status === 'underpaid') {
      details.push(
        formatText(t.stillDue, {
          amount: formatUsd(usdStillDue(view.amount_in_usd, view.received_usd), state.lang),
        }),
      );
    }
    if (status === 'settled' && view.late) details.push(t.paidLate);
    setText(IDS.statusDetail, details.join(' '));
    renderCountdown();
  }

  function renderCountdown(): void {
    const countdown = el(IDS.countdown);
    if (!countdown) return;
    const running = view.status === 'pending' || view.status === 'underpaid';
    countdown.hidden = !running;
    if (!running) return;
    const remaining = Date.parse(view.expires_at) - (now() + clockOffset);
    countdown.textContent = formatText(t.expiresIn, { time: formatCountdown(remaining) });
    if (remaining <= 0 && !refreshedAtExpiry) {
      // The server decides about expiry; ask it as soon as time is up.
      refreshedAtExpiry = true;
      void poller.refresh();
    }
  }

  function hidePaymentChoices(): void {
    for (const id of [IDS.methods, IDS.pay, IDS.fiat]) {
      const section = el(id);
      if (section) section.hidden = true;
    }
    el(IDS.cancel)?.parentElement?.setAttribute('hidden', '');
  }

  function setAction(label: string, onActivate: { href: string } | { click: () => void }): void {
    const slot = el(IDS.statusAction);
    if (!slot) return;
    let control: HTMLAnchorElement | HTMLButtonElement;
    if ('href' in onActivate) {
      const anchor = doc.createElement('a');
      anchor.href = onActivate.href;
      if (state.embed.embedded) anchor.target = '_top';
      control = anchor;
    } else {
      const button = doc.createElement('button');
      button.type = 'button';
      button.addEventListener('click', onActivate.click);
      control = button;
    }
    control.className = 'button';
    control.textContent = label;
    slot.replaceChildren(control);
  }

  function onSettled(): void {
    poller.stop();
    hidePaymentChoices();
    focusStatus();
    if (parentOrigin) {
      post('settled');
      setText(IDS.statusDetail, [el(IDS.statusDetail)?.textContent, t.closing].filter(Boolean).join(' '));
      setAction(t.close, { click: () => post('closed') });
      leaveTimer = setTimeout(() => post('closed'), leaveDelayMs);
      return;
    }
    if (!state.successUrl) return;
    setAction(formatText(t.continueToMerchant, { merchant: state.merchant }), { href: state.successUrl });
    // Inside a frame without a verified parent, only a click may move the top window.
    if (state.embed.embedded) return;
    const returning = formatText(t.returning, { merchant: state.merchant });
    setText(IDS.statusDetail, [el(IDS.statusDetail)?.textContent, returning].filter(Boolean).join(' '));
    const successUrl = state.successUrl;
    leaveTimer = setTimeout(() => env.navigate(successUrl), leaveDelayMs);
  }

  function onExpired(): void {
    poller.stop();
    hidePaymentChoices();
    focusStatus();
    if (state.cancelUrl)
      setAction(formatText(t.backToMerchant, { merchant: state.merchant }), { href: state.cancelUrl });
  }

  function focusStatus(): void {
    el(IDS.statusTitle)?.focus();
  }

  // --- rails --------------------------------------------------------------------------------

  async function loadRail(slug: string, fromClick: boolean): Promise<void> {
    const request = ++railRequest;
    const methods = el(IDS.methods);
    methods?.setAttribute('aria-busy', 'true');
    try {
      const link = await api.paymentLink(slug);
      if (request !== railRequest || stopped) return;
      showError(null);
      if (link.kind === 'fiat') {
        leaveForFiat(link);
        return;
      }
      cryptoLink = link;
      renderCryptoLink(link);
      setText(IDS.methodsTitle, t.chooseOtherMethod);
      markSelected(slug);
      rememberRail(slug);
      if (fromClick) {
        // Bring as much of the instructions into view as fits, then move focus without jumping.
        el(IDS.pay)?.scrollIntoView?.({ block: 'nearest' });
        el(IDS.payTitle)?.focus({ preventScroll: true });
      }
    } catch (error) {
      if (request !== railRequest || stopped) return;
      showError(error instanceof ApiFailure && error.httpStatus < 500 ? error.message : t.loadFailed);
    } finally {
      if (request === railRequest) methods?.removeAttribute('aria-busy');
    }
  }

  function leaveForFiat(link: Extract<PaymentLink, { kind: 'fiat' }>): void {
    if (!isHttpUrl(link.redirect_url)) {
      showError(t.loadFailed);
      return;
    }
    const method = state.rails.find((rail) => rail.slug === link.payment_method)?.name ?? link.payment_method;
    setText(IDS.statusDetail, formatText(t.redirecting, { method }));
    // Card pages usually refuse to be framed; from the modal they open in a tab of their own.
    if (state.embed.embedded && win.open(link.redirect_url, '_blank', 'noopener')) {
      setText(IDS.statusDetail, '');
      return;
    }
    env.navigate(link.redirect_url);
  }

  function renderCryptoLink(link: CryptoPaymentLink): void {
    const rail = state.rails.find((candidate) => candidate.slug === link.payment_method);
    const networkName = rail?.networkName ?? link.network;
    setText(IDS.payTitle, formatText(t.sendTitle, { amount: link.amount, asset: link.asset }));
    setText(IDS.amount, link.amount);
    setText(IDS.asset, link.asset);
    setText(IDS.network, networkName);
    setText(IDS.address, link.address);
    setText(IDS.warning, formatText(t.sendOnly, { asset: link.asset, network: networkName }));
    // The live notes follow the rail: an exact amount on most networks, the reference on Solana.
    const payNote = rail?.payNote ?? null;
    const exactAmount = el(IDS.exactAmount);
    if (exactAmount) exactAmount.hidden = payNote !== 'exact_amount';
    const referenceNote = el(IDS.referenceNote);
    if (referenceNote) referenceNote.hidden = payNote !== 'reference';
    setText(IDS.copyStatus, '');
    const safeUri = isSafeWalletUri(link.uri) ? link.uri : null;
    const wallet = el(IDS.wallet) as HTMLAnchorElement | null;
    if (wallet) {
      wallet.hidden = safeUri === null;
      wallet.href = safeUri ?? '#';
    }
    const qr = el(IDS.qr);
    if (qr) {
      qr.hidden = safeUri === null;
      qr.replaceChildren(...(safeUri ? [qrElement(safeUri)] : []));
    }
    const fiat = el(IDS.fiat);
    if (fiat) fiat.hidden = true;
    const pay = el(IDS.pay);
    if (pay) pay.hidden = false;
    revealEnhancements();
  }

  function qrElement(uri: string): SVGSVGElement {
    const { size, path } = qrGeometry(uri);
    const svg = doc.createElementNS(SVG_NS, 'svg');
    svg.setAttribute('viewBox', `0 0 ${size} ${size}`);
    svg.setAttribute('shape-rendering', 'crispEdges');
    svg.setAttribute('aria-hidden', 'true');
    svg.setAttribute('focusable', 'false');
    const background = doc.createElementNS(SVG_NS, 'rect');
    background.setAttribute('width', String(size));
    background.setAttribute('height', String(size));
    background.setAttribute('fill', '#fff');
    const modules = doc.createElementNS(SVG_NS, 'path');
    modules.setAttribute('d', path);
    modules.setAttribute('fill', '#000');
    svg.append(background, modules);
    return svg;
  }

  function markSelected(slug: string): void {
    for (const rail of doc.querySelectorAll<HTMLElement>('[data-rail]')) {
      if (rail.dataset.rail === slug) rail.setAttribute('aria-current', 'true');
      else rail.removeAttribute('aria-current');
    }
  }

  function rememberRail(slug: string): void {
    // A reload then shows the same rail, straight from the server.
    try {
      const url = new URL(win.location.href);
      url.searchParams.set('method', slug);
      win.history.replaceState(win.history.state, '', url.toString());
    } catch {
      // Some embedded contexts forbid history changes; the page works the same without.
    }
  }

  // --- copy and sandbox ---------------------------------------------------------------------

  function revealEnhancements(): void {
    for (const button of doc.querySelectorAll<HTMLElement>('button[data-copy]')) button.hidden = false;
    const sandbox = el(IDS.sandbox);
    if (sandbox && state.mode === 'sandbox') sandbox.hidden = false;
  }

  async function copy(targetId: string): Promise<void> {
    const value = el(targetId)?.textContent ?? '';
    let copied = false;
    try {
      await win.navigator.clipboard.writeText(value);
      copied = true;
    } catch {
      copied = copyBySelection(targetId);
    }
    setText(IDS.copyStatus, copied ? t.copied : t.copyFailed);
  }

  function copyBySelection(targetId: string): boolean {
    const target = el(targetId);
    const selection = win.getSelection();
    if (!target || !selection) return false;
    const range = doc.createRange();
    range.selectNodeContents(target);
    selection.removeAllRanges();
    selection.addRange(range);
    try {
      return doc.execCommand('copy');
    } catch {
      return false;
    }
  }

  async function simulate(size: 'full' | 'partial' | 'over', buttons: HTMLButtonElement[]): Promise<void> {
    if (!cryptoLink) return;
    const confirmed = !(el(IDS.unconfirmed) as HTMLInputElement | null)?.checked;
    for (const button of buttons) button.disabled = true;
    try {
      await api.simulatePayment(cryptoLink.payment_method, size, confirmed);
      setText(IDS.sandboxResult, t.simulated);
      await poller.refresh();
    } catch (error) {
      setText(IDS.sandboxResult, error instanceof Error ? error.message : t.loadFailed);
    } finally {
      for (const button of buttons) button.disabled = false;
    }
  }

  function setText(id: string, value: string): void {
    const target = el(id);
    if (target) target.textContent = value;
  }

  // --- wiring -------------------------------------------------------------------------------

  for (const rail of doc.querySelectorAll<HTMLAnchorElement>('a[data-rail]')) {
    on(rail, 'click', (event) => {
      // Let the browser open a new tab or window as asked.
      if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      event.preventDefault();
      void loadRail(rail.dataset.rail ?? '', true);
    });
  }
  for (const button of doc.querySelectorAll<HTMLButtonElement>('button[data-copy]')) {
    on(button, 'click', () => void copy(button.dataset.copy ?? ''));
  }
  const simulateButtons = [...doc.querySelectorAll<HTMLButtonElement>('button[data-simulate]')];
  for (const button of simulateButtons) {
    on(
      button,
      'click',
      () => void simulate(button.dataset.simulate as 'full' | 'partial' | 'over', simulateButtons),
    );
  }
  if (parentOrigin) {
    on(el(IDS.cancel), 'click', (event) => {
      event.preventDefault();
      post('closed');
    });
    watchHeight();
  }
  if (cryptoLink) revealEnhancements();

  function watchHeight(): void {
    const ResizeObserverImpl = (win as Window & { ResizeObserver?: typeof ResizeObserver }).ResizeObserver;
    if (!ResizeObserverImpl) return;
    let lastHeight = -1;
    const observer = new ResizeObserverImpl(() => {
      const height = Math.ceil(doc.body.getBoundingClientRect().height);
      if (height === lastHeight) return;
      lastHeight = height;
      post('resize', { height });
    });
    observer.observe(doc.body);
    cleanups.push(() => observer.disconnect());
  }

  if (view.status === 'settled') {
    onSettled();
  } else if (view.status !== 'expired') {
    renderCountdown();
    countdownTimer = setInterval(renderCountdown, 1_000);
    poller.start();
  }

  return {
    stop(): void {
      stopped = true;
      poller.stop();
      clearInterval(countdownTimer);
      clearTimeout(leaveTimer);
      for (const cleanup of cleanups.splice(0)) cleanup();
    },
    refresh: () => poller.refresh(),
  };
}

/** Reads the state block the server rendered; null when it is missing or unreadable. */
export function readState(doc: Document): PayPageState | null {
  const block = doc.getElementById(IDS.state);
  if (!block?.textContent) return null;
  try {
    const state = JSON.parse(block.textContent) as PayPageState;
    return typeof state.code === 'string' && typeof state.apiBase === 'string' && state.text ? state : null;
  } catch {
    return null;
  }
}
