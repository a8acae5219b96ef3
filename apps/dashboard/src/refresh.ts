/** Timers for live data: the list's auto-refresh and the short follow-up after a resend. */

export interface AutoRefreshOptions {
  doc: Document;
  win: Window;
  intervalMs: number;
  /** Whether a refresh is wanted now (checkbox on, first page); checked on every tick. */
  wanted: () => boolean;
  refresh: () => Promise<void>;
}

/**
 * Calls `refresh` every `intervalMs` while the tab is visible and `wanted()` holds, never two at
 * once, and once at once when a hidden tab becomes visible again. Returns a stop function.
 */
export function startAutoRefresh(options: AutoRefreshOptions): () => void {
  const { doc, win } = options;
  let running = false;
  const tick = () => {
    if (running || doc.visibilityState !== 'visible' || !options.wanted()) return;
    running = true;
    options.refresh().finally(() => {
      running = false;
    });
  };
  const timer = win.setInterval(tick, options.intervalMs);
  const onVisibility = () => {
    if (doc.visibilityState === 'visible') tick();
  };
  doc.addEventListener('visibilitychange', onVisibility);
  return () => {
    win.clearInterval(timer);
    doc.removeEventListener('visibilitychange', onVisibility);
  };
}

export interface FollowUpOptions {
  win: Window;
  intervalMs: number;
  /** How long to keep going after the last start. */
  durationMs: number;
  poll: () => Promise<void>;
}

/** Polls every `intervalMs` for `durationMs`; `restart()` extends the window, `stop()` ends it. */
export interface FollowUp {
  restart(): void;
  stop(): void;
}

/** A bounded poll, as after a webhook resend: long enough for the new attempt to show. */
export function createFollowUp(options: FollowUpOptions): FollowUp {
  const { win } = options;
  let timer: number | undefined;
  let until = 0;
  let running = false;
  const stop = () => {
    if (timer !== undefined) win.clearInterval(timer);
    timer = undefined;
  };
  const tick = () => {
    if (Date.now() >= until) {
      stop();
      return;
    }
    if (running) return;
    running = true;
    options.poll().finally(() => {
      running = false;
    });
  };
  return {
    restart() {
      until = Date.now() + options.durationMs;
      if (timer === undefined) timer = win.setInterval(tick, options.intervalMs);
    },
    stop,
  };
}
