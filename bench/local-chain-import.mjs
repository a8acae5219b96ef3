// Loads the tests' local chain (packages/server/test/live/local-chain.ts) into a benchmark: the same
// chain, proxy and token as the tests, not a copy of them.
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const localChainSource = fileURLToPath(
  new URL('../packages/server/test/live/local-chain.ts', import.meta.url),
);

/**
 * The bundle sits in a temp folder, where Node finds no node_modules: each npm package (ganache, viem,
 * solc) stays external as the file URL it resolves to from local-chain.ts.
 */
const packagesFromSource = {
  name: 'packages-from-source',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === 'inner' || args.path.startsWith('node:')) return undefined;
      const found = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: 'inner',
      });
      if (found.errors.length > 0 || found.external) return found;
      return { path: pathToFileURL(found.path).href, external: true };
    });
  },
};

/** Bundles local-chain.ts into `directory` and imports it; resolves to the module (startLocalChain, …). */
export async function importLocalChain(directory) {
  const outfile = join(directory, 'local-chain.mjs');
  await esbuild.build({
    entryPoints: [localChainSource],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    plugins: [packagesFromSource],
    // TestToken.sol and solc are found beside the source file, not beside the bundle.
    define: { 'import.meta.url': JSON.stringify(pathToFileURL(localChainSource).href) },
    logLevel: 'silent',
  });
  return import(pathToFileURL(outfile).href);
}
