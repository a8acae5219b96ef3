// Builds cryptocheckout.zip, the file merchants upload in PrestaShop's module manager: one top
// folder cryptocheckout/ holding the module sources, the PHP client copied under the module's
// namespace, the bundled scripts, and an index.php guard in every folder. Nothing else.
// `node scripts/package.mjs [--out <folder>]` writes dist/cryptocheckout.zip unless told a folder.
import { join } from 'node:path';
import { copySources, runScript, writePackage } from '@cryptocheckout/plugin-build';
import { addIndexGuards, buildModule, indexGuardSource, MODULE_DIR, PLUGIN_ROOT } from './build.mjs';

export const DEFAULT_ZIP = join(PLUGIN_ROOT, 'dist', 'cryptocheckout.zip');

/** Files that never ship: sources of built files, editor and OS leftovers, source maps. */
const EXCLUDED = [/\.ts$/, /\.map$/, /(^|\/)\.[^/]+$/, /(^|\/)(tests?|node_modules)(\/|$)/];

/**
 * Stages the module in a temporary folder (the working copy is left alone), builds it there and
 * zips it to `outFile`. Returns the zip's path, its entries, its size and the scripts' sizes.
 * @param {{ outFile?: string, log?: (line: string) => void }} [options]
 */
export async function packageModule(options = {}) {
  const log = options.log ?? (() => {});
  let sizes = {};
  const zip = await writePackage({
    outFile: options.outFile ?? DEFAULT_ZIP,
    exclude: EXCLUDED,
    log,
    stage: async (dir) => {
      const moduleStage = join(dir, 'cryptocheckout');
      // The client copy and the scripts come fresh from the build, never from the working copy.
      await copySources({
        from: MODULE_DIR,
        to: moduleStage,
        skip: (path) =>
          path === 'vendor' || path.startsWith('vendor/') || /^views\/js\/[^/]+\.js$/.test(path),
        log,
      });
      sizes = await buildModule(moduleStage, log);
      await addIndexGuards(moduleStage, await indexGuardSource());
    },
  });
  return { ...zip, sizes };
}

runScript(import.meta.url, ({ out, log }) =>
  packageModule({ log, ...(out === undefined ? {} : { outFile: join(out, 'cryptocheckout.zip') }) }),
);
