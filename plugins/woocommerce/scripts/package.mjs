#!/usr/bin/env node
// Produces dist/cryptocheckout-for-woocommerce.zip, installable from Plugins > Add New > Upload.
// Only what runs on a shop goes in: PHP, the PHP client copy, built scripts, translations, readme.
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipSync } from 'fflate';
import { buildScripts, copyClient, PLUGIN_DIR } from './build.mjs';

export const SLUG = 'cryptocheckout-for-woocommerce';
export const ZIP_PATH = join(PLUGIN_DIR, 'dist', `${SLUG}.zip`);

/** Top-level files and folders of the plugin that ship; everything else (tests, sources, tooling) stays out. */
const SHIPPED = [`${SLUG}.php`, 'uninstall.php', 'readme.txt', 'src', 'build', 'languages'];
const SHIPPED_EXTENSIONS = /\.(php|js|json|txt|pot|po|mo)$/;

async function collect(path) {
  const info = await stat(path);
  if (!info.isDirectory()) return [path];
  const files = [];
  for (const entry of (await readdir(path)).sort()) files.push(...(await collect(join(path, entry))));
  return files;
}

/** Builds and zips the plugin; returns the zip's path and the entries it holds. */
export async function packagePlugin({ log = () => {} } = {}) {
  const staging = await mkdtemp(join(tmpdir(), 'cryptocheckout-wc-package-'));
  const entries = {};
  const add = async (file, name) => {
    if (!SHIPPED_EXTENSIONS.test(name)) return;
    entries[`${SLUG}/${name}`] = [
      new Uint8Array(await readFile(file)),
      { mtime: new Date('2026-01-01T00:00:00Z') },
    ];
  };
  try {
    log('Copying the PHP client…');
    const clientDir = join(staging, 'cryptocheckout-client');
    await copyClient({ dest: clientDir });
    log('Building scripts…');
    buildScripts();
    log('Collecting files…');
    for (const top of SHIPPED) {
      for (const file of await collect(join(PLUGIN_DIR, top))) {
        await add(file, relative(PLUGIN_DIR, file).split('\\').join('/'));
      }
    }
    for (const file of await collect(clientDir)) {
      await add(file, `lib/cryptocheckout-client/${relative(clientDir, file).split('\\').join('/')}`);
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  const zip = zipSync(entries, { level: 9 });
  await mkdir(join(PLUGIN_DIR, 'dist'), { recursive: true });
  await writeFile(ZIP_PATH, zip);
  log(`Wrote ${relative(PLUGIN_DIR, ZIP_PATH)}: ${Object.keys(entries).length} files, ${zip.length} bytes`);
  return { path: ZIP_PATH, entries: Object.keys(entries).sort() };
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  packagePlugin({ log: (line) => process.stdout.write(`${line}\n`) }).catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
