// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFollowUp, startAutoRefresh } from './refresh.js';

let visibility: DocumentVisibilityState = 'visible';

beforeEach(() => {
  vi.useFakeTimers();
  visibility = 'visible';
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => visibility });
});

afterEach(() => {
  vi.useRealTimers();
});

const setVisibility = (state: DocumentVisibilityState) => {
  visibility = state;
  document.dispatchEvent(new Event('visibilitychange'));
};

describe('startAutoRefresh', () => {
  it('refreshes on every interval while visible and wanted, and at once on becoming visible', async () => {
    let wanted = true;
    const refresh = vi.fn(async () => {});
    const stop = startAutoRefresh({
      doc: document,
      win: window,
      intervalMs: 5_000,
      wanted: () => wanted,
      refresh,
    });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(refresh).toHaveBeenCalledTimes(2);
    setVisibility('hidden');
    await vi.advanceTimersByTimeAsync(20_000);
    expect(refresh).toHaveBeenCalledTimes(2);
    setVisibility('visible');
    expect(refresh).toHaveBeenCalledTimes(3);
    wanted = false;
    await vi.advanceTimersByTimeAsync(20_000);
    expect(refresh).toHaveBeenCalledTimes(3);
    wanted = true;
    stop();
    await vi.advanceTimersByTimeAsync(20_000);
    setVisibility('visible');
    expect(refresh).toHaveBeenCalledTimes(3);
  });

  it('never runs two refreshes at once', async () => {
    let finish: () => void = () => {};
    const refresh = vi.fn(
      () =>
        new Promise<void>((resolve) => {
          finish = resolve;
        }),
    );
    const stop = startAutoRefresh({
      doc: document,
      win: window,
      intervalMs: 1_000,
      wanted: () => true,
      refresh,
    });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(refresh).toHaveBeenCalledTimes(1);
    finish();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(refresh).toHaveBeenCalledTimes(2);
    stop();
  });
});

describe('createFollowUp', () => {
  it('polls for the given time after each restart, then stops', async () => {
    const poll = vi.fn(async () => {});
    const followUp = createFollowUp({ win: window, intervalMs: 2_000, durationMs: 30_000, poll });
    followUp.restart();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(poll).toHaveBeenCalledTimes(14);
    followUp.restart();
    await vi.advanceTimersByTimeAsync(10_000);
    followUp.restart();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(poll).toHaveBeenCalledTimes(14 + 5 + 14);
    followUp.restart();
    followUp.stop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(poll).toHaveBeenCalledTimes(33);
  });
});
