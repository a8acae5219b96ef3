// Build steps the PrestaShop and WHMCS plugins share (WooCommerce builds with @wordpress/scripts):
// bundling their browser scripts, copying the PHP client under their own namespace, and writing the
// installable zip from a staged copy. Every step is told where to write, so tests build into a
// temporary folder, and reports its progress through a `log` callback.

import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { copyPhpClient } from '@cryptocheckout/php-client/copy-into-plugin';
import * as esbuild from 'esbuild';
import { zipSync } from 'fflate';

/** The earliest time a zip entry carries (see {@link zipTimeFor}); a year later is still in the past. */
export const ZIP_EPOCH = new Date('2025-01-01T00:00:00Z');

/**
 * The modification time every entry of a package carries: ZIP_EPOCH plus up to a year, chosen by
 * the SHA-256 of the package's names and contents. The same sources always give the same bytes,
 * and any change gives every file a new time. That matters on the merchant's server: PHP's OPcache
 * re-reads a file only when its time changed, so a fixed time kept an upgraded module running its
 * old code wherever the zip was unpacked with its times (unzip, FTP clients) until PHP restarted.
 * @param {Record<string, Uint8Array>} entries file name => content
 * @returns {Date} a whole even second (zip times have a two-second resolution)
 */
export function zipTimeFor(entries) {
  const hash = createHash('sha256');
  for (const name of Object.keys(entries).sort()) {
    hash.update(name).update('\0').update(entries[name]).update('\0');
  }
  const yearInTwoSecondSteps = (365 * 24 * 3600) / 2;
  const steps = hash.digest().readUInt32BE(0) % yearInTwoSecondSteps;
  return new Date(ZIP_EPOCH.getTime() + steps * 2000);
}

// The oldest browsers the shops' own front ends still support.
const TARGETS = ['es2020', 'chrome90', 'firefox90', 'safari15'];

const silent = () => {};

/**
 * Bundles each entry point into one self-contained, minified script, `<name>.js` in `outdir`.
 * Workspace packages are bundled from their TypeScript sources, so they need no build first.
 * @param {{ root: string, entryPoints: Record<string, string>, outdir: string, log?: (line: string) => void }} options
 * @returns {Promise<Record<string, { bytes: number, gzipBytes: number }>>} sizes by file name
 */
export async function bundleScripts({ root, entryPoints, outdir, log = silent }) {
  await mkdir(outdir, { recursive: true });
  await esbuild.build({
    absWorkingDir: root,
    entryPoints,
    outdir,
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: TARGETS,
    legalComments: 'none',
    logLevel: 'warning',
    conditions: ['source'],
  });
  /** @type {Record<string, { bytes: number, gzipBytes: number }>} */
  const sizes = {};
  for (const name of Object.keys(entryPoints)) {
    const file = `${name}.js`;
    const content = await readFile(join(outdir, file));
    const size = { bytes: content.length, gzipBytes: gzipSync(content, { level: 9 }).length };
    sizes[file] = size;
    log(`script ${file}: ${size.bytes} B, ${size.gzipBytes} B gzipped`);
  }
  return sizes;
}

/**
 * Copies the PHP client into `dest`, replacing what was there, under the plugin's namespace and
 * with the platform's direct-access guard in its autoloader.
 * @param {{ dest: string, namespace: string, guard: string, log?: (line: string) => void }} options
 * @returns {Promise<string[]>} the written files, relative to `dest`
 */
export async function copyClient({ dest, namespace, guard, log = silent }) {
  const files = await copyPhpClient({ dest, namespace, guard, clean: true });
  log(`PHP client: ${files.length} files as ${namespace}`);
  return files;
}

/**
 * Copies the plugin's committed sources from `from` into the new folder `to`, leaving out what
 * `skip` names (paths relative to `from`, with forward slashes): files that other steps build or
 * copy in.
 * @param {{ from: string, to: string, skip?: (path: string) => boolean, log?: (line: string) => void }} options
 * @returns {Promise<number>} how many files were copied
 */
export async function copySources({ from, to, skip = () => false, log = silent }) {
  await cp(from, to, {
    recursive: true,
    filter: (source) => {
      const path = relative(from, source).split('\\').join('/');
      return path === '' || !skip(path);
    },
  });
  const count = (await listFiles(to)).length;
  log(`sources: ${count} files`);
  return count;
}

/**
 * Every file under `dir`: paths relative to it, with forward slashes, sorted.
 * @param {string} dir
 * @returns {Promise<string[]>}
 */
export async function listFiles(dir) {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split('\\').join('/'))
    .sort();
}

/**
 * Writes an installable zip from a staged copy: `stage` fills a fresh temporary folder (sources,
 * PHP client, bundles) and every file in it but the `exclude`d ones goes into `outFile`, at
 * zipTimeFor() of those files. The working copy is never written to, and the staging folder is removed whatever
 * happens; a failed stage writes no zip.
 * @param {{ outFile: string, stage: (dir: string) => Promise<void>, exclude?: RegExp[], log?: (line: string) => void }} options
 * @returns {Promise<{ file: string, entries: string[], bytes: number }>}
 */
export async function writePackage({ outFile, stage, exclude = [], log = silent }) {
  const dir = await mkdtemp(join(tmpdir(), 'cryptocheckout-package-'));
  try {
    await stage(dir);
    /** @type {Record<string, Uint8Array>} */
    const entries = {};
    for (const file of await listFiles(dir)) {
      if (!exclude.some((pattern) => pattern.test(file))) entries[file] = await readFile(join(dir, file));
    }
    const zip = zipSync(entries, { level: 9, mtime: zipTimeFor(entries) });
    await mkdir(dirname(outFile), { recursive: true });
    await writeFile(outFile, zip);
    const names = Object.keys(entries);
    log(`wrote ${outFile} (${names.length} files, ${zip.length} B)`);
    return { file: outFile, entries: names, bytes: zip.length };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Runs `main` when the script at `moduleUrl` is the one node was started with (not when it is
 * imported): `--out <dir>` is passed on as an absolute path, progress goes to stdout, and a
 * failure is reported as one line on stderr with exit code 1.
 * @param {string} moduleUrl the script's import.meta.url
 * @param {(options: { out: string | undefined, log: (line: string) => void }) => Promise<unknown>} main
 */
export function runScript(moduleUrl, main) {
  if (process.argv[1] === undefined || resolve(process.argv[1]) !== fileURLToPath(moduleUrl)) return;
  const run = async () => {
    const { values } = parseArgs({ options: { out: { type: 'string' } } });
    await main({
      out: values.out === undefined ? undefined : resolve(values.out),
      log: (line) => process.stdout.write(`${line}\n`),
    });
  };
  run().catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
