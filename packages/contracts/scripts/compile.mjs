#!/usr/bin/env node
// Compiles the deposit contracts (contracts/*.sol) from source into dist/artifacts.json: ABI,
// creation and runtime code, and where the runtime code holds immutables. Run by `npm run build`;
// says what it compiles and how long it took.
import { mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileContracts, compilerSettings, compilerVersion } from './solidity.mjs';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const sourceDir = join(packageDir, 'contracts');
const output = join(packageDir, 'dist', 'artifacts.json');

const started = Date.now();
const files = readdirSync(sourceDir).filter((name) => name.endsWith('.sol'));
process.stdout.write(`contracts: compiling ${files.join(', ')} with solc ${compilerVersion()} …\n`);
let contracts;
try {
  contracts = compileContracts(sourceDir, files);
} catch (error) {
  process.stderr.write(`contracts: ${error.message}\n`);
  process.exit(1);
}
mkdirSync(dirname(output), { recursive: true });
const temporary = `${output}.${process.pid}.tmp`;
writeFileSync(
  temporary,
  `${JSON.stringify({ compiler: compilerVersion(), settings: compilerSettings, contracts }, null, 1)}\n`,
);
renameSync(temporary, output);
const seconds = ((Date.now() - started) / 1000).toFixed(1);
process.stdout.write(
  `contracts: ${Object.keys(contracts).join(', ')} → dist/artifacts.json in ${seconds} s\n`,
);
