// Bundles the pay page's browser script and stylesheet into dist/assets and reports their
// gzipped sizes. Importable (buildPayAssets) so tests can check the size budget.
import { mkdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));

/** Gzipped size budget for pay.js and pay.css together. */
export const PAY_ASSETS_GZIP_BUDGET = 40 * 1024;

/**
 * Builds pay.js and pay.css into `outdir` (default dist/assets) and returns each file's raw and
 * gzipped size in bytes.
 * @param {{ outdir?: string }} [options]
 * @returns {Promise<Record<string, { bytes: number; gzipBytes: number }>>}
 */
export async function buildPayAssets(options = {}) {
  const outdir = options.outdir ?? fileURLToPath(new URL('../dist/assets', import.meta.url));
  await mkdir(outdir, { recursive: true });
  const common = {
    bundle: true,
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
    absWorkingDir: packageRoot,
  };
  await esbuild.build({
    ...common,
    entryPoints: { pay: 'src/browser/main.ts' },
    outdir,
    format: 'iife',
    target: ['es2020', 'chrome90', 'firefox90', 'safari15'],
    platform: 'browser',
    // Workspace packages are bundled from their TypeScript sources; no prior build needed.
    conditions: ['source'],
  });
  await esbuild.build({
    ...common,
    entryPoints: { pay: 'src/browser/pay.css' },
    outdir,
    target: ['chrome90', 'firefox90', 'safari15'],
  });
  const sizes = {};
  for (const file of ['pay.js', 'pay.css']) {
    const content = await readFile(`${outdir}/${file}`);
    sizes[file] = { bytes: content.length, gzipBytes: gzipSync(content, { level: 9 }).length };
  }
  return sizes;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const sizes = await buildPayAssets();
  let total = 0;
  for (const [file, size] of Object.entries(sizes)) {
    total += size.gzipBytes;
    console.log(`${file}: ${size.bytes} B, ${size.gzipBytes} B gzipped`);
  }
  console.log(`total: ${total} B gzipped (budget ${PAY_ASSETS_GZIP_BUDGET} B)`);
  if (total > PAY_ASSETS_GZIP_BUDGET) process.exitCode = 1;
}
