import type { ContractArtifact } from '../src/artifacts.js';

export const compilerSettings: Record<string, unknown>;
export function compilerVersion(): string;
/** Compiles `files` (names in `directory`); every contract they define, by name. */
export function compileContracts(directory: string, files: string[]): Record<string, ContractArtifact>;
