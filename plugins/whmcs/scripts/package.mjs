// Builds the installable zip: laid out like the WHMCS root (modules/gateways/…, includes/hooks/…),
// with the built invoice script and the PHP client copied under the module's own namespace.
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { copyPhpClient } from '@cryptocheckout/php-client/copy-into-plugin';
import { zipSync } from 'fflate';
import { buildAssets } from './build-assets.mjs';

const pluginRoot = fileURLToPath(new URL('..', import.meta.url));
const moduleRoot = join(pluginRoot, 'module');

export const VENDOR_NAMESPACE = 'CryptoCheckout\\Whmcs\\Vendor\\Client';
export const VENDOR_DIR = 'modules/gateways/cryptocheckout/lib/Vendor/Client';
export const ASSETS_PATH = 'modules/gateways/cryptocheckout/assets';
const GUARD = "if (!defined('WHMCS')) { die('This file cannot be accessed directly'); }";

/** @param {string} root @param {string} [dir] @returns {Promise<string[]>} */
async function listFiles(root, dir = root) {
  const files = [];
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    if ((await stat(path)).isDirectory()) files.push(...(await listFiles(root, path)));
    else files.push(relative(root, path).split('\\').join('/'));
  }
  return files;
}

/**
 * @param {{ outDir?: string, log?: (line: string) => void }} [options]
 * @returns {Promise<{ zipPath: string, files: string[], bytes: number }>}
 */
export async function buildPackage(options = {}) {
  const log = options.log ?? (() => {});
  const outDir = options.outDir ?? join(pluginRoot, 'dist');
  const { version } = JSON.parse(await readFile(join(pluginRoot, 'package.json'), 'utf8'));
  const staging = await mkdtemp(join(tmpdir(), 'cryptocheckout-whmcs-'));
  try {
    /** @type {Record<string, Uint8Array>} */
    const entries = {};
    let sources = 0;
    for (const file of await listFiles(moduleRoot)) {
      // Built or copied below, from the current sources.
      if (file.startsWith(`${VENDOR_DIR}/`) || file.startsWith(`${ASSETS_PATH}/`)) continue;
      entries[file] = await readFile(join(moduleRoot, file));
      sources++;
    }
    log(`module sources: ${sources} files`);

    const assets = await buildAssets({ outdir: join(staging, 'assets') });
    for (const [file, size] of Object.entries(assets)) {
      entries[`${ASSETS_PATH}/${file}`] = await readFile(join(staging, 'assets', file));
      log(`asset ${file}: ${size.bytes} B (${size.gzipBytes} B gzipped)`);
    }

    const vendor = join(staging, 'vendor');
    const copied = await copyPhpClient({ dest: vendor, namespace: VENDOR_NAMESPACE, guard: GUARD });
    for (const file of copied) entries[`${VENDOR_DIR}/${file}`] = await readFile(join(vendor, file));
    log(`PHP client: ${copied.length} files as ${VENDOR_NAMESPACE}`);

    entries['modules/gateways/cryptocheckout/README.md'] = await readFile(join(pluginRoot, 'README.md'));

    const zip = zipSync(entries, { level: 9, mtime: new Date('2026-01-01T00:00:00Z') });
    await mkdir(outDir, { recursive: true });
    const zipPath = join(outDir, `cryptocheckout-whmcs-${version}.zip`);
    await writeFile(zipPath, zip);
    log(`wrote ${zipPath} (${zip.length} B, ${Object.keys(entries).length} files)`);
    return { zipPath, files: Object.keys(entries).sort(), bytes: zip.length };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildPackage({ log: (line) => console.log(line) });
}
