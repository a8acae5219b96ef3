/**
 * The CLI's Bitcoin options (docs/bitcoin.md), run as `npm start` runs it (bundled from the current
 * sources, as in ../cli.test.ts): bad values are refused naming the flag; a valid set prints what is
 * watched and never shows the node's RPC password, in the banner, the log or /api/health.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bundledCli, runCli } from '../cli-bundle.js';
import { eventually } from '../helpers.js';
import { type BitcoinTestNode, startBitcoinTestNode } from './bitcoin-test-node.js';

const NODE_USER = 'shop';
const NODE_PASSWORD = 'node-password-never-shown-4f1c';

let cli: string;
let cwd: string;
let node: BitcoinTestNode;
const children: ChildProcess[] = [];
const directories: string[] = [];

beforeAll(async () => {
  cli = await bundledCli();
  // The CLI runs in a folder of its own: its default ./.data must never land in the working tree.
  cwd = temporaryDirectory('cryptocheckout-bitcoin-cli-cwd-');
  node = await startBitcoinTestNode({ user: NODE_USER, password: NODE_PASSWORD });
});
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});
afterAll(async () => {
  await node?.close();
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function temporaryDirectory(prefix = 'cryptocheckout-bitcoin-cli-'): string {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  directories.push(directory);
  return directory;
}

/** Runs the CLI with `args`; killed after each test. */
function run(args: string[]) {
  const started = runCli(cli, args, { cwd });
  children.push(started.child);
  return started;
}

/** Live mode on the static table (never a public price source), on a free port. */
const LIVE = ['--mode', 'live', '--rates', 'static', '--i-know-prices-are-fixed', '--port', '0'];
const nodeUrl = (password = NODE_PASSWORD) =>
  `BITCOIN=http://${NODE_USER}:${password}@127.0.0.1:${node.port}`;

describe('cryptocheckout-server CLI, Bitcoin options', () => {
  it('refuses Bitcoin settings that cannot work, naming the flag', async () => {
    const cases: Array<[string[], RegExp]> = [
      [
        ['--rpc-url', nodeUrl(), '--bitcoin-confirmations', '0'],
        /--bitcoin-confirmations must be a whole number from 1 to 100 \(an unconfirmed payment can still be replaced\), not 0/,
      ],
      [
        ['--rpc-url', nodeUrl(), '--bitcoin-large-payment', 'nonsense'],
        /--bitcoin-large-payment must be USD=confirmations, e\.g\. 1000=3 .*, not "nonsense"/,
      ],
      [
        ['--rpc-url', nodeUrl(), '--bitcoin-chain', 'foo'],
        /--bitcoin-chain must be one of main, test, testnet4, signet, regtest, not "foo"/,
      ],
      [
        ['--bitcoin-chain', 'regtest'],
        /--bitcoin-… settings need the Bitcoin node too, with --rpc-url BITCOIN=<url>/,
      ],
      [
        ['--rpc-url', 'POLYGON=http://127.0.0.1:9', '--bitcoin-chain', 'regtest'],
        /--bitcoin-… settings need the Bitcoin node too, with --rpc-url BITCOIN=<url>/,
      ],
    ];
    for (const [args, message] of cases) {
      const process = run([...LIVE, '--data-dir', temporaryDirectory(), ...args]);
      expect(await process.exited, args.join(' ')).toBe(1);
      expect(process.output(), args.join(' ')).toMatch(message);
      expect(process.output(), args.join(' ')).toMatch(/--help/);
      expect(process.output(), args.join(' ')).not.toContain(NODE_PASSWORD);
    }
  });

  it('prints what it watches on Bitcoin and never the node’s password, in the banner, the log or /api/health', async () => {
    const process = run([
      ...LIVE,
      ...['--data-dir', temporaryDirectory(), '--log-level', 'debug', '--poll-interval-ms', '50'],
      ...['--rpc-url', nodeUrl(), '--bitcoin-chain', 'regtest', '--bitcoin-confirmations', '2'],
      ...['--bitcoin-large-payment', '500=4', '--bitcoin-gap-limit', '30'],
    ]);
    const banner = await process.waitFor(/Press Ctrl\+C/);
    expect(banner).toMatch(
      new RegExp(
        `Watching {6}BITCOIN BTC on regtest, 2 confirmation\\(s\\), 4 from 500 USD, http://127\\.0\\.0\\.1:${node.port} \\(Bitcoin Core RPC\\), derived addresses or satoshi tags`,
      ),
    );
    const apiBase = /API base\s+(\S+)/.exec(banner)![1]!;
    // The watcher reaches the node with the credentials: it has scanned the node's tip.
    const health = await eventually(async () => {
      const text = await (await fetch(`${apiBase}/health`)).text();
      const bitcoin = JSON.parse(text).data.networks.BITCOIN;
      expect(bitcoin).toMatchObject({ chain: 'regtest', lastError: null, scannedHeight: node.tipHeight() });
      return text;
    });
    expect(health).not.toContain(NODE_PASSWORD);
    process.child.kill('SIGTERM');
    expect(await process.exited).toBe(0);
    expect(process.output()).not.toContain(NODE_PASSWORD);
    expect(process.output()).not.toContain(encodeURIComponent(NODE_PASSWORD));
  });

  it('says the node refused the credentials without showing the password it was given', async () => {
    const wrong = 'wrong-password-never-shown-9b7e';
    const process = run([
      ...LIVE,
      ...['--data-dir', temporaryDirectory(), '--log-level', 'debug', '--poll-interval-ms', '50'],
      ...['--rpc-url', nodeUrl(wrong), '--bitcoin-chain', 'regtest'],
    ]);
    const banner = await process.waitFor(/Press Ctrl\+C/);
    const apiBase = /API base\s+(\S+)/.exec(banner)![1]!;
    const health = await eventually(async () => {
      const text = await (await fetch(`${apiBase}/health`)).text();
      expect(JSON.parse(text).data.networks.BITCOIN.lastError).toMatch(/refused the credentials/);
      return text;
    });
    expect(health).not.toContain(wrong);
    process.child.kill('SIGTERM');
    expect(await process.exited).toBe(0);
    expect(process.output()).toMatch(/refused the credentials/);
    expect(process.output()).not.toContain(wrong);
  });
});
