// Builds what the module folder needs besides its committed sources: the PHP client copied under
// the module's namespace (cryptocheckout/vendor/cryptocheckout-client) and the browser scripts
// bundled from assets/src into cryptocheckout/views/js. Importable, so tests and packaging reuse it.
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { copyPhpClient } from '@cryptocheckout/php-client/copy-into-plugin';
import * as esbuild from 'esbuild';

export const PLUGIN_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const MODULE_DIR = join(PLUGIN_ROOT, 'cryptocheckout');
export const CLIENT_NAMESPACE = 'CryptoCheckout\\PrestaShop\\Vendor\\Client';
export const PRESTASHOP_GUARD = "if (!defined('_PS_VERSION_')) {\n    exit;\n}";

/** The redirect-only index.php PrestaShop puts in every folder of a module. */
export async function indexGuardSource() {
  return readFile(join(MODULE_DIR, 'index.php'), 'utf8');
}

/** Adds the index.php guard to every folder under `dir` that lacks one. */
export async function addIndexGuards(dir, source) {
  const entries = await readdir(dir, { withFileTypes: true });
  if (!entries.some((entry) => entry.isFile() && entry.name === 'index.php')) {
    await writeFile(join(dir, 'index.php'), source);
  }
  for (const entry of entries) {
    if (entry.isDirectory()) await addIndexGuards(join(dir, entry.name), source);
  }
}

/** Copies the PHP client into the module under its own namespace. Returns the files written. */
export async function copyClient(moduleDir = MODULE_DIR) {
  const vendor = join(moduleDir, 'vendor');
  const files = await copyPhpClient({
    dest: join(vendor, 'cryptocheckout-client'),
    namespace: CLIENT_NAMESPACE,
    guard: PRESTASHOP_GUARD,
    clean: true,
  });
  await addIndexGuards(vendor, await indexGuardSource());
  return files;
}

/** Bundles admin.js and front.js into `outdir`; returns each file's raw and gzipped size. */
export async function buildAssets(outdir = join(MODULE_DIR, 'views', 'js')) {
  await esbuild.build({
    entryPoints: { admin: 'assets/src/admin-entry.ts', front: 'assets/src/front-entry.ts' },
    outdir,
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2020', 'chrome90', 'firefox90', 'safari15'],
    platform: 'browser',
    legalComments: 'none',
    logLevel: 'warning',
    absWorkingDir: PLUGIN_ROOT,
    // Workspace packages are bundled from their TypeScript sources; no prior build needed.
    conditions: ['source'],
  });
  const sizes = {};
  for (const name of ['admin.js', 'front.js']) {
    const content = await readFile(join(outdir, name));
    sizes[name] = {
      bytes: (await stat(join(outdir, name))).size,
      gzipBytes: gzipSync(content, { level: 9 }).length,
    };
  }
  return sizes;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const files = await copyClient();
  console.log(`PHP client: ${files.length} files copied as ${CLIENT_NAMESPACE}`);
  const sizes = await buildAssets();
  for (const [name, size] of Object.entries(sizes)) {
    console.log(`views/js/${name}: ${size.bytes} B, ${size.gzipBytes} B gzipped`);
  }
}
