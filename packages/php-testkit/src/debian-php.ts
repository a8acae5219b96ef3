import { spawn, spawnSync } from 'node:child_process';

/** What a PHP CLI run left: its exit status and output. */
export interface PhpCliAnswer {
  status: number | null;
  stdout: string;
  stderr: string;
}

const ARGUMENTS = ['-d', 'display_errors=stderr'];

/** Runs `script` (a whole file, `<?php` first) in the PHP CLI `php` and waits for it. */
export function runPhpCliSync(php: string, script: string): PhpCliAnswer {
  const { status, stdout, stderr } = spawnSync(php, ARGUMENTS, { input: script, encoding: 'utf8' });
  return { status, stdout, stderr };
}

/** As runPhpCliSync(), without blocking: several scripts can run at the same moment. */
export function runPhpCli(php: string, script: string): Promise<PhpCliAnswer> {
  return new Promise((resolve, reject) => {
    const child = spawn(php, ARGUMENTS, { stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(script);
  });
}

/**
 * The JSON document a PHP CLI run printed.
 * @throws Error with the exit status and output when it failed or printed no JSON
 */
export function phpCliJson(answer: PhpCliAnswer): unknown {
  if (answer.status !== 0) throw new Error(`PHP exited ${answer.status}: ${answer.stderr}${answer.stdout}`);
  try {
    return JSON.parse(answer.stdout);
  } catch {
    throw new Error(`PHP printed no JSON: ${answer.stdout}${answer.stderr}`);
  }
}
