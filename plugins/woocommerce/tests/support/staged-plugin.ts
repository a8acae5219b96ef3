/**
 * The plugin as the tests install it: a complete runnable copy assembled by scripts/build.mjs
 * stagePlugin() in os.tmpdir(), never in the working copy.
 *
 * Staging costs about 10 s (wp-scripts dominates; copying the PHP is milliseconds), and vitest
 * runs each test file in its own worker, so staging per file would pay it again for every suite.
 * Instead the copy is shared, lock-free: its folder is named after a hash of everything it is made
 * from (the plugin's shipped files and script sources, the build scripts, the PHP client, the core
 * package the scripts bundle, the lockfile). A worker that finds the folder uses it; one that does
 * not stages into a private temporary folder and renames it into place — the rename is atomic, so
 * a reader sees a complete copy or none, and when two workers race the loser drops its copy and
 * uses the winner's. The first suite of a run (or of a change) pays the build, every later one
 * hashes the sources (a few milliseconds) and reuses it; copies unused for a day are removed.
 * Tests must not write into the copy: suites running at the same time share it.
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
} from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { PLUGIN_DIR, SHIPPED, stagePlugin } from '../../scripts/build.mjs';

const REPO_DIR = join(PLUGIN_DIR, '..', '..');
const CACHE_DIR = join(tmpdir(), 'cryptocheckout-wc-staged');
const MAX_AGE_MS = 24 * 3600 * 1000;

/** What a staged copy is made from; a change to any of these stages a new copy. */
const INPUTS = [
  ...SHIPPED.map((name) => join(PLUGIN_DIR, name)),
  join(PLUGIN_DIR, 'assets', 'src'),
  join(PLUGIN_DIR, 'scripts'),
  join(PLUGIN_DIR, 'webpack.config.cjs'),
  join(PLUGIN_DIR, 'package.json'),
  join(REPO_DIR, 'packages', 'php-client', 'src'),
  join(REPO_DIR, 'packages', 'php-client', 'scripts'),
  join(REPO_DIR, 'packages', 'core', 'src'),
  join(REPO_DIR, 'packages', 'core', 'package.json'),
  join(REPO_DIR, 'package-lock.json'),
];

function files(path: string): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((entry) => files(join(path, entry)));
}

/** A hash of the inputs' paths and contents. */
export function stagingKey(): string {
  const hash = createHash('sha256');
  for (const file of INPUTS.flatMap(files)) {
    hash.update(relative(REPO_DIR, file));
    hash.update('\0');
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

function pruneOldCopies(keep: string): void {
  if (!existsSync(CACHE_DIR)) return;
  for (const entry of readdirSync(CACHE_DIR)) {
    const path = join(CACHE_DIR, entry);
    if (entry !== keep && Date.now() - statSync(path).mtimeMs > MAX_AGE_MS) {
      rmSync(path, { recursive: true, force: true });
    }
  }
}

let staged: Promise<string> | undefined;

/** The folder of a complete staged plugin for the current sources; stages it when none exists yet. */
export function stagedPlugin(): Promise<string> {
  staged ??= (async () => {
    const key = stagingKey();
    const final = join(CACHE_DIR, key);
    pruneOldCopies(key);
    if (existsSync(join(final, 'cryptocheckout-for-woocommerce.php'))) {
      utimesSync(final, new Date(), new Date());
      return final;
    }
    const log = (line: string) => process.stdout.write(`[woocommerce staging] ${line}\n`);
    mkdirSync(CACHE_DIR, { recursive: true });
    const temporary = await mkdtemp(join(CACHE_DIR, `.staging-${process.pid}-`));
    try {
      await stagePlugin(join(temporary, 'plugin'), { log });
      try {
        renameSync(join(temporary, 'plugin'), final);
        log(`staged in ${final}`);
      } catch (error) {
        // Another worker renamed its complete copy there first: use that one.
        if (!existsSync(join(final, 'cryptocheckout-for-woocommerce.php'))) throw error;
      }
    } finally {
      rmSync(temporary, { recursive: true, force: true });
    }
    return final;
  })();
  return staged;
}
