import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Absolute path of the built browser assets (`pay.js`, `pay.css`), served at `/pay/assets/<file>`.
 * Resolves to the package's `dist/assets` from the sources and from the build alike.
 */
export const PAY_ASSETS_DIR: string = fileURLToPath(new URL('../dist/assets', import.meta.url));

/** Files of PAY_ASSETS_DIR the page loads. */
export const PAY_ASSET_FILES = ['pay.js', 'pay.css'] as const;
export type PayAssetFile = (typeof PAY_ASSET_FILES)[number];

/** URL path under which the server serves PAY_ASSETS_DIR. */
export const PAY_ASSETS_PATH = '/pay/assets';

const versions = new Map<string, string>();

/**
 * URL of an asset with a content hash in its query, so a server may cache assets for long and a
 * new build still reaches every buyer. Without a build the plain URL is returned.
 */
export function assetUrl(file: PayAssetFile, assetsDir: string = PAY_ASSETS_DIR): string {
  const path = join(assetsDir, file);
  let version = versions.get(path);
  if (version === undefined) {
    try {
      version = createHash('sha256').update(readFileSync(path)).digest('hex').slice(0, 12);
      versions.set(path, version);
    } catch {
      // Not built yet: do not remember, so the hash appears once the build exists.
      return `${PAY_ASSETS_PATH}/${file}`;
    }
  }
  return `${PAY_ASSETS_PATH}/${file}?v=${version}`;
}
