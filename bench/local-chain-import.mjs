// Loads the tests' chains (packages/server/test/live/local-chain.ts, the EVM one, and
// packages/server/test/solana/solana-test-chain.ts) into a benchmark: the same chain, proxy and
// tokens as the tests, not a copy of them.
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

/**
 * The bundle sits in a temp folder, where Node finds no node_modules: each npm package (ganache, viem,
 * solc, litesvm, @solana/kit) stays external as the file URL it resolves to from the source.
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

/** Bundles the test file `relativePath` (from the repository root) into `directory` and imports it. */
async function importTestSupport(relativePath, directory) {
  const source = fileURLToPath(new URL(`../${relativePath}`, import.meta.url));
  const outfile = join(directory, basename(source).replace(/\.ts$/, '.mjs'));
  await esbuild.build({
    entryPoints: [source],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    plugins: [packagesFromSource],
    // Files the module reads beside itself (TestToken.sol, solc) are found beside the source, not the bundle.
    define: { 'import.meta.url': JSON.stringify(pathToFileURL(source).href) },
    logLevel: 'silent',
  });
  return import(pathToFileURL(outfile).href);
}

/** Bundles local-chain.ts into `directory` and imports it; resolves to the module (startLocalChain, …). */
export function importLocalChain(directory) {
  return importTestSupport('packages/server/test/live/local-chain.ts', directory);
}

/** Bundles solana-test-chain.ts into `directory` and imports it; resolves to the module (startSolanaTestChain, …). */
export function importSolanaTestChain(directory) {
  return importTestSupport('packages/server/test/solana/solana-test-chain.ts', directory);
}

/** Bundles bitcoin-test-node.ts into `directory` and imports it; resolves to the module (startBitcoinTestNode, …). */
export function importBitcoinTestNode(directory) {
  return importTestSupport('packages/server/test/bitcoin/bitcoin-test-node.ts', directory);
}
