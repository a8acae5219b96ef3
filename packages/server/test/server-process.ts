import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundledCli } from './cli-bundle.js';
import { EVENT_DEADLINE_MS } from './helpers.js';

export interface ServerProcess {
  /** The API base, e.g. http://127.0.0.1:41234/api. */
  apiBase: string;
  output: () => string;
  /** Sends a signal and resolves once the process is gone. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts the CLI (`cryptocheckout-server`, bundled from the current sources) as its own process and
 * waits for its banner. It runs in a temporary folder of its own, so what it keeps by default
 * (`./.data`: the operator token, SQLite) never lands in the working tree; stop() removes it.
 */
export async function startServerProcess(
  args: string[],
  timeoutMs = EVENT_DEADLINE_MS,
): Promise<ServerProcess> {
  const cli = await bundledCli();
  const cwd = mkdtempSync(join(tmpdir(), 'cryptocheckout-process-'));
  const child: ChildProcess = spawn(
    process.execPath,
    ['--enable-source-maps', cli, '--host', '127.0.0.1', '--port', '0', '--log-level', 'warn', ...args],
    { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CRYPTOCHECKOUT_LOG_FORMAT: 'json' } },
  );
  let output = '';
  child.stdout!.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      rmSync(cwd, { recursive: true, force: true });
      resolve();
    }),
  );
  const deadline = Date.now() + timeoutMs;
  let apiBase: string | undefined;
  for (;;) {
    apiBase = /API base\s+(\S+)/.exec(output)?.[1];
    if (apiBase) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the server process did not start; output:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return {
    apiBase,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
