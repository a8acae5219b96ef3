#!/usr/bin/env node
// The whole `npm test` as a newcomer runs it, timed: a fresh clone of the current commit, `npm ci`
// once, then `npm test` RUNS times, each with LOAD CPU-bound processes running beside it (Debian's
// stress-ng when installed, else busy node loops), as on a laptop with a browser and a shop open.
// Prints wall time and failed tests per run, then all runs side by side. Each run's full output is
// kept in a log file named at the end.
//
//   node bench/test-suite.mjs                 3 runs, 2 busy processes
//   RUNS=1 LOAD=0 node bench/test-suite.mjs   one run on an idle machine
//   COMMIT=<rev> RUNS=1 node bench/test-suite.mjs   an earlier commit, for a before/after figure
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const runs = Number(process.env.RUNS ?? 3);
const load = Number(process.env.LOAD ?? 2);
const repo = fileURLToPath(new URL('..', import.meta.url));
const seconds = (ms) => `${Math.round(ms / 1000)} s`;
const say = (line) => process.stdout.write(`[bench] ${line}\n`);

/** Starts `count` CPU-bound processes; returns a function that stops them. */
function startLoad(count) {
  if (count === 0) return () => {};
  const stressNg = spawnSync('stress-ng', ['--version'], { stdio: 'ignore' }).status === 0;
  const children = stressNg
    ? [spawn('stress-ng', ['--cpu', String(count), '--quiet'], { stdio: 'ignore' })]
    : Array.from({ length: count }, () =>
        spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
      );
  say(
    `load: ${count} CPU-bound process${count === 1 ? '' : 'es'} (${stressNg ? 'stress-ng --cpu' : 'node busy loops'})`,
  );
  return () => {
    for (const child of children) child.kill('SIGKILL');
  };
}

/**
 * The processes the run left behind: those started by a test run (their environment carries the
 * mark scripts/process-guard.ts sets) or working in the clone. Reads /proc; none elsewhere.
 */
function processesLeft(clone) {
  if (!existsSync('/proc/self/environ')) return [];
  const left = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const environment = readFileSync(`/proc/${entry}/environ`, 'utf8');
      const cwd = readlinkSync(`/proc/${entry}/cwd`);
      if (/^State:\s+Z/m.test(readFileSync(`/proc/${entry}/status`, 'utf8'))) continue;
      if (environment.includes('CRYPTOCHECKOUT_TEST_RUN=') || cwd.startsWith(clone)) {
        const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
        left.push(`${entry} ${command.slice(0, 160)}`);
      }
    } catch {
      // ended meanwhile, or not ours to read
    }
  }
  return left;
}

/** Runs a command in `cwd`, its output to `log`; prints the lines that say where it is. */
function run(command, args, cwd, log) {
  return new Promise((resolve) => {
    const out = createWriteStream(log, { flags: 'a' });
    const child = spawn(command, args, { cwd, env: { ...process.env, FORCE_COLOR: '0' } });
    let pending = '';
    const onData = (chunk) => {
      out.write(chunk);
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines)
        if (/^\[(npm test|progress)\]|^ {2}(ok|FAILED|skipped|passed|failed)/.test(line)) say(`  ${line}`);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => out.end(() => resolve(code ?? 1)));
  });
}

const commit = execFileSync('git', ['rev-parse', '--short', process.env.COMMIT ?? 'HEAD'], {
  cwd: repo,
  encoding: 'utf8',
}).trim();
const work = mkdtempSync(join(tmpdir(), 'cryptocheckout-test-bench-'));
const clone = join(work, 'clone');
say(`fresh clone of ${commit} in ${clone}`);
execFileSync('git', ['clone', '--quiet', repo, clone]);
execFileSync('git', ['checkout', '--quiet', commit], { cwd: clone });
const installLog = join(work, 'npm-ci.log');
say('npm ci …');
const installStarted = Date.now();
if ((await run('npm', ['ci', '--no-audit', '--no-fund'], clone, installLog)) !== 0) {
  say(`npm ci failed; see ${installLog}`);
  process.exit(1);
}
say(`npm ci took ${seconds(Date.now() - installStarted)}`);

const results = [];
for (let index = 1; index <= runs; index += 1) {
  const log = join(work, `npm-test-${index}.log`);
  say(`run ${index}/${runs}: npm test`);
  const stopLoad = startLoad(load);
  const started = Date.now();
  const code = await run('npm', ['test'], clone, log);
  const wallMs = Date.now() - started;
  stopLoad();
  const reportFile = join(clone, 'test-results', 'vitest-unit.json');
  const report = existsSync(reportFile) ? JSON.parse(readFileSync(reportFile, 'utf8')) : null;
  rmSync(reportFile, { force: true });
  const result = {
    run: index,
    wallMs,
    exitCode: code,
    tests: report?.numTotalTests ?? 0,
    failed: report?.numFailedTests ?? 0,
    failures: (report?.testResults ?? []).flatMap((file) =>
      file.assertionResults.filter((test) => test.status === 'failed').map((test) => test.fullName),
    ),
    log,
    left: processesLeft(clone),
  };
  results.push(result);
  say(
    `run ${index}: ${seconds(wallMs)}, exit ${code}, ${result.tests} tests, ${result.failed} failed, ${result.left.length} processes left`,
  );
  for (const name of result.failures) say(`  failed: ${name}`);
  for (const line of result.left) say(`  left running: ${line}`);
}

say(`npm test on ${commit}, ${load} CPU-bound process${load === 1 ? '' : 'es'} beside it:`);
say('  run   wall time   tests   failed   exit   processes left');
for (const result of results) {
  say(
    `  ${String(result.run).padStart(3)}   ${seconds(result.wallMs).padStart(9)}   ${String(result.tests).padStart(5)}   ${String(result.failed).padStart(6)}   ${String(result.exitCode).padStart(4)}   ${String(result.left.length).padStart(14)}`,
  );
}
say(`logs: ${work}`);
process.exit(results.every((result) => result.exitCode === 0 && result.left.length === 0) ? 0 : 1);
