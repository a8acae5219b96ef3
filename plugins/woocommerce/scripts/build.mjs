#!/usr/bin/env node
// Builds what the plugin needs at run time: the PHP client under the plugin's namespace (lib/) and
// the front-end scripts (build/, with @wordpress/scripts). `npm run package` zips the result.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { copyPhpClient } from '@cryptocheckout/php-client/copy-into-plugin';

export const PLUGIN_DIR = fileURLToPath(new URL('..', import.meta.url));
export const CLIENT_NAMESPACE = 'CryptoCheckout\\WooCommerce\\Vendor\\Client';
export const CLIENT_DIR = join(PLUGIN_DIR, 'lib', 'cryptocheckout-client');

/** Copies the PHP client into `dest` (default lib/cryptocheckout-client), under the plugin's namespace. */
export async function copyClient({ dest = CLIENT_DIR, clean = true } = {}) {
  return copyPhpClient({
    dest,
    namespace: CLIENT_NAMESPACE,
    guard: "defined('ABSPATH') || exit;",
    clean,
  });
}

/** Runs wp-scripts build (webpack) for the scripts in assets/src. */
export function buildScripts() {
  const require = createRequire(import.meta.url);
  const wpScripts = join(dirname(require.resolve('@wordpress/scripts/package.json')), 'bin', 'wp-scripts.js');
  const result = spawnSync(process.execPath, [wpScripts, 'build', '--config', 'webpack.config.cjs'], {
    cwd: PLUGIN_DIR,
    // A production build whatever the caller's environment (test runners set NODE_ENV=test).
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    throw new Error(`wp-scripts build failed:\n${result.stdout}\n${result.stderr}`);
  }
  guardAssetFiles();
}

const GUARD = "defined('ABSPATH') || exit;";

/** The generated build/*.asset.php files run code on load; give them the direct-access guard every plugin PHP file has. */
function guardAssetFiles() {
  const buildDir = join(PLUGIN_DIR, 'build');
  for (const name of readdirSync(buildDir).filter((file) => file.endsWith('.asset.php'))) {
    const path = join(buildDir, name);
    const source = readFileSync(path, 'utf8');
    if (!source.includes(GUARD)) writeFileSync(path, source.replace(/^<\?php\s*/, `<?php\n${GUARD}\n`));
  }
}

async function main() {
  const files = await copyClient();
  process.stdout.write(`PHP client: ${files.length} files in lib/cryptocheckout-client\n`);
  buildScripts();
  process.stdout.write('Scripts: build/blocks.js, build/admin-settings.js, build/thankyou.js\n');
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
