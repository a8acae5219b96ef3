// Builds the installable zip: laid out like the WHMCS root (modules/gateways/…, includes/hooks/…),
// with the built invoice script and the PHP client copied under the module's own namespace.
// `node scripts/package.mjs [--out <folder>]` writes into dist/ unless told another folder.
import { copyFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { copyClient, copySources, runScript, writePackage } from '@cryptocheckout/plugin-build';
import { buildAssets } from './build-assets.mjs';

const pluginRoot = fileURLToPath(new URL('..', import.meta.url));
const moduleRoot = join(pluginRoot, 'module');

export const VENDOR_NAMESPACE = 'CryptoCheckout\\Whmcs\\Vendor\\Client';
export const VENDOR_DIR = 'modules/gateways/cryptocheckout/lib/Vendor/Client';
export const ASSETS_PATH = 'modules/gateways/cryptocheckout/assets';
const GUARD = "if (!defined('WHMCS')) { die('This file cannot be accessed directly'); }";

/**
 * @param {{ outDir?: string, log?: (line: string) => void }} [options]
 * @returns {Promise<{ zipPath: string, files: string[], bytes: number }>}
 */
export async function buildPackage(options = {}) {
  const log = options.log ?? (() => {});
  const { version } = JSON.parse(await readFile(join(pluginRoot, 'package.json'), 'utf8'));
  const zip = await writePackage({
    outFile: join(options.outDir ?? join(pluginRoot, 'dist'), `cryptocheckout-whmcs-${version}.zip`),
    log,
    stage: async (dir) => {
      // The client copy and the script come fresh from the build, never from the working copy.
      await copySources({
        from: moduleRoot,
        to: dir,
        skip: (path) =>
          [VENDOR_DIR, ASSETS_PATH].some((built) => path === built || path.startsWith(`${built}/`)),
        log,
      });
      await buildAssets({ outdir: join(dir, ASSETS_PATH), log });
      await copyClient({ dest: join(dir, VENDOR_DIR), namespace: VENDOR_NAMESPACE, guard: GUARD, log });
      await copyFile(join(pluginRoot, 'README.md'), join(dir, 'modules/gateways/cryptocheckout/README.md'));
    },
  });
  return { zipPath: zip.file, files: zip.entries, bytes: zip.bytes };
}

runScript(import.meta.url, ({ out, log }) =>
  buildPackage({ log, ...(out === undefined ? {} : { outDir: out }) }),
);
