// Builds the operator dashboard: dist/index.html plus dist/assets/dashboard.{js,css}, which the
// reference server serves under /dashboard. Importable (buildDashboard) so tests can build into a
// temporary folder; run as a script it prints each file's raw and gzipped size.
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';

const appRoot = fileURLToPath(new URL('..', import.meta.url));

/** URL path under which the server serves the built `assets/` folder. */
export const DASHBOARD_ASSETS_PATH = '/dashboard/assets';

/** The files a build writes, relative to its output folder. */
export const DASHBOARD_FILES = ['index.html', 'assets/dashboard.js', 'assets/dashboard.css'];

/**
 * Builds the dashboard into `outdir` (default the app's dist/) and returns each file's raw and
 * gzipped size in bytes. The page loads its script and stylesheet from /dashboard/assets with a
 * content hash in the query, and has no inline script or style, so the server's CSP can forbid both.
 * @param {{ outdir?: string }} [options]
 * @returns {Promise<Record<string, { bytes: number; gzipBytes: number }>>}
 */
export async function buildDashboard(options = {}) {
  const outdir = options.outdir ?? join(appRoot, 'dist');
  const assetsDir = join(outdir, 'assets');
  await mkdir(assetsDir, { recursive: true });
  const common = {
    bundle: true,
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
    absWorkingDir: appRoot,
    outdir: assetsDir,
  };
  await esbuild.build({
    ...common,
    entryPoints: { dashboard: 'src/main.ts' },
    format: 'iife',
    target: ['es2020', 'chrome90', 'firefox90', 'safari15'],
    platform: 'browser',
    // Workspace packages are bundled from their TypeScript sources; no prior build needed.
    conditions: ['source'],
  });
  await esbuild.build({
    ...common,
    entryPoints: { dashboard: 'src/dashboard.css' },
    target: ['chrome90', 'firefox90', 'safari15'],
  });
  const script = await readFile(join(assetsDir, 'dashboard.js'));
  const stylesheet = await readFile(join(assetsDir, 'dashboard.css'));
  await writeFile(join(outdir, 'index.html'), indexHtml(contentHash(script), contentHash(stylesheet)));
  const sizes = {};
  for (const file of DASHBOARD_FILES) {
    const content = await readFile(join(outdir, file));
    sizes[file] = { bytes: content.length, gzipBytes: gzipSync(content, { level: 9 }).length };
  }
  return sizes;
}

/** First 12 hex digits of the SHA-256 of `content`: the `?v=` of an asset URL. */
export function contentHash(content) {
  return createHash('sha256').update(content).digest('hex').slice(0, 12);
}

function indexHtml(scriptHash, stylesheetHash) {
  // The icon is an empty data: URL so browsers do not ask the server for /favicon.ico.
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title>Crypto Checkout — operator</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${DASHBOARD_ASSETS_PATH}/dashboard.css?v=${stylesheetHash}">
<script defer src="${DASHBOARD_ASSETS_PATH}/dashboard.js?v=${scriptHash}"></script>
</head>
<body>
<div id="app"><main class="main"><noscript><p>The operator dashboard needs JavaScript.</p></noscript></main></div>
</body>
</html>
`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const sizes = await buildDashboard();
  for (const [file, size] of Object.entries(sizes)) {
    console.log(`${file}: ${size.bytes} B, ${size.gzipBytes} B gzipped`);
  }
}
