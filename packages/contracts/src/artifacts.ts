import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Abi, Hex } from 'viem';

/** One compiled contract, as scripts/compile.mjs writes it. */
export interface ContractArtifact {
  abi: Abi;
  /** Creation code. */
  bytecode: Hex;
  /** Runtime code, with zeros where the constructor writes immutables. */
  deployedBytecode: Hex;
  /** Where each immutable sits in the runtime code: byte offsets and lengths, by AST id. */
  immutableReferences: Record<string, { start: number; length: number }[]>;
}

export interface CompiledContracts {
  compiler: string;
  DepositFactory: ContractArtifact;
  DepositForwarder: ContractArtifact;
}

/** The build's output: beside src/ and dist/ alike, so the source and the built package read the same file. */
const ARTIFACTS_FILE = fileURLToPath(new URL('../dist/artifacts.json', import.meta.url));
let loaded: CompiledContracts | undefined;

/**
 * The deposit contracts as compiled by the build (`npm run build`, solc from source).
 * @throws Error naming the fix when the build has not run.
 */
export function compiledContracts(): CompiledContracts {
  if (loaded) return loaded;
  let text: string;
  try {
    text = readFileSync(ARTIFACTS_FILE, 'utf8');
  } catch {
    throw new Error(
      `The deposit contracts are not compiled (${ARTIFACTS_FILE} is missing): run npm run build first.`,
    );
  }
  const parsed = JSON.parse(text) as { compiler: string; contracts: Record<string, ContractArtifact> };
  const factory = parsed.contracts.DepositFactory;
  const forwarder = parsed.contracts.DepositForwarder;
  if (!factory || !forwarder) throw new Error(`${ARTIFACTS_FILE} lacks a contract: run npm run build again.`);
  loaded = { compiler: parsed.compiler, DepositFactory: factory, DepositForwarder: forwarder };
  return loaded;
}
