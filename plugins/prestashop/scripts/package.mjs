// Builds cryptocheckout.zip, the file merchants upload in PrestaShop's module manager: one top
// folder cryptocheckout/ holding the module sources, the PHP client copied under the module's
// namespace, the bundled scripts, and an index.php guard in every folder. Nothing else.
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipSync } from 'fflate';
import {
  addIndexGuards,
  buildAssets,
  copyClient,
  indexGuardSource,
  MODULE_DIR,
  PLUGIN_ROOT,
} from './build.mjs';

export const DEFAULT_ZIP = join(PLUGIN_ROOT, 'dist', 'cryptocheckout.zip');

/** Files that never ship: sources of built files, editor and OS leftovers, source maps. */
const EXCLUDED = [/\.ts$/, /\.map$/, /(^|\/)\.[^/]+$/, /(^|\/)(tests?|node_modules)(\/|$)/];

function listFiles(dir, base = dir) {
  const files = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files.push(...listFiles(path, base));
    else files.push(relative(base, path).split('\\').join('/'));
  }
  return files.sort();
}

/**
 * Stages the module in a temporary folder (the working copy is left alone), builds it there and
 * zips it to `outFile`. Returns the zip's path, its entries and its size.
 * @param {{ outFile?: string, log?: (line: string) => void }} [options]
 */
export async function packageModule(options = {}) {
  const outFile = options.outFile ?? DEFAULT_ZIP;
  const log = options.log ?? (() => {});
  const stage = mkdtempSync(join(tmpdir(), 'cc-prestashop-package-'));
  try {
    const moduleStage = join(stage, 'cryptocheckout');
    log('staging module sources');
    cpSync(MODULE_DIR, moduleStage, {
      recursive: true,
      filter: (source) => {
        const path = relative(MODULE_DIR, source).split('\\').join('/');
        return path !== 'vendor' && !path.startsWith('vendor/') && !/^views\/js\/[^/]+\.js$/.test(path);
      },
    });
    log('copying the PHP client');
    const clientFiles = await copyClient(moduleStage);
    log(`  ${clientFiles.length} client files`);
    log('bundling scripts');
    const sizes = await buildAssets(join(moduleStage, 'views', 'js'));
    for (const [name, size] of Object.entries(sizes))
      log(`  views/js/${name}: ${size.bytes} B, ${size.gzipBytes} B gzipped`);
    await addIndexGuards(moduleStage, await indexGuardSource());

    const entries = {};
    for (const file of listFiles(moduleStage)) {
      if (EXCLUDED.some((pattern) => pattern.test(file))) continue;
      entries[`cryptocheckout/${file}`] = [
        readFileSync(join(moduleStage, file)),
        { level: 9, mtime: new Date('2026-01-01T00:00:00Z') },
      ];
    }
    const zip = zipSync(entries);
    mkdirSync(dirname(outFile), { recursive: true });
    writeFileSync(outFile, zip);
    log(`wrote ${outFile} (${Object.keys(entries).length} files, ${zip.length} B)`);
    return { file: outFile, entries: Object.keys(entries), bytes: zip.length, sizes };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await packageModule({ log: (line) => console.log(line) });
}
