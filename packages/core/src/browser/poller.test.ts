import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createStatusPoller, type StatusPollerOptions } from './poller.js';

type Status = { status: string };

interface PendingRequest {
  signal: AbortSignal;
  resolve(value: Status): void;
  reject(error: unknown): void;
}

/** A fetchStatus whose every request stays pending until the test settles it. */
function controllableFetch() {
  const requests: PendingRequest[] = [];
  const startedAt: number[] = [];
  const fetchStatus = vi.fn(
    (signal: AbortSignal) =>
      new Promise<Status>((resolve, reject) => {
        requests.push({ signal, resolve, reject });
        startedAt.push(Date.now());
      }),
  );
  const last = (): PendingRequest => {
    const request = requests.at(-1);
    if (!request) throw new Error('no request was made');
    return request;
  };
  return { fetchStatus, requests, startedAt, last };
}

class FakeDocument extends EventTarget {
  visibilityState: DocumentVisibilityState = 'visible';

  setVisibility(state: DocumentVisibilityState): void {
    this.visibilityState = state;
    this.dispatchEvent(new Event('visibilitychange'));
  }
}

function setup(overrides: Partial<StatusPollerOptions<Status>> = {}) {
  const server = controllableFetch();
  const doc = new FakeDocument();
  const onUpdate = vi.fn<(value: Status) => void>();
  const onError = vi.fn<(error: unknown, attempt: number) => void>();
  const poller = createStatusPoller<Status>({
    fetchStatus: server.fetchStatus,
    isTerminal: (value) => value.status === 'settled',
    onUpdate,
    onError,
    document: doc,
    ...overrides,
  });
  return { server, doc, onUpdate, onError, poller };
}

