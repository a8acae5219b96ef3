// `npm test`: build and typecheck side by side (the typecheck reads sources only, scripts/typecheck.mjs),
// lint, then every test. Each step says when it starts and how long it took; the end prints one
// line per step and the tests' own summary comes from scripts/test-progress-reporter.ts. Extra
// arguments go to vitest (`npm test -- plugins/whmcs`).
import { spawn } from 'node:child_process';

const vitestArgs = process.argv.slice(2);
const steps = [
  {
    name: 'build and typecheck',
    commands: [
      ['npx', ['turbo', 'run', 'build', '--output-logs=errors-only']],
      ['node', ['scripts/typecheck.mjs']],
    ],
  },
  { name: 'lint', commands: [['npx', ['biome', 'check', '.']]] },
  { name: 'tests', commands: [['npx', ['vitest', 'run', ...vitestArgs]]] },
];

const started = Date.now();
const seconds = (ms) => `${Math.round(ms / 1000)} s`;
const results = [];

function runCommand([command, args]) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit' });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    child.on('error', (error) => {
      console.error(error);
      resolve(1);
    });
  });
}

/** Runs a step's commands side by side; its exit code is the first failure's, else 0. */
async function run(step) {
  const codes = await Promise.all(step.commands.map(runCommand));
  return codes.find((code) => code !== 0) ?? 0;
}

let exitCode = 0;
for (const [index, step] of steps.entries()) {
  console.log(
    `\n[npm test] step ${index + 1}/${steps.length}: ${step.name} (${seconds(Date.now() - started)} elapsed)`,
  );
  const stepStarted = Date.now();
  exitCode = await run(step);
  results.push({ name: step.name, ms: Date.now() - stepStarted, ok: exitCode === 0 });
  if (exitCode !== 0) break;
}

console.log('\n[npm test] summary');
for (const result of results) {
  console.log(`  ${result.ok ? 'ok    ' : 'FAILED'}  ${seconds(result.ms).padStart(6)}  ${result.name}`);
}
for (const step of steps.slice(results.length)) console.log(`  skipped         ${step.name}`);
console.log(`  ${exitCode === 0 ? 'passed' : 'failed'} in ${seconds(Date.now() - started)}`);
process.exit(exitCode);
