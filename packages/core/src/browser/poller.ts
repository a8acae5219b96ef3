/** Timer functions the poller schedules with; injectable so tests can drive time. */
export interface StatusPollerTimers {
  setTimeout(callback: () => void, delayMs: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The part of `document` the poller needs to pause while the tab is hidden. */
export type StatusPollerDocument = Pick<
  Document,
  'visibilityState' | 'addEventListener' | 'removeEventListener'
>;

export interface StatusPollerOptions<T> {
  /** Loads the current status once; should honour `signal` so stop() and timeouts cancel it. */
  fetchStatus: (signal: AbortSignal) => Promise<T>;
  /** True for a value after which polling ends for good (e.g. a settled transaction). */
  isTerminal: (value: T) => boolean;
  onUpdate: (value: T) => void;
  /** Called on each failed request; `attempt` counts consecutive failures from 1. */
  onError?: (error: unknown, attempt: number) => void;
  /** Wait between the end of one successful request and the next one. Default 3000. */
  intervalMs?: number;
  /** Upper bound of the wait while backing off. Default 30000. */
  maxIntervalMs?: number;
  /** Multiplier applied to the wait per consecutive error; reset by a success. Default 2. */
  backoffFactor?: number;
  /** A request still pending after this long is aborted and counted as an error. Default 10000. */
  requestTimeoutMs?: number;
  /** Visibility source; defaults to the global `document`, `null` disables pausing. */
  document?: StatusPollerDocument | null;
  timers?: StatusPollerTimers;
}

export interface StatusPoller {
  /** Starts polling (immediately, or once the tab is visible). No effect after a terminal value. */
  start(): void;
  /** Stops polling and aborts the request in flight; no callback fires afterwards. */
  stop(): void;
  /**
   * Polls now unless a request is in flight, in which case it waits for that one. Resolves once
   * the result has been delivered. Does nothing while the poller is not running.
   */
  refresh(): Promise<void>;
  readonly running: boolean;
}

const DEFAULT_INTERVAL_MS = 3_000;
const DEFAULT_MAX_INTERVAL_MS = 30_000;
const DEFAULT_BACKOFF_FACTOR = 2;
const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

const globalTimers: StatusPollerTimers = {
  // Resolved at call time so timers patched after import (fake timers, polyfills) still apply.
  setTimeout: (callback, delayMs) => globalThis.setTimeout(callback, delayMs),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
};

type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

/**
 * Creates a poller for a status endpoint: one request at a time, exponential backoff on errors,
 * paused while the tab is hidden, finished for good once a terminal value is delivered.
 * Errors thrown by the callbacks are not swallowed: they reject the refresh() promise (or surface
 * as unhandled rejections for timer-driven polls) and polling carries on.
 */
export function createStatusPoller<T>(options: StatusPollerOptions<T>): StatusPoller {
  const intervalMs = positiveOr(options.intervalMs, DEFAULT_INTERVAL_MS);
  const maxIntervalMs = Math.max(intervalMs, positiveOr(options.maxIntervalMs, DEFAULT_MAX_INTERVAL_MS));
  const backoffFactor =
    options.backoffFactor !== undefined && options.backoffFactor >= 1
      ? options.backoffFactor
      : DEFAULT_BACKOFF_FACTOR;
  const requestTimeoutMs = positiveOr(options.requestTimeoutMs, DEFAULT_REQUEST_TIMEOUT_MS);
  const timers = options.timers ?? globalTimers;
  const visibility =
    options.document !== undefined ? options.document : typeof document === 'undefined' ? null : document;

  let running = false;
  let finished = false;
  // Bumped on every stop so results of an aborted request are recognised as stale and dropped.
  let session = 0;
  let consecutiveErrors = 0;
  let nextPoll: { handle: unknown } | null = null;
  let inFlight: { promise: Promise<void>; controller: AbortController } | null = null;

  const isHidden = (): boolean => visibility?.visibilityState === 'hidden';

  function cancelNextPoll(): void {
    if (nextPoll) {
      timers.clearTimeout(nextPoll.handle);
      nextPoll = null;
    }
  }

  function scheduleNextPoll(delayMs: number): void {
    cancelNextPoll();
    // While hidden nothing is scheduled: the visibilitychange handler resumes polling.
    if (!running || isHidden()) return;
    const handle = timers.setTimeout(() => {
      nextPoll = null;
      void poll();
    }, delayMs);
    nextPoll = { handle };
  }

  function poll(): Promise<void> {
    if (inFlight) return inFlight.promise;
    if (!running) return Promise.resolve();
    cancelNextPoll();
    const controller = new AbortController();
    const promise = request(controller, session);
    inFlight = { promise, controller };
    return promise;
  }

  async function request(controller: AbortController, requestSession: number): Promise<void> {
    const timeout = timers.setTimeout(
      () =>
        controller.abort(
          new DOMException(`Status request timed out after ${requestTimeoutMs} ms`, 'TimeoutError'),
        ),
      requestTimeoutMs,
    );
    let outcome: Outcome<T>;
    try {
      outcome = { ok: true, value: await untilAborted(options.fetchStatus, controller.signal) };
    } catch (error) {
      outcome = { ok: false, error };
    } finally {
      timers.clearTimeout(timeout);
    }
    if (requestSession !== session) return;
    inFlight = null;

    if (outcome.ok) {
      consecutiveErrors = 0;
      // Scheduled before the callbacks run so a throwing callback cannot stall polling.
      scheduleNextPoll(intervalMs);
      if (options.isTerminal(outcome.value)) {
        finished = true;
        halt();
      }
      options.onUpdate(outcome.value);
    } else {
      consecutiveErrors += 1;
      scheduleNextPoll(Math.min(maxIntervalMs, intervalMs * backoffFactor ** consecutiveErrors));
      options.onError?.(outcome.error, consecutiveErrors);
    }
  }

  function onVisibilityChange(): void {
    if (!running) return;
    if (isHidden()) cancelNextPoll();
    else void poll();
  }

  function halt(): void {
    running = false;
    session += 1;
    cancelNextPoll();
    inFlight?.controller.abort();
    inFlight = null;
    visibility?.removeEventListener('visibilitychange', onVisibilityChange);
  }

  return {
    start(): void {
      if (running || finished) return;
      running = true;
      consecutiveErrors = 0;
      visibility?.addEventListener('visibilitychange', onVisibilityChange);
      if (!isHidden()) void poll();
    },
    stop(): void {
      if (running) halt();
    },
    refresh(): Promise<void> {
      return poll();
    },
    get running(): boolean {
      return running;
    },
  };
}

/**
 * Runs `load` and settles as soon as `signal` aborts, even if `load` ignores the signal, so a
 * hung request can never block the poller.
 */
function untilAborted<V>(load: (signal: AbortSignal) => Promise<V>, signal: AbortSignal): Promise<V> {
  return new Promise<V>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    Promise.resolve(load(signal)).then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function positiveOr(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;
}
