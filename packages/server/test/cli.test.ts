import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PAY_ASSETS_DIR } from '@cryptocheckout/pay-page';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bundledCli, runCli } from './cli-bundle.js';

// The CLI is what `npm start` runs; it is tested as bundled from the current sources.
const serverPackage = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};
let cli: string;
let child: ChildProcess | undefined;
// The CLI runs in a folder of its own: its default ./.data must never land in the working tree.
let cwd: string;
beforeAll(async () => {
  cli = await bundledCli();
  cwd = mkdtempSync(join(tmpdir(), 'cryptocheckout-cli-cwd-'));
});
afterAll(() => {
  rmSync(cwd, { recursive: true, force: true });
});
afterEach(() => {
  child?.kill('SIGKILL');
  child = undefined;
});

function run(args: string[], env: Record<string, string> = {}) {
  const started = runCli(cli, args, { cwd, env });
  child = started.child;
  return started;
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

  it('lists the live-mode options with the default token contracts', async () => {
    const process = run(['--help']);
    expect(await process.exited).toBe(0);
    const help = process.output();
    expect(help).toMatch(/--rpc-url <NET=url>/);
    expect(help).toMatch(/CRYPTOCHECKOUT_RPC_URLS/);
    expect(help).toContain('POLYGON:USDC=0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359');
    expect(help).toContain('ETHEREUM:USDT=0xdAC17F958D2ee523a2206206994597C13D831ec7');
    expect(help).toMatch(/POLYGON 64/);
  });

  it('refuses live-mode options that cannot work, naming the flag and the fix', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--rpc-url', 'POLYGON=http://127.0.0.1:8545'], /needs --mode live/],
      [['--mode', 'live', '--rpc-url', 'POLYGON'], /--rpc-url takes NAME=value, like POLYGON=https/],
      [['--mode', 'live', '--rpc-url', 'POLYGON=ftp://rpc.example'], /not an http\(s\) JSON-RPC URL/],
      [
        ['--mode', 'live', '--rpc-url', 'TRON=https://rpc.example'],
        /live mode watches POLYGON, ETHEREUM, BASE, ARBITRUM and SOLANA \(not "TRON"\)/,
      ],
      [
        ['--mode', 'live', '--rpc-url', 'SOLANA=https://rpc.example', '--confirmations', 'SOLANA=32'],
        /--confirmations SOLANA: Solana has no such setting; its payments count at --solana-commitment/,
      ],
      [
        [
          '--mode',
          'live',
          '--rpc-url',
          'SOLANA=https://rpc.example',
          '--token',
          'SOLANA:USDC=0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
        ],
        /--token SOLANA:USDC: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" is not a Solana mint address/,
      ],
      [
        ['--mode', 'live', '--rpc-url', 'SOLANA=https://rpc.example', '--solana-commitment', 'processed'],
        /--solana-commitment must be "finalized" .* or "confirmed" .*, not "processed"/,
      ],
      [
        [
          '--mode',
          'live',
          '--rpc-url',
          'POLYGON=https://rpc.example',
          '--token',
          'SOLANA:USDC=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
        ],
        /--token SOLANA:… needs the Solana endpoint too, with --rpc-url SOLANA=<url>/,
      ],
      [
        ['--mode', 'live', '--rpc-url', 'POLYGON=https://rpc.example', '--confirmations', 'POLYGON=zero'],
        /--confirmations POLYGON must be a number/,
      ],
      [
        ['--mode', 'live', '--rpc-url', 'POLYGON=https://rpc.example', '--chain-id', 'POLYGON=80002'],
        /name its token contracts with --token POLYGON:USDC=0x/,
      ],
      [['--mode', 'live', '--rates', 'static'], /fixed table of 2026-11-01.*--i-know-prices-are-fixed/s],
      [['--rates', 'sometimes'], /--rates takes live or static, not "sometimes"/],
      [
        ['--rate-source', 'nope=http://127.0.0.1:9'],
        /--rate-source nope: no such source; the sources are ecb,/,
      ],
      [['--rate-source', 'ecb=ftp://mirror'], /--rate-source ecb=ftp:\/\/mirror: give an http\(s\) URL/],
      [['--stablecoin-floor', '2'], /--stablecoin-floor must be from 0.5 to 1 USD, not 2/],
      [['--rate-spread', 'EUR=lots'], /--rate-spread EUR must be a number of percent/],
    ];
    for (const [args, message] of cases) {
      const process = run([...args, '--port', '0']);
      expect(await process.exited, args.join(' ')).toBe(1);
      expect(process.output(), args.join(' ')).toMatch(message);
    }
  });

  it('says in its banner that live mode without --rpc-url takes no payments, and prices from market sources', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cryptocheckout-cli-'));
    // Tests never reach a public source: every source points at a closed loopback port.
    const nowhere = ['ecb', 'exchangerate-api', 'kraken', 'coinbase', 'bitstamp'].flatMap((name) => [
      '--rate-source',
      `${name}=http://127.0.0.1:9/`,
    ]);
    try {
      const process = run([
        '--mode',
        'live',
        ...nowhere,
        '--port',
        '0',
        '--data-dir',
        dataDir,
        '--log-level',
        'warn',
      ]);
      await process.waitFor(/Press Ctrl\+C/);
      expect(process.output()).toMatch(
        /Live rails\s+none: no rail takes payments until you add --rpc-url POLYGON=<url>/,
      );
      expect(process.output()).toMatch(
        /Prices\s+live: median of fresh ECB, ExchangeRate-API, Kraken, Coinbase, Bitstamp/,
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('says in its banner which fixed prices sandbox mode and a twice-asked live mode charge', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cryptocheckout-cli-'));
    try {
      const sandbox = run(['--port', '0', '--data-dir', dataDir, '--log-level', 'warn']);
      await sandbox.waitFor(/Press Ctrl\+C/);
      expect(sandbox.output()).toMatch(
        /Prices\s+static table of 2026-11-01 \(sandbox; live mode reads market sources/,
      );
      child!.kill('SIGTERM');
      await sandbox.exited;
      const fixed = run([
        ...['--mode', 'live', '--rates', 'static', '--i-know-prices-are-fixed'],
        ...['--port', '0', '--data-dir', dataDir, '--log-level', 'warn'],
      ]);
      await fixed.waitFor(/Press Ctrl\+C/);
      expect(fixed.output()).toMatch(/Prices\s+FIXED: the static table of 2026-11-01, not the market/);
      child!.kill('SIGTERM');
      await fixed.exited;
      // Solana beside nothing else: the banner says what is watched and when a payment counts.
      const solana = run([
        ...['--mode', 'live', '--rates', 'static', '--i-know-prices-are-fixed'],
        ...['--rpc-url', 'SOLANA=http://127.0.0.1:9', '--solana-commitment', 'confirmed'],
        ...['--port', '0', '--data-dir', dataDir, '--log-level', 'error'],
      ]);
      await solana.waitFor(/Press Ctrl\+C/);
      expect(solana.output()).toMatch(
        /Watching\s+SOLANA USDC, USDT, SOL, counted at confirmed, http:\/\/127\.0\.0\.1:9, Solana Pay references/,
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('prints the dashboard URL with a new operator token once, then where the token is kept', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cryptocheckout-cli-'));
    try {
      const first = run(['--port', '0', '--data-dir', dataDir, '--log-level', 'warn']);
      const output = await first.waitFor(/Press Ctrl\+C/);
      const dashboard = /Dashboard\s+(\S+)/.exec(output)![1]!;
      const token = /Operator token (cco_\S+)\s+\(new; kept in (\S+), shown only now\)/.exec(output);
      expect(token, output).not.toBeNull();
      expect(token![2]).toBe(join(dataDir, 'operator-token'));
      const overview = await fetch(dashboard.replace(/\/dashboard$/, '/api/operator/overview'), {
        headers: { authorization: `Bearer ${token![1]}` },
      });
      expect(overview.status).toBe(200);
      child!.kill('SIGTERM');
      await first.exited;

      const second = run(['--port', '0', '--data-dir', dataDir, '--log-level', 'warn']);
      const again = await second.waitFor(/Press Ctrl\+C/);
      expect(again).toContain(`Operator token in ${join(dataDir, 'operator-token')}`);
      expect(again).not.toContain(token![1]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
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
