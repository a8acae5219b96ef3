/**
 * Vitest global setup, the working-tree guard's sibling: no process a test started may outlive the
 * run. A PHP server, a database or a browser left behind fills a newcomer's machine run after run.
 *
 * The setup marks this run in the environment every worker and every process they start inherit;
 * the teardown looks for processes still carrying the mark (Linux `/proc/<pid>/environ`). Those that
 * are still ending get a few seconds; whatever is left is killed, so the machine is clean however the
 * run ended, and the run fails with a list of them, so the test that leaked is found and mended.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** The environment variable that marks the processes of one test run. */
export const RUN_MARK = 'CRYPTOCHECKOUT_TEST_RUN';

/** How long processes that are stopping may take before they count as left behind. */
const GRACE_MS = 10_000;

interface MarkedProcess {
  pid: number;
  command: string;
}

function readProcFile(pid: string, file: string): string | null {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return null; // gone meanwhile, or not ours to read
  }
}

/** The processes whose environment carries `mark`, except this one (and zombies, already ended). */
export function processesMarked(mark: string): MarkedProcess[] {
  const found: MarkedProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const environment = readProcFile(entry, 'environ');
    if (environment === null || !environment.split('\0').includes(mark)) continue;
    const status = readProcFile(entry, 'status') ?? '';
    if (/^State:\s+Z/m.test(status)) continue;
    const command = (readProcFile(entry, 'cmdline') ?? '').split('\0').join(' ').trim();
    found.push({ pid: Number(entry), command });
  }
  return found;
}

async function leftAfterGrace(mark: string, graceMs: number): Promise<MarkedProcess[]> {
  const deadline = Date.now() + graceMs;
  for (;;) {
    const left = processesMarked(mark);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Marks the processes started from now on (through `process.env`) and returns the check that
 * kills and reports those still running, after `graceMs` for the ones that are ending.
 */
export function watchProcesses(graceMs = GRACE_MS): () => Promise<void> {
  const mark = `${RUN_MARK}=${randomUUID()}`;
  process.env[RUN_MARK] = mark.slice(RUN_MARK.length + 1);
  return async () => {
    const left = await leftAfterGrace(mark, graceMs);
    if (left.length === 0) return;
    for (const { pid } of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // ended meanwhile
      }
    }
    // Vitest reports an error thrown here but still exits 0; the exit code is set as well.
    process.exitCode = 1;
    const listed = left.map(({ pid, command }) => `  ${pid} ${command.slice(0, 200)}`).join('\n');
    throw new Error(
      `${left.length} process(es) started by the tests were still running after the run (now killed). ` +
        `Each test must stop what it starts, also when it fails (afterAll / onTestFinished):\n${listed}`,
    );
  };
}

export default function setup(): (() => Promise<void>) | undefined {
  // Without /proc (not Linux) there is nothing to look at.
  return existsSync('/proc/self/environ') ? watchProcesses() : undefined;
}
