import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { processesMarked, RUN_MARK, watchProcesses } from './process-guard.js';

const outerMark = process.env[RUN_MARK];
afterEach(() => {
  // The guard marks through process.env; this run's own mark comes back for the next test.
  if (outerMark === undefined) delete process.env[RUN_MARK];
  else process.env[RUN_MARK] = outerMark;
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!existsSync('/proc/self/environ'))('process guard', () => {
  it('kills and reports a process a test left running, detached or not', async () => {
    const check = watchProcesses(200);
    const left = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
    left.unref();
    const marked = `${RUN_MARK}=${process.env[RUN_MARK]}`;
    expect(processesMarked(marked).map(({ pid }) => pid)).toContain(left.pid);

    await expect(check()).rejects.toThrow(new RegExp(`${left.pid} sleep 300`));
    await expect.poll(() => alive(left.pid as number)).toBe(false);
    process.exitCode = undefined; // the guard failed the run on purpose here
  });

  it('passes once every process it saw start has ended', async () => {
    const check = watchProcesses(5_000);
    const child = spawn('sleep', ['300'], { stdio: 'ignore' });
    const ended = new Promise((resolve) => child.once('exit', resolve));
    // Still ending when the check starts: the grace lets it go.
    setTimeout(() => child.kill('SIGTERM'), 100);
    await expect(check()).resolves.toBeUndefined();
    await ended;
  });

  it('leaves alone processes started before it or without its mark', async () => {
    const before = spawn('sleep', ['300'], { stdio: 'ignore' });
    const check = watchProcesses(200);
    try {
      await expect(check()).resolves.toBeUndefined();
      expect(alive(before.pid as number)).toBe(true);
    } finally {
      before.kill('SIGKILL');
    }
  });
});
