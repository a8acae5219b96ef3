// Bundles the invoice page script into the module's assets folder and prints its gzipped size.
// Importable (buildAssets) so the tests and the package script build the same way.
import { mkdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';

const pluginRoot = fileURLToPath(new URL('..', import.meta.url));
export const ASSETS_DIR = fileURLToPath(
  new URL('../module/modules/gateways/cryptocheckout/assets/', import.meta.url),
);

/**
 * @param {{ outdir?: string }} [options]
 * @returns {Promise<Record<string, { bytes: number; gzipBytes: number }>>}
 */
export async function buildAssets(options = {}) {
  const outdir = options.outdir ?? ASSETS_DIR;
  await mkdir(outdir, { recursive: true });
  await esbuild.build({
    absWorkingDir: pluginRoot,
    entryPoints: { invoice: 'assets/src/invoice.ts' },
    outdir,
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: ['es2020', 'chrome90', 'firefox90', 'safari15'],
    legalComments: 'none',
    logLevel: 'warning',
    // Workspace packages are bundled from their TypeScript sources.
    conditions: ['source'],
  });
  const content = await readFile(`${outdir}/invoice.js`);
  return { 'invoice.js': { bytes: content.length, gzipBytes: gzipSync(content, { level: 9 }).length } };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const sizes = await buildAssets();
  for (const [file, size] of Object.entries(sizes)) {
    console.log(`${file}: ${size.bytes} B, ${size.gzipBytes} B gzipped`);
  }
}
