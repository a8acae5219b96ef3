import { type ChildProcess, spawn } from 'node:child_process';
import { bundledCli } from './cli-bundle.js';

export interface ServerProcess {
  /** The API base, e.g. http://127.0.0.1:41234/api. */
  apiBase: string;
  output: () => string;
  /** Sends a signal and resolves once the process is gone. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts the CLI (`cryptocheckout-server`, bundled from the current sources) as its own process and
 * waits for its banner.
 */
export async function startServerProcess(args: string[], timeoutMs = 20_000): Promise<ServerProcess> {
  const cli = await bundledCli();
  const child: ChildProcess = spawn(
    process.execPath,
    ['--enable-source-maps', cli, '--host', '127.0.0.1', '--port', '0', '--log-level', 'warn', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CRYPTOCHECKOUT_LOG_FORMAT: 'json' } },
  );
  let output = '';
  child.stdout!.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
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
