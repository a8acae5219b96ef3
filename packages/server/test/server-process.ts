import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const cli = join(packageRoot, 'dist', 'cli.js');

/** Newest modification time of the files under a folder that `keep` selects, in ms. */
function newestChange(folder: string, keep: (name: string) => boolean): number {
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestChange(path, keep));
    else if (keep(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Refuses to run tests against a build older than the sources: a separate process runs `dist/`,
 * and a stale one would test yesterday's code.
 */
function assertFreshBuild(): void {
  if (!existsSync(cli)) throw new Error('packages/server is not built: run `npm run build` first.');
  const sources = newestChange(join(packageRoot, 'src'), (name) => !name.endsWith('.test.ts'));
  const build = newestChange(join(packageRoot, 'dist'), () => true);
  if (sources > build) {
    throw new Error('packages/server/dist is older than src/: run `npm run build` first.');
  }
}

export interface ServerProcess {
  /** The API base, e.g. http://127.0.0.1:41234/api. */
  apiBase: string;
  output: () => string;
  /** Sends a signal and resolves once the process is gone. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts the built CLI (`cryptocheckout-server`) as its own process and waits for its banner. */
export async function startServerProcess(args: string[], timeoutMs = 20_000): Promise<ServerProcess> {
  assertFreshBuild();
  const child: ChildProcess = spawn(
    process.execPath,
    [cli, '--host', '127.0.0.1', '--port', '0', '--log-level', 'warn', ...args],
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