/** Lets pending promise callbacks run without moving the clock. */
const flush = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('createStatusPoller', () => {
  it('polls at once on start, then intervalMs after each response', async () => {
    const { server, onUpdate, poller } = setup();
    poller.start();
    expect(poller.running).toBe(true);
    expect(server.fetchStatus).toHaveBeenCalledTimes(1);

    await vi.advanceTimersByTimeAsync(500);
    server.last().resolve({ status: 'pending' });
    await flush();
    expect(onUpdate).toHaveBeenLastCalledWith({ status: 'pending' });

    await vi.advanceTimersByTimeAsync(2_999);
    expect(server.fetchStatus).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(server.fetchStatus).toHaveBeenCalledTimes(2);
    expect(server.startedAt).toEqual([0, 3_500]);
    poller.stop();
  });

  it('never overlaps requests when the server is slower than the interval', async () => {
    const { server, onUpdate, poller } = setup({ intervalMs: 1_000, requestTimeoutMs: 60_000 });
    poller.start();
    await vi.advanceTimersByTimeAsync(9_000);
    expect(server.fetchStatus).toHaveBeenCalledTimes(1);

    const refreshes = [poller.refresh(), poller.refresh(), poller.refresh()];
    expect(server.fetchStatus).toHaveBeenCalledTimes(1);

    server.last().resolve({ status: 'processing' });
    await Promise.all(refreshes);
    expect(onUpdate).toHaveBeenCalledTimes(1);

    await vi.advanceTimersByTimeAsync(999);
    expect(server.fetchStatus).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(server.fetchStatus).toHaveBeenCalledTimes(2);
    poller.stop();
  });

  it('refresh() polls at once when idle and restarts the wait from that response', async () => {
    const { server, poller } = setup();
    poller.start();
    server.last().resolve({ status: 'pending' });
    await flush();

    await vi.advanceTimersByTimeAsync(1_000);
    const refreshed = poller.refresh();
    expect(server.fetchStatus).toHaveBeenCalledTimes(2);
    server.last().resolve({ status: 'pending' });
    await refreshed;

    // The wait scheduled by the first response (due at 3000) was replaced.
    await vi.advanceTimersByTimeAsync(2_999);
    expect(server.fetchStatus).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(server.fetchStatus).toHaveBeenCalledTimes(3);
    poller.stop();
  });

  it('refresh() does nothing while the poller is not running', async () => {
    const { server, poller } = setup();
    await poller.refresh();
    expect(server.fetchStatus).not.toHaveBeenCalled();
  });

  it('backs off exponentially on consecutive errors up to maxIntervalMs, then resets', async () => {
    const { server, onError, poller } = setup();
    poller.start();
    for (let failure = 0; failure < 6; failure += 1) {
      server.last().reject(new Error('offline'));
      await vi.advanceTimersToNextTimerAsync();
    }
    server.last().resolve({ status: 'pending' });
    await vi.advanceTimersToNextTimerAsync();

    const gaps = server.startedAt.slice(1).map((at, index) => at - (server.startedAt[index] ?? 0));
    expect(gaps).toEqual([6_000, 12_000, 24_000, 30_000, 30_000, 30_000, 3_000]);
    expect(onError.mock.calls.map(([, attempt]) => attempt)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(onError.mock.calls[0]?.[0]).toEqual(new Error('offline'));
    poller.stop();
  });

  it('honours custom interval, factor and ceiling', async () => {
    const { server, poller } = setup({ intervalMs: 1_000, backoffFactor: 3, maxIntervalMs: 10_000 });
    poller.start();
    for (let failure = 0; failure < 3; failure += 1) {
      server.last().reject(new Error('down'));
      await vi.advanceTimersToNextTimerAsync();
    }
    expect(server.startedAt).toEqual([0, 3_000, 12_000, 22_000]);
    poller.stop();
  });

  it('aborts a request that outlives requestTimeoutMs and counts it as an error', async () => {
    // A fetchStatus that ignores its signal must not be able to hang the poller.
    const signals: AbortSignal[] = [];
    const fetchStatus = vi.fn((signal: AbortSignal) => {
      signals.push(signal);
      return new Promise<Status>(() => {});
    });
    const { onError, poller } = setup({ fetchStatus, requestTimeoutMs: 5_000 });
    poller.start();

    await vi.advanceTimersByTimeAsync(4_999);
    expect(onError).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(signals[0]?.aborted).toBe(true);
    expect(onError).toHaveBeenCalledTimes(1);
    expect(onError.mock.calls[0]?.[0]).toMatchObject({ name: 'TimeoutError' });

    await vi.advanceTimersByTimeAsync(6_000);
    expect(fetchStatus).toHaveBeenCalledTimes(2);
    poller.stop();
  });

  it('delivers a terminal value, then stops for good', async () => {
    const { server, onUpdate, poller } = setup();
    const runningDuringUpdate: boolean[] = [];
    onUpdate.mockImplementation(() => runningDuringUpdate.push(poller.running));
    poller.start();
    server.last().resolve({ status: 'processing' });
    await vi.advanceTimersToNextTimerAsync();
    server.last().resolve({ status: 'settled' });
    await flush();

    expect(onUpdate.mock.calls.map(([value]) => value.status)).toEqual(['processing', 'settled']);
    expect(runningDuringUpdate).toEqual([true, false]);
    expect(poller.running).toBe(false);

    poller.start();
    await poller.refresh();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(server.fetchStatus).toHaveBeenCalledTimes(2);
    expect(poller.running).toBe(false);
  });

  it('pauses while the tab is hidden and polls at once when it is visible again', async () => {
    const { server, doc, poller } = setup();
    poller.start();
    server.last().resolve({ status: 'pending' });
    await flush();

    await vi.advanceTimersByTimeAsync(1_000);
    doc.setVisibility('hidden');
    await vi.advanceTimersByTimeAsync(120_000);
    expect(server.fetchStatus).toHaveBeenCalledTimes(1);
    expect(poller.running).toBe(true);

    doc.setVisibility('visible');
    expect(server.fetchStatus).toHaveBeenCalledTimes(2);
    expect(server.startedAt[1]).toBe(121_000);
    poller.stop();
  });

  it('does not schedule the next poll when a response arrives while hidden', async () => {
    const { server, doc, onUpdate, poller } = setup();
    poller.start();
    doc.setVisibility('hidden');
    server.last().resolve({ status: 'pending' });
    await flush();
    expect(onUpdate).toHaveBeenCalledTimes(1);

    await vi.advanceTimersByTimeAsync(60_000);
    expect(server.fetchStatus).toHaveBeenCalledTimes(1);
    doc.setVisibility('visible');
    expect(server.fetchStatus).toHaveBeenCalledTimes(2);
    poller.stop();
  });

  it('waits for the tab to become visible when started hidden', async () => {
    const { server, doc, poller } = setup();
    doc.visibilityState = 'hidden';
    poller.start();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(server.fetchStatus).not.toHaveBeenCalled();
    doc.setVisibility('visible');
    expect(server.fetchStatus).toHaveBeenCalledTimes(1);
    poller.stop();
  });

  it('stop() aborts the request in flight and no callback fires afterwards', async () => {
    const { server, doc, onUpdate, onError, poller } = setup();
    poller.start();
    const request = server.last();
    poller.stop();

    expect(request.signal.aborted).toBe(true);
    expect(poller.running).toBe(false);
    request.resolve({ status: 'settled' });
    await vi.advanceTimersByTimeAsync(120_000);
    doc.setVisibility('hidden');
    doc.setVisibility('visible');
    await flush();

    expect(onUpdate).not.toHaveBeenCalled();
    expect(onError).not.toHaveBeenCalled();
    expect(server.fetchStatus).toHaveBeenCalledTimes(1);
  });

  it('stop() during a backoff wait cancels the retry', async () => {
    const { server, onError, poller } = setup();
    poller.start();
    server.last().reject(new Error('offline'));
    await flush();
    expect(onError).toHaveBeenCalledTimes(1);

    poller.stop();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(server.fetchStatus).toHaveBeenCalledTimes(1);
  });

  it('stop() from inside onUpdate prevents any further request', async () => {
    const { server, onUpdate, poller } = setup();
    onUpdate.mockImplementation(() => poller.stop());
    poller.start();
    server.last().resolve({ status: 'pending' });
    await vi.advanceTimersByTimeAsync(120_000);
    expect(server.fetchStatus).toHaveBeenCalledTimes(1);
  });

  it('can be restarted after stop() without mixing in the aborted result', async () => {
    const { server, onUpdate, poller } = setup();
    poller.start();
    const aborted = server.last();
    poller.stop();
    poller.start();
    expect(server.fetchStatus).toHaveBeenCalledTimes(2);

    aborted.resolve({ status: 'stale' });
    server.last().resolve({ status: 'fresh' });
    await flush();
    expect(onUpdate.mock.calls.map(([value]) => value.status)).toEqual(['fresh']);
    poller.stop();
  });

  it('uses injected timers instead of the global ones', async () => {
    const scheduled: number[] = [];
    const timers = {
      setTimeout: vi.fn((_callback: () => void, delayMs: number) => {
        scheduled.push(delayMs);
        return scheduled.length;
      }),
      clearTimeout: vi.fn(),
    };
    const { server, poller } = setup({ timers, requestTimeoutMs: 7_000 });
    poller.start();
    server.last().resolve({ status: 'pending' });
    await flush();
    expect(scheduled).toEqual([7_000, 3_000]);
    expect(vi.getTimerCount()).toBe(0);
    poller.stop();
  });
});
