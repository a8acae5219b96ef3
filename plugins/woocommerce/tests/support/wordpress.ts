/**
 * Boots real WordPress 6.5 offline with the WooCommerce harness installed as the "woocommerce"
 * plugin and this plugin from its staged copy (./staged-plugin.ts: built in os.tmpdir() once per
 * change of its sources, never in the working tree), on SQLite through the drop-in WordPress
 * Playground uses. WordPress is installed once per PHP version by @wp-playground/cli
 * (./installed-wordpress.ts); each boot copies that installation, so every test file gets a clean
 * database. Boot once per test file.
 *
 * Which PHP serves the site:
 * - `'7.4'`: php-wasm 7.4 through @wp-playground/cli (the oldest PHP the plugin supports; no
 *   distribution here ships it).
 * - `'8'`: Debian's PHP 8 (`php -S`, ./native-wordpress.ts) when it is installed with pdo_sqlite,
 *   as on CI (8.2 on Debian 12); else php-wasm 8.3. A WordPress request costs tens of
 *   milliseconds there against most of a second in php-wasm, which was most of `npm test`'s time
 *   (docs/testing.md). `CRYPTOCHECKOUT_WP_RUNTIME=php-wasm` forces php-wasm 8.3.
 *
 * WordPress 6.5 is the newest release reachable offline: the npm registry is the only source here,
 * and @wp-playground/wordpress-builds (0.9.19, its newest) ships 6.2–6.5 plus a 6.6 RC and a
 * 6.7 alpha nightly, no 6.7+ release. 6.5 is also the plugin's declared minimum.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as playgroundCli from '@wp-playground/cli';
import { unzipSync } from 'fflate';
import { installedWordPress } from './installed-wordpress.js';
import { installSqliteDropIn, nativePhp, serveNative } from './native-wordpress.js';
import { stagedPlugin } from './staged-plugin.js';

export const PLUGIN_DIR = fileURLToPath(new URL('../..', import.meta.url));
export const HARNESS_DIR = fileURLToPath(new URL('../harness/woocommerce', import.meta.url));
export const PLUGIN_FILE = 'cryptocheckout-for-woocommerce/cryptocheckout-for-woocommerce.php';

const require = createRequire(import.meta.url);

// The CLI's type declarations re-export extensionless paths that NodeNext resolution cannot
// follow, so the part used here is typed locally.
interface PlaygroundServer {
  serverUrl: string;
  playground: { run(request: { code: string }): Promise<{ text: string; errors: string; exitCode: number }> };
  [Symbol.asyncDispose](): Promise<void>;
}
const { runCLI } = playgroundCli as unknown as {
  runCLI(args: Record<string, unknown>): Promise<PlaygroundServer>;
};

/** The PHP a site runs on (see the header). */
export type WordPressPhp = '7.4' | '8';

export interface WordPressSite {
  /** The site's origin, e.g. http://127.0.0.1:41234. */
  url: string;
  /** wp-content on the host: logs, mu-plugins. */
  contentDir: string;
  /** Runs PHP after loading WordPress; the code must `echo json_encode(...)` one document. */
  json<T = unknown>(code: string): Promise<T>;
  /** Runs PHP after loading WordPress; returns what it printed. */
  run(code: string): Promise<{ text: string; errors: string; exitCode: number }>;
  /** Reads the plugin's WooCommerce log. */
  log(): string;
  dispose(): Promise<void>;
}

/** WordPress 6.5 as @wp-playground/wordpress-builds ships it, unpacked into `dir`. */
export function extractWordPress(dir: string): void {
  const builds = dirname(require.resolve('@wp-playground/wordpress-builds/package.json'));
  const files = unzipSync(readFileSync(join(builds, 'src', 'wordpress', 'wp-6.5.zip')));
  for (const [name, data] of Object.entries(files)) {
    if (name.endsWith('/')) continue;
    const target = join(dir, name);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, data);
  }
}

/** Extracts WordPress into `dir` and runs its installer there (SQLite, no plugins). */
async function installWordPress(dir: string, php: string): Promise<void> {
  extractWordPress(dir);
  const installer = await runCLI({
    command: 'server',
    php,
    port: 0,
    verbosity: 'quiet',
    workers: 1,
    wordpressInstallMode: 'install-from-existing-files',
    'mount-before-install': [{ hostPath: dir, vfsPath: '/wordpress' }],
    skipBrowser: true,
    blueprint: { steps: [] },
  });
  await installer[Symbol.asyncDispose]();
}

