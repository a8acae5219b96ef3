// Compiles Solidity with solc-js (npm `solc`), OpenZeppelin's contracts resolved from node_modules.
// Used by the build (compile.mjs) and by the tests for their own test tokens.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import solc from 'solc';

const require = createRequire(import.meta.url);
const openZeppelinPrefix = '@openzeppelin/contracts/';

/**
 * Shanghai, not solc's newer default: every network live mode watches runs it, and so does the
 * local chain the tests use (ganache 7 knows no Cancun opcodes).
 */
export const compilerSettings = {
  evmVersion: 'shanghai',
  optimizer: { enabled: true, runs: 10_000 },
  outputSelection: {
    '*': {
      '*': [
        'abi',
        'evm.bytecode.object',
        'evm.deployedBytecode.object',
        'evm.deployedBytecode.immutableReferences',
      ],
    },
  },
};

/** The solc-js version, e.g. `0.8.30+commit.73712a01.Emscripten.clang`. */
export const compilerVersion = () => solc.version();

/**
 * Compiles `files` (names in `directory`) and returns every contract they define by name.
 * @throws Error listing solc's errors.
 */
export function compileContracts(directory, files) {
  const openZeppelinRoot = dirname(require.resolve('@openzeppelin/contracts/package.json'));
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(
      files.map((name) => [name, { content: readFileSync(join(directory, name), 'utf8') }]),
    ),
    settings: compilerSettings,
  };
  const findImport = (path) => {
    const file = path.startsWith(openZeppelinPrefix)
      ? join(openZeppelinRoot, path.slice(openZeppelinPrefix.length))
      : join(directory, path);
    try {
      return { contents: readFileSync(file, 'utf8') };
    } catch (error) {
      return { error: `cannot read ${path}: ${error.message}` };
    }
  };
  const result = JSON.parse(solc.compile(JSON.stringify(input), { import: findImport }));
  const problems = (result.errors ?? []).filter((entry) => entry.severity === 'error');
  if (problems.length > 0) {
    throw new Error(`solc reports errors:\n${problems.map((entry) => entry.formattedMessage).join('\n')}`);
  }
  const contracts = {};
  for (const name of files) {
    for (const [contractName, contract] of Object.entries(result.contracts[name] ?? {})) {
      contracts[contractName] = {
        abi: contract.abi,
        bytecode: `0x${contract.evm.bytecode.object}`,
        deployedBytecode: `0x${contract.evm.deployedBytecode.object}`,
        immutableReferences: contract.evm.deployedBytecode.immutableReferences ?? {},
      };
    }
  }
  return contracts;
}
