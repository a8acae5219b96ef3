import { parseHttpUrl } from '../embed-protocol.js';
import { type CheckoutModalHandle, openCheckoutModal } from './embed.js';
import {
  createStatusPoller,
  type StatusPoller,
  type StatusPollerDocument,
  type StatusPollerTimers,
} from './poller.js';

/**
 * What a plugin's status endpoint answers inside its success envelope, and what the page starts
 * with: the PHP kernel's BuyerStatus (packages/php-client/src/Kernel/BuyerStatus.php).
 */
export interface BuyerStatus {
  state: string;
  /** Already translated by the shop. */
  message: string;
  /** True once nothing more happens without the buyer or the shop: polling stops. */
  terminal: boolean;
  /** The hosted payment page, only while paying is possible. */
  checkout_url: string | null;
}

/** The texts the widget shows besides the status message, translated by the shop. */
export interface StatusWidgetLabels {
  title: string;
  pay: string;
  modalTitle: string;
  close: string;
  offline: string;
}

/** The box's data-config attribute, as StatusWidgetMarkup.php writes it. */
export interface StatusWidgetConfig {
  statusUrl: string;
  status: BuyerStatus;
  /** Open the payment page over the shop as soon as the page loads. */
  openModal: boolean;
  labels: StatusWidgetLabels;
}

export interface StatusWidgetOptions {
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
  /**
   * Whether "Pay now" opens the payment page in a modal over the shop instead of following the link.
   * Defaults to data-config's openModal (the shop renders it for its modal display).
   */
  payInModal?: boolean;
  /** Called after each status the endpoint delivers has been shown. */
  onUpdate?: (status: BuyerStatus) => void;
  /** Poller timing (see createStatusPoller); tests use short intervals. */
  intervalMs?: number;
  maxIntervalMs?: number;
  requestTimeoutMs?: number;
  timers?: StatusPollerTimers;
  /** Pauses polling while hidden; defaults to the box's own document, `null` never pauses. */
  document?: StatusPollerDocument | null;
}

export interface StatusWidget {
  readonly root: HTMLElement;
  /** The status shown now. */
  readonly status: BuyerStatus;
  /** True while the status endpoint is being polled. */
  readonly polling: boolean;
  /** The open payment modal, if any. */
  readonly modal: CheckoutModalHandle | null;
  /**
   * Opens the payment page (default: the status' checkout_url) in a modal over the shop and follows
   * the status meanwhile. False when it cannot be opened there (no URL, or the page has no http(s)
   * origin); the caller may then navigate to it instead.
   */
  openModal(checkoutUrl?: string): boolean;
  /** Asks the status endpoint now, polling again even after a final status. */
  refresh(): Promise<void>;
  /** Stops polling, closes the modal and detaches the widget; nothing changes afterwards. */
  stop(): void;
}

/** Finds the boxes StatusWidgetMarkup.php renders. */
export const STATUS_WIDGET_SELECTOR = '[data-cryptocheckout-status]';

const PREFIX = 'cryptocheckout-status__';
const LABEL_FIELDS = {
  title: 'string',
  pay: 'string',
  modalTitle: 'string',
  close: 'string',
  offline: 'string',
} as const;

/**
 * Brings a payment status box to life: follows the shop's status endpoint (backing off on errors,
 * paused while the tab is hidden) until the status is final, keeps the message, the data-state
 * attribute and the "Pay now" link current, says so while the endpoint cannot be reached, and
 * opens the payment page in a modal when the shop asks for it. Throws a TypeError naming the field
 * when data-config is missing or malformed; the box then keeps working as plain HTML.
 */