export async function bootWordPress(
  options: { php?: WordPressPhp; workers?: number } = {},
): Promise<WordPressSite> {
  const native =
    options.php !== '7.4' && process.env.CRYPTOCHECKOUT_WP_RUNTIME !== 'php-wasm' ? nativePhp() : null;
  const php = options.php === '7.4' ? '7.4' : '8.3';
  const pluginDir = await stagedPlugin();
  const installation = await installedWordPress(php, (dir) => installWordPress(dir, php));
  const root = mkdtempSync(join(tmpdir(), 'cryptocheckout-wp-'));
  const wordpressDir = join(root, 'wordpress');
  cpSync(installation, wordpressDir, { recursive: true });
  const contentDir = join(wordpressDir, 'wp-content');
  mkdirSync(join(contentDir, 'mu-plugins'), { recursive: true });
  mkdirSync(join(contentDir, 'plugins', 'woocommerce'), { recursive: true });
  mkdirSync(join(contentDir, 'plugins', 'cryptocheckout-for-woocommerce'), { recursive: true });

  // A test site is offline and runs its scheduled events when a test says so. Without these, the
  // first page view spawns WP-Cron, whose update checks wait on api.wordpress.org for up to a
  // minute while holding the site's only PHP worker, and a WP-Cron request running beside a test
  // can write an older cron array back over one the test just saved (as WordPress does). The
  // plugin's own schedule is still registered as in a shop; the tests run its events directly.
  writeFileSync(
    join(contentDir, 'mu-plugins', '0-test-site.php'),
    "<?php\ndefine('WP_HTTP_BLOCK_EXTERNAL', true);\ndefine('DISABLE_WP_CRON', true);\n",
  );

  if (native) {
    // The installation php-wasm made, with the same SQLite drop-in the php-wasm CLI loads; the
    // harness and the plugin are copied in, as a shop has them.
    installSqliteDropIn(wordpressDir);
    cpSync(HARNESS_DIR, join(contentDir, 'plugins', 'woocommerce'), { recursive: true });
    cpSync(pluginDir, join(contentDir, 'plugins', 'cryptocheckout-for-woocommerce'), { recursive: true });
    const site = await serveNative(native.binary, wordpressDir, options.workers ?? 1);
    const run = site.run;
    await run("if (empty(get_option('rewrite_rules'))) { flush_rewrite_rules(false); }");
    return siteOf(site.url, contentDir, run, async () => {
      await site.stop();
      rmSync(root, { recursive: true, force: true });
    });
  }

  const server = await runCLI({
    command: 'server',
    php,
    port: 0,
    verbosity: 'quiet',
    workers: options.workers ?? 1,
    wordpressInstallMode: 'do-not-attempt-installing',
    'mount-before-install': [{ hostPath: wordpressDir, vfsPath: '/wordpress' }],
    mount: [
      { hostPath: HARNESS_DIR, vfsPath: '/wordpress/wp-content/plugins/woocommerce' },
      { hostPath: pluginDir, vfsPath: '/wordpress/wp-content/plugins/cryptocheckout-for-woocommerce' },
    ],
    skipBrowser: true,
    blueprint: { steps: [] },
  });

  // The CLI server answers the first request of each worker with a redirect to the same URL
  // (it sets up its session); take those before the tests and the service's webhooks arrive.
  for (let i = 0; i < (options.workers ?? 1) * 3; i += 1) {
    await fetch(`${server.serverUrl}/wp-login.php`, { redirect: 'manual' }).then((response) =>
      response.arrayBuffer(),
    );
  }

  const run = async (code: string) => {
    const response = await server.playground.run({
      code: `<?php\nrequire '/wordpress/wp-load.php';\n${code}`,
    });
    return { text: response.text, errors: response.errors, exitCode: response.exitCode };
  };

  return siteOf(server.serverUrl, contentDir, run, async () => {
    await server[Symbol.asyncDispose]();
    rmSync(root, { recursive: true, force: true });
  });
}

/** The site's helpers over its address, its content folder and a way to run PHP in it. */
function siteOf(
  url: string,
  contentDir: string,
  run: WordPressSite['run'],
  dispose: () => Promise<void>,
): WordPressSite {
  return {
    url,
    contentDir,
    run,
    async json(code) {
      const result = await run(code);
      try {
        return JSON.parse(result.text) as never;
      } catch {
        throw new Error(`PHP printed no JSON (exit ${result.exitCode}):\n${result.text}\n${result.errors}`);
      }
    },
    log() {
      const file = join(contentDir, 'uploads', 'wc-logs', 'cryptocheckout.log');
      return existsSync(file) ? readFileSync(file, 'utf8') : '';
    },
    dispose,
  };
}
