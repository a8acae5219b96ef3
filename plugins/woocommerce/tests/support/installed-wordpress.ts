/**
 * WordPress installed once per PHP version and reused: the first suite that needs a site extracts
 * WordPress and runs its installer (about 7 s of php-wasm); every later suite copies that installed
 * folder (files and SQLite database, a fraction of a second) and boots without installing, so each
 * test file still gets a clean database of its own. The copy lives in os.tmpdir(), named after what
 * it is made from (the WordPress build, the Playground CLI, the PHP version); like the staged plugin
 * (./staged-plugin.ts) it is written into a private folder and renamed into place, so a worker sees
 * a complete installation or none, and two workers racing agree on one.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, utimesSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const CACHE_DIR = join(tmpdir(), 'cryptocheckout-wc-installed');
const DATABASE = join('wp-content', 'database', '.ht.sqlite');

/** The versions an installed copy depends on. */
function installationKey(php: string): string {
  const version = (name: string) =>
    (JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')) as { version: string })
      .version;
  return `wp-6.5-builds-${version('@wp-playground/wordpress-builds')}-cli-${version('@wp-playground/cli')}-php-${php}`;
}

const installed = new Map<string, Promise<string>>();

/**
 * The folder of a WordPress installed on PHP `php`; `install(dir)` makes one in `dir` when none
 * exists yet (extract, then boot once with the installer).
 */
export function installedWordPress(php: string, install: (dir: string) => Promise<void>): Promise<string> {
  let found = installed.get(php);
  if (!found) {
    found = (async () => {
      const final = join(CACHE_DIR, installationKey(php));
      if (existsSync(join(final, DATABASE))) {
        utimesSync(final, new Date(), new Date());
        return final;
      }
      mkdirSync(CACHE_DIR, { recursive: true });
      const temporary = await mkdtemp(join(CACHE_DIR, `.installing-${process.pid}-`));
      try {
        await install(join(temporary, 'wordpress'));
        try {
          renameSync(join(temporary, 'wordpress'), final);
        } catch (error) {
          // Another worker renamed its complete installation there first: use that one.
          if (!existsSync(join(final, DATABASE))) throw error;
        }
      } finally {
        rmSync(temporary, { recursive: true, force: true });
      }
      return final;
    })();
    installed.set(php, found);
  }
  return found;
}
