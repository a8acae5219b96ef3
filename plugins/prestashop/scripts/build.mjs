// Builds what the module folder needs besides its committed sources: the PHP client copied under
// the module's namespace (vendor/cryptocheckout-client) and the browser scripts bundled from
// assets/src into views/js. `node scripts/build.mjs [--out <module folder>]` builds into the
// working copy's cryptocheckout/ unless told another folder. Importable, so tests and packaging
// reuse it.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleScripts, copyClient as copyPhpClient, runScript } from '@cryptocheckout/plugin-build';

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

/** Copies the PHP client into `moduleDir`/vendor under the module's namespace. Returns the files written. */
export async function copyClient(moduleDir = MODULE_DIR, log = undefined) {
  const vendor = join(moduleDir, 'vendor');
  const files = await copyPhpClient({
    dest: join(vendor, 'cryptocheckout-client'),
    namespace: CLIENT_NAMESPACE,
    guard: PRESTASHOP_GUARD,
    log,
  });
  await addIndexGuards(vendor, await indexGuardSource());
  return files;
}

/** Bundles admin.js and front.js into `outdir`; returns each file's raw and gzipped size. */
export async function buildAssets(outdir = join(MODULE_DIR, 'views', 'js'), log = undefined) {
  return bundleScripts({
    root: PLUGIN_ROOT,
    entryPoints: { admin: 'assets/src/admin-entry.ts', front: 'assets/src/front-entry.ts' },
    outdir,
    log,
  });
}

/** Builds the client copy and the scripts into the module folder `moduleDir`. */
export async function buildModule(moduleDir = MODULE_DIR, log = undefined) {
  await copyClient(moduleDir, log);
  return buildAssets(join(moduleDir, 'views', 'js'), log);
}

runScript(import.meta.url, ({ out, log }) => buildModule(out ?? MODULE_DIR, log));
