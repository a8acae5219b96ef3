import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PAY_ASSETS_DIR } from '@cryptocheckout/pay-page';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bundledCli } from './cli-bundle.js';

// The CLI is what `npm start` runs; it is tested as bundled from the current sources.
const serverPackage = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};
let cli: string;
let child: ChildProcess | undefined;
beforeAll(async () => {
  cli = await bundledCli();
});
afterEach(() => {
  child?.kill('SIGKILL');
  child = undefined;
});

function run(args: string[], env: Record<string, string> = {}) {
  child = spawn(process.execPath, ['--enable-source-maps', cli, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
  return {
    output: () => output,
    exited,
    async waitFor(pattern: RegExp, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(output)) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}; output:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return output;
    },
  };
}

describe('cryptocheckout-server CLI', () => {
  it('prints its options', async () => {
    const process = run(['--help']);
    expect(await process.exited).toBe(0);
    expect(process.output()).toMatch(/--data-dir <path>/);
    expect(process.output()).toMatch(/CRYPTOCHECKOUT_PORT/);
  });

  it('prints the version of its package', async () => {
    const process = run(['--version']);
    expect(await process.exited).toBe(0);
    expect(process.output().trim()).toBe(serverPackage.version);
  });

  it('refuses a bad option with a pointer to --help', async () => {
    const process = run(['--mode', 'production', '--port', '0']);
    expect(await process.exited).toBe(1);
    expect(process.output()).toMatch(/mode must be "sandbox" or "live"/);
    expect(process.output()).toMatch(/--help/);
  });

  it('passes --max-connections to the server, which checks its range', async () => {
    const process = run(['--max-connections', '0', '--port', '0']);
    expect(await process.exited).toBe(1);
    expect(process.output()).toMatch(/maxConnections must be a number from 1/);
  });

  it('starts from environment variables, prints its URLs, serves, and shuts down on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cryptocheckout-cli-'));
    try {
      const process = run(['--port', '0', '--log-level', 'warn'], { CRYPTOCHECKOUT_DATA_DIR: dataDir });
      const output = await process.waitFor(/Press Ctrl\+C/);
      const apiBase = /API base\s+(\S+)/.exec(output)![1]!;
      expect(output).toMatch(/sandbox mode/);
      const health = (await (await fetch(`${apiBase}/health`)).json()) as { data: unknown };
      expect(health.data).toMatchObject({ ok: true, mode: 'sandbox', version: serverPackage.version });
      // The page's browser assets come from the pay-page build (`npm test` builds first).
      const asset = await fetch(`${apiBase.replace(/\/api$/, '')}/pay/assets/pay.css`);
      const built = join(PAY_ASSETS_DIR, 'pay.css');
      if (existsSync(built)) {
        expect(asset.status).toBe(200);
        expect(await asset.text()).toBe(readFileSync(built, 'utf8'));
      } else {
        expect(asset.status).toBe(404);
      }
      expect(existsSync(join(dataDir, 'cryptocheckout.sqlite'))).toBe(true);
      child!.kill('SIGTERM');
      expect(await process.exited).toBe(0);
      expect(process.output()).toMatch(/SIGTERM received/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
