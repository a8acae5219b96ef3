/**
 * The same WordPress site as ./wordpress.ts, served by Debian's PHP (`php -S`, one process per
 * worker through PHP_CLI_SERVER_WORKERS) instead of php-wasm: the installation php-wasm made
 * (SQLite through the same drop-in) copied into a folder of its own, the WooCommerce harness and the
 * staged plugin copied into its plugins. A request costs a few tens of milliseconds instead of most
 * of a second.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { EVENT_DEADLINE_MS } from '@cryptocheckout/php-testkit';
import { unzipSync } from 'fflate';

const require = createRequire(import.meta.url);

/** Debian's PHP CLI when it has what WordPress on SQLite needs, else null. */
export function nativePhp(): { binary: string; version: string } | null {
  const found = spawnSync('php', ['-r', 'echo PHP_VERSION, "|", extension_loaded("pdo_sqlite") ? 1 : 0;'], {
    encoding: 'utf8',
  });
  if (found.status !== 0) return null;
  const [version, sqlite] = found.stdout.split('|');
  return sqlite === '1' && version ? { binary: 'php', version } : null;
}

/** The SQLite drop-in php-wasm's CLI installs, unpacked into the site's plugins, and its db.php. */
export function installSqliteDropIn(wordpressDir: string): void {
  const cli = dirname(require.resolve('@wp-playground/cli/package.json'));
  const files = unzipSync(readFileSync(join(cli, 'sqlite-database-integration.zip')));
  const pluginDir = join(wordpressDir, 'wp-content', 'plugins', 'sqlite-database-integration');
  for (const [name, data] of Object.entries(files)) {
    if (name.endsWith('/')) continue;
    const target = join(pluginDir, name.replace(/^[^/]+\//, ''));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, data);
  }
  cpSync(join(pluginDir, 'db.copy'), join(wordpressDir, 'wp-content', 'db.php'));
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface NativeServer {
  url: string;
  /** Runs PHP after loading WordPress, as php-wasm's `run()` does (in a server of its own; see serveNative). */
  run(code: string): Promise<{ text: string; errors: string; exitCode: number }>;
  stop(): Promise<void>;
}

// The test site's way in for `run()`: the PHP the test posts, run after WordPress has loaded. It
// exists only in the temporary copy a test boots, which listens on 127.0.0.1.
const RUNNER = `<?php
require __DIR__ . '/wp-load.php';
eval(file_get_contents('php://input'));
`;

function signalGroup(pid: number | undefined, signal: NodeJS.Signals | 0): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false; // the group has ended
  }
}

// The process groups of the servers this test process started and has not stopped. Should it end
// without their afterAll (a crash, a worker torn down), they end with it.
const runningGroups = new Set<number>();
process.once('exit', () => {
  for (const pid of runningGroups) signalGroup(pid, 'SIGKILL');
});

/** Resolves once no process of group `pid` is left (signal 0 to the group fails). */
export async function waitForGroupEnd(pid: number | undefined): Promise<void> {
  const deadline = Date.now() + EVENT_DEADLINE_MS;
  while (signalGroup(pid, 0)) {
    if (Date.now() > deadline) {
      signalGroup(pid, 'SIGKILL');
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `php -S` on a free loopback port serving `wordpressDir` with `workers` processes. */
async function startPhpServer(
  php: string,
  wordpressDir: string,
  workers: number,
  prepend: string,
): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    php,
    [
      '-d',
      `auto_prepend_file=${prepend}`,
      '-d',
      'memory_limit=256M',
      // A test rewrites plugin files between requests: look at their time on every request.
      '-d',
      'opcache.revalidate_freq=0',
      '-S',
      `127.0.0.1:${port}`,
      '-t',
      wordpressDir,
    ],
    {
      cwd: wordpressDir,
      env: { ...process.env, PHP_CLI_SERVER_WORKERS: String(workers) },
      stdio: ['ignore', 'ignore', 'pipe'],
      // A group of its own: `php -S` forks its workers, and a TERM to the parent alone leaves them
      // running with nobody to stop them. The whole group is signalled instead.
      detached: true,
    },
  );
  const stopGroup = (signal: NodeJS.Signals) => signalGroup(child.pid, signal);
  if (child.pid !== undefined) runningGroups.add(child.pid);
  let log = '';
  child.stderr?.on('data', (chunk) => {
    log += chunk;
  });
  const deadline = Date.now() + EVENT_DEADLINE_MS;
  for (;;) {
    const answered = await fetch(`${url}/wp-login.php`, { redirect: 'manual' }).then(
      () => true,
      () => false,
    );
    if (answered) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      stopGroup('SIGKILL');
      throw new Error(`php -S on ${url} did not start:\n${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url,
    stop: async () => {
      const exited =
        child.exitCode !== null || child.signalCode !== null
          ? Promise.resolve()
          : new Promise<void>((resolve) => child.once('exit', () => resolve()));
      stopGroup('SIGTERM');
      await exited;
      // The workers are the group's other members: wait until none is left.
      await waitForGroupEnd(child.pid);
      if (child.pid !== undefined) runningGroups.delete(child.pid);
    },
  };
}

/**
 * Serves `wordpressDir` with `workers` PHP processes on a free loopback port. `run()` goes to a
 * second server of its own on the same folder, so a test's PHP never waits for one of the site's
 * workers (as a CLI run would not), and it stays warm between runs.
 */
export async function serveNative(php: string, wordpressDir: string, workers: number): Promise<NativeServer> {
  const prepend = join(wordpressDir, '..', 'site-url.php');
  writeFileSync(join(wordpressDir, 'test-run.php'), RUNNER);
  const placeholder = 'http://site.invalid';
  // The php-wasm CLI defines the site's address the same way, before wp-config.php; the runner
  // uses the site's address too.
  const writePrepend = (url: string) =>
    writeFileSync(
      prepend,
      `<?php\nif (!defined('WP_HOME')) { define('WP_HOME', '${url}'); define('WP_SITEURL', '${url}'); }\n`,
    );
  writePrepend(placeholder);
  const site = await startPhpServer(php, wordpressDir, workers, prepend);
  writePrepend(site.url);
  const runner = await startPhpServer(php, wordpressDir, 2, prepend);
  return {
    url: site.url,
    async run(code) {
      const response = await fetch(`${runner.url}/test-run.php`, { method: 'POST', body: code });
      const text = await response.text();
      return { text, errors: response.ok ? '' : text, exitCode: response.ok ? 0 : 255 };
    },
    async stop() {
      await Promise.all([site.stop(), runner.stop()]);
    },
  };
}
