/**
 * Vitest global setup: the suite must leave the working tree as it found it. Tests build into
 * temporary folders; a file a test writes here (a server's default ./.data, say) would change what
 * a newcomer's next `npm start` does. The check compares `git status` before and after the run,
 * ignored files included; only the reports the run is configured to write may appear.
 */
import { execFileSync } from 'node:child_process';

const REPORTS = 'test-results/';

function treeState(): Set<string> {
  const output = execFileSync(
    'git',
    ['status', '--porcelain=v1', '--ignored=traditional', '--untracked-files=normal'],
    { encoding: 'utf8' },
  );
  return new Set(output.split('\n').filter((line) => line !== '' && !line.slice(3).startsWith(REPORTS)));
}

export default function setup(): () => void {
  const before = treeState();
  return () => {
    const added = [...treeState()].filter((line) => !before.has(line));
    if (added.length > 0) {
      // Vitest reports an error thrown here but still exits 0; the exit code is set as well.
      process.exitCode = 1;
      throw new Error(
        `The working tree changed during the test run. Tests must write into os.tmpdir(); if you edited these files yourself meanwhile, run again:\n${added.join('\n')}`,
      );
    }
  };
}