export function mountStatusWidget(root: HTMLElement, options: StatusWidgetOptions = {}): StatusWidget {
  const config = readStatusWidgetConfig(root);
  const { labels } = config;
  const doc = root.ownerDocument;
  const request = options.fetch ?? ((input, init) => fetch(input, init));
  const payInModal = options.payInModal ?? config.openModal;
  const message = root.querySelector<HTMLElement>(`.${PREFIX}message`);
  let status = config.status;
  let poller: StatusPoller | null = null;
  let modal: CheckoutModalHandle | null = null;
  let offlineNote: HTMLElement | null = null;
  let stopped = false;

  function render(next: BuyerStatus): void {
    status = next;
    root.setAttribute('data-state', next.state);
    if (message !== null) message.textContent = next.message;
    const url = next.checkout_url;
    let link = root.querySelector<HTMLAnchorElement>(`.${PREFIX}pay`);
    if (link === null && url !== null) {
      const actions = doc.createElement('p');
      actions.className = `${PREFIX}actions`;
      link = doc.createElement('a');
      link.className = `button ${PREFIX}pay`;
      link.textContent = labels.pay;
      actions.append(link);
      root.append(actions);
    }
    if (link !== null) {
      const holder = link.parentElement?.classList.contains(`${PREFIX}actions`) ? link.parentElement : link;
      holder.hidden = url === null;
      if (url !== null) link.href = url;
    }
    // Nothing is left to pay in the modal once the status offers no payment page.
    if (url === null) modal?.close();
  }

  function showOffline(offline: boolean): void {
    root.toggleAttribute('data-offline', offline);
    if (offline && offlineNote === null) {
      offlineNote = doc.createElement('p');
      offlineNote.className = `${PREFIX}offline`;
      offlineNote.setAttribute('role', 'status');
      offlineNote.textContent = labels.offline;
      if (message !== null) message.after(offlineNote);
      else root.append(offlineNote);
    }
    if (offlineNote !== null) offlineNote.hidden = !offline;
  }

  function follow(): Promise<void> {
    if (stopped) return Promise.resolve();
    if (poller === null || !poller.running) {
      poller = createStatusPoller<BuyerStatus>({
        fetchStatus: (signal) => fetchBuyerStatus(config.statusUrl, signal, request),
        isTerminal: (value) => value.terminal,
        onUpdate: (value) => {
          showOffline(false);
          render(value);
          options.onUpdate?.(value);
        },
        onError: () => showOffline(true),
        document: options.document !== undefined ? options.document : doc,
        intervalMs: options.intervalMs,
        maxIntervalMs: options.maxIntervalMs,
        requestTimeoutMs: options.requestTimeoutMs,
        timers: options.timers,
      });
      poller.start();
    }
    return poller.refresh();
  }

  // A hint from the modal: poll now if still polling, never start again after a final status.
  const pollNow = (): void => void poller?.refresh();

  function openModal(checkoutUrl: string | null = status.checkout_url): boolean {
    if (stopped || checkoutUrl === null) return false;
    modal?.close();
    let handle: CheckoutModalHandle;
    try {
      handle = openCheckoutModal({
        checkoutUrl,
        title: labels.modalTitle,
        closeLabel: labels.close,
        document: doc,
        onSettled: pollNow,
        onClosed: () => {
          if (modal === handle) modal = null;
          pollNow();
        },
      });
    } catch {
      return false;
    }
    modal = handle;
    void follow();
    return true;
  }

  function onClick(event: MouseEvent): void {
    // A modified click (new tab, new window) keeps the browser's own handling.
    if (!payInModal || event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const target = event.target as Element | null;
    const link = target?.closest?.<HTMLAnchorElement>(`.${PREFIX}pay`);
    if (link && root.contains(link) && openModal(link.href)) event.preventDefault();
  }

  root.addEventListener('click', onClick);
  render(status);
  if (!status.terminal) void follow();
  if (config.openModal) openModal();

  return {
    root,
    get status() {
      return status;
    },
    get polling() {
      return poller?.running ?? false;
    },
    get modal() {
      return modal;
    },
    openModal: (checkoutUrl?: string) => openModal(checkoutUrl),
    refresh: follow,
    stop(): void {
      if (stopped) return;
      stopped = true;
      root.removeEventListener('click', onClick);
      poller?.stop();
      modal?.close();
    },
  };
}

/** Mounts a widget on every status box of `doc` (StatusWidgetMarkup.php renders one per page). */
export function mountStatusWidgets(
  doc: Document = document,
  options: StatusWidgetOptions = {},
): StatusWidget[] {
  return Array.from(doc.querySelectorAll<HTMLElement>(STATUS_WIDGET_SELECTOR), (root) =>
    mountStatusWidget(root, options),
  );
}

/** Reads and checks a box's data-config; the error names the offending field. */
function readStatusWidgetConfig(root: Element): StatusWidgetConfig {
  const raw = root.getAttribute('data-config');
  if (raw === null) throw fieldError('data-config', 'is missing');
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw fieldError('data-config', 'is not JSON');
  }
  const config = shaped(parsed, 'data-config', { statusUrl: 'string', openModal: 'boolean' });
  shaped(config.labels, 'data-config.labels', LABEL_FIELDS);
  readBuyerStatus(config.status, 'data-config.status');
  return config as unknown as StatusWidgetConfig;
}

/** Loads the status from the endpoint; throws on anything but a success envelope around a BuyerStatus. */
async function fetchBuyerStatus(
  url: string,
  signal: AbortSignal,
  request: typeof fetch,
): Promise<BuyerStatus> {
  const response = await request(url, {
    signal,
    credentials: 'same-origin',
    cache: 'no-store',
    headers: { Accept: 'application/json' },
  });
  if (!response.ok) throw new Error(`The status endpoint answered HTTP ${response.status}`);
  const envelope = shaped(await response.json(), 'status answer', { status: 'string' });
  if (envelope.status !== 'success') throw fieldError('status answer.status', 'must be "success"');
  return readBuyerStatus(envelope.data, 'status answer.data');
}

function readBuyerStatus(value: unknown, where: string): BuyerStatus {
  const status = shaped(value, where, { state: 'string', message: 'string', terminal: 'boolean' });
  const url = status.checkout_url;
  if (url !== null && (typeof url !== 'string' || parseHttpUrl(url) === null)) {
    throw fieldError(`${where}.checkout_url`, 'must be an absolute http(s) URL or null');
  }
  return status as unknown as BuyerStatus;
}

/** Checks that `value` is an object whose `fields` have the given types. */
function shaped(
  value: unknown,
  where: string,
  fields: Record<string, 'string' | 'boolean'>,
): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw fieldError(where, 'must be an object');
  }
  const record = value as Record<string, unknown>;
  for (const [key, type] of Object.entries(fields)) {
    if (typeof record[key] !== type) throw fieldError(`${where}.${key}`, `must be a ${type}`);
  }
  return record;
}

function fieldError(field: string, problem: string): TypeError {
  return new TypeError(`Crypto Checkout status widget: ${field} ${problem}`);
}
