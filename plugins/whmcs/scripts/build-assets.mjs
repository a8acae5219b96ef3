// Bundles the invoice page script into the module's assets folder and prints its gzipped size.
// `node scripts/build-assets.mjs [--out <folder>]` writes into the working copy's module unless told
// another folder. Importable (buildAssets) so the tests and the package script build the same way.
import { fileURLToPath } from 'node:url';
import { bundleScripts, runScript } from '@cryptocheckout/plugin-build';

const pluginRoot = fileURLToPath(new URL('..', import.meta.url));
export const ASSETS_DIR = fileURLToPath(
  new URL('../module/modules/gateways/cryptocheckout/assets/', import.meta.url),
);

/**
 * @param {{ outdir?: string, log?: (line: string) => void }} [options]
 * @returns {Promise<Record<string, { bytes: number; gzipBytes: number }>>}
 */
export async function buildAssets(options = {}) {
  return bundleScripts({
    root: pluginRoot,
    entryPoints: { invoice: 'assets/src/invoice.ts' },
    outdir: options.outdir ?? ASSETS_DIR,
    log: options.log,
  });
}

runScript(import.meta.url, ({ out, log }) => buildAssets({ outdir: out ?? ASSETS_DIR, log }));
