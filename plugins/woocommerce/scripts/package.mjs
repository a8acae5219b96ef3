#!/usr/bin/env node
// Produces cryptocheckout-for-woocommerce.zip, installable from Plugins > Add New > Upload: one top
// folder named after the slug holding what stagePlugin() assembles (PHP, the PHP client copy, built
// scripts, translations, readme) and nothing else. The plugin is staged in a temporary folder, so
// the working copy is never written to.
//
//   node scripts/package.mjs                 dist/cryptocheckout-for-woocommerce.zip (`npm run package`)
//   node scripts/package.mjs --out <folder>  <folder>/cryptocheckout-for-woocommerce.zip
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { zipTimeFor } from '@cryptocheckout/plugin-build';
import { zipSync } from 'fflate';
import { PLUGIN_DIR, SLUG, stagePlugin } from './build.mjs';

export { SLUG };
export const ZIP_NAME = `${SLUG}.zip`;
export const ZIP_PATH = join(PLUGIN_DIR, 'dist', ZIP_NAME);

/** How a written file is named in the progress lines: relative to the current folder when inside it. */
function shown(path) {
  const fromHere = relative(process.cwd(), path);
  return fromHere.startsWith('..') || fromHere === '' ? path : fromHere.split('\\').join('/');
}

/**
 * Stages the plugin in a temporary folder and zips it to `outFile` (default dist/ in the plugin
 * folder). Returns the zip's path and the entries it holds.
 * @param {{ outFile?: string, log?: (line: string) => void }} [options]
 */
export async function packagePlugin({ outFile = ZIP_PATH, log = () => {} } = {}) {
  const staging = await mkdtemp(join(tmpdir(), 'cryptocheckout-wc-package-'));
  try {
    const files = await stagePlugin(join(staging, SLUG), { log });
    log('Zipping…');
    const entries = {};
    for (const name of files) {
      entries[`${SLUG}/${name}`] = new Uint8Array(await readFile(join(staging, SLUG, name)));
    }
    // A time that follows the content: the same sources give the same bytes, and an upgrade
    // unpacked with its times is still seen as changed by PHP's OPcache.
    const zip = zipSync(entries, { level: 9, mtime: zipTimeFor(entries) });
    const target = resolve(outFile);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, zip);
    log(`Wrote ${shown(target)}: ${files.length} files, ${zip.length} bytes`);
    return { path: target, entries: Object.keys(entries).sort() };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  packagePlugin({
    ...(values.out === undefined ? {} : { outFile: join(resolve(values.out), ZIP_NAME) }),
    log: (line) => process.stdout.write(`${line}\n`),
  }).catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
