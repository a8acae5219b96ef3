#!/usr/bin/env node
// Builds what the plugin needs at run time besides its committed PHP: the PHP client under the
// plugin's namespace (lib/cryptocheckout-client) and the front-end scripts (build/, with
// @wordpress/scripts). Every step is told where to write:
//
//   node scripts/build.mjs                 lib/ and build/ in the plugin folder (`npm run build`), for
//                                          a developer who mounts the working copy into a WordPress
//   node scripts/build.mjs --out <folder>  a complete runnable plugin in <folder> (stagePlugin): the
//                                          files that ship, the client copy and the scripts
//
// stagePlugin() is what `npm run package` zips and what the tests install into WordPress, so
// neither writes into the working copy.
import { spawnSync } from 'node:child_process';
import { copyFile, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { copyPhpClient } from '@cryptocheckout/php-client/copy-into-plugin';

export const PLUGIN_DIR = fileURLToPath(new URL('..', import.meta.url));
export const SLUG = 'cryptocheckout-for-woocommerce';
export const CLIENT_NAMESPACE = 'CryptoCheckout\\WooCommerce\\Vendor\\Client';
export const CLIENT_DIR = join(PLUGIN_DIR, 'lib', 'cryptocheckout-client');

/** Committed top-level files and folders of the plugin that ship; tests, sources and tooling stay out. */
export const SHIPPED = [`${SLUG}.php`, 'uninstall.php', 'readme.txt', 'src', 'languages'];
/** What a shipped file may be: PHP, built scripts, translations, readme. */
export const SHIPPED_EXTENSIONS = /\.(php|js|json|txt|pot|po|mo)$/;
/** The scripts wp-scripts builds (webpack.config.cjs entries). */
export const SCRIPTS = ['blocks', 'admin-settings', 'thankyou'];
/** The environment variable webpack.config.cjs reads for its output folder. */
export const BUILD_DIR_ENV = 'CRYPTOCHECKOUT_WC_BUILD_DIR';

const GUARD = "defined('ABSPATH') || exit;";
const silent = () => {};

/** Copies the PHP client into `dest` (default lib/cryptocheckout-client), under the plugin's namespace. */
export async function copyClient({ dest = CLIENT_DIR, clean = true, log = silent } = {}) {
  const files = await copyPhpClient({ dest, namespace: CLIENT_NAMESPACE, guard: GUARD, clean });
  log(`PHP client: ${files.length} files as ${CLIENT_NAMESPACE}`);
  return files;
}

/**
 * Runs wp-scripts build (webpack) for the scripts in assets/src, writing into `outDir` (default
 * build/ in the plugin folder), and gives the generated *.asset.php files the direct-access guard.
 */
export async function buildScripts({ outDir = join(PLUGIN_DIR, 'build'), log = silent } = {}) {
  const require = createRequire(import.meta.url);
  const wpScripts = join(dirname(require.resolve('@wordpress/scripts/package.json')), 'bin', 'wp-scripts.js');
  log('Building scripts with wp-scripts…');
  const result = spawnSync(process.execPath, [wpScripts, 'build', '--config', 'webpack.config.cjs'], {
    cwd: PLUGIN_DIR,
    // A production build whatever the caller's environment (test runners set NODE_ENV=test).
    env: { ...process.env, NODE_ENV: 'production', [BUILD_DIR_ENV]: resolve(outDir) },
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    throw new Error(`wp-scripts build failed:\n${result.stdout}\n${result.stderr}`);
  }
  await guardAssetFiles(outDir, log);
}

/** The generated build/*.asset.php files run code on load; give them the guard every plugin PHP file has. */
async function guardAssetFiles(outDir, log) {
  for (const name of SCRIPTS) {
    const path = join(outDir, `${name}.asset.php`);
    const source = await readFile(path, 'utf8');
    if (!source.includes(GUARD)) await writeFile(path, source.replace(/^<\?php\s*/, `<?php\n${GUARD}\n`));
    log(`Script build/${name}.js: ${(await stat(join(outDir, `${name}.js`))).size} bytes`);
  }
}

/** Every file under `path` (or `path` itself), sorted. */
async function collect(path) {
  const info = await stat(path);
  if (!info.isDirectory()) return [path];
  const files = [];
  for (const entry of (await readdir(path)).sort()) files.push(...(await collect(join(path, entry))));
  return files;
}

/**
 * Assembles a complete runnable plugin in `dir` (created if missing, expected empty): the shipped
 * files of SHIPPED, the PHP client in lib/cryptocheckout-client and the scripts in build/. Returns
 * every file in it, relative to `dir` with forward slashes, sorted.
 * @param {string} dir
 * @param {{ log?: (line: string) => void }} [options]
 */
export async function stagePlugin(dir, { log = silent } = {}) {
  const target = resolve(dir);
  await mkdir(target, { recursive: true });
  log('Copying the plugin files…');
  let copied = 0;
  for (const top of SHIPPED) {
    for (const file of await collect(join(PLUGIN_DIR, top))) {
      const name = relative(PLUGIN_DIR, file);
      if (!SHIPPED_EXTENSIONS.test(name)) continue;
      await mkdir(dirname(join(target, name)), { recursive: true });
      await copyFile(file, join(target, name));
      copied += 1;
    }
  }
  log(`Plugin files: ${copied}`);
  log('Copying the PHP client…');
  await copyClient({ dest: join(target, 'lib', 'cryptocheckout-client'), log });
  await buildScripts({ outDir: join(target, 'build'), log });
  return (await collect(target)).map((file) => relative(target, file).split('\\').join('/')).sort();
}

/** `npm run build`: lib/ and build/ in the plugin folder, or with --out a whole plugin in that folder. */
async function main() {
  const log = (line) => process.stdout.write(`${line}\n`);
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  if (values.out !== undefined) {
    const files = await stagePlugin(values.out, { log });
    log(`Staged ${files.length} files in ${resolve(values.out)}`);
    return;
  }
  await copyClient({ log });
  await buildScripts({ log });
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
