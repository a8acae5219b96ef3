#!/usr/bin/env node
import { parseArgs } from 'node:util';
import type { ServerOptions } from './config.js';
import { startServer } from './server.js';

const HELP = `cryptocheckout-server — the Crypto Checkout reference server

Usage: cryptocheckout-server [options]

Options (each also readable from the environment variable shown):
  --host <address>          interface to listen on            CRYPTOCHECKOUT_HOST     (127.0.0.1)
  --port <number>           port, 0 for any free one          CRYPTOCHECKOUT_PORT     (8787)
  --public-url <origin>     origin used in checkout URLs      CRYPTOCHECKOUT_PUBLIC_URL (http://host:port)
  --data-dir <path>         SQLite data directory             CRYPTOCHECKOUT_DATA_DIR (./.data)
  --database-url <url>      PostgreSQL instead of SQLite      CRYPTOCHECKOUT_DATABASE_URL
  --mode <sandbox|live>     sandbox simulates payments        CRYPTOCHECKOUT_MODE     (sandbox)
  --expiry-minutes <n>      minutes a checkout stays payable  CRYPTOCHECKOUT_EXPIRY_MINUTES (60)
  --late-window-hours <n>   late payments still settle        CRYPTOCHECKOUT_LATE_WINDOW_HOURS (24)
  --webhook-retries <n>     extra webhook attempts (opt-in)   CRYPTOCHECKOUT_WEBHOOK_RETRIES (0)
  --webhook-secret <text>   sign webhooks with HMAC (opt-in)  CRYPTOCHECKOUT_WEBHOOK_SECRET
  --max-connections <n>     open connections at once          CRYPTOCHECKOUT_MAX_CONNECTIONS (1024)
  --log-level <level>       pino level                        CRYPTOCHECKOUT_LOG_LEVEL (info)
                            (readable lines on a terminal, JSON otherwise; CRYPTOCHECKOUT_LOG_FORMAT=json forces JSON)
  -h, --help                show this help
  -v, --version             show the version
`;

function numberOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed)) throw new Error(`--${name} must be a number, not "${value}".`);
  return parsed;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      'public-url': { type: 'string' },
      'data-dir': { type: 'string' },
      'database-url': { type: 'string' },
      mode: { type: 'string' },
      'expiry-minutes': { type: 'string' },
      'late-window-hours': { type: 'string' },
      'webhook-retries': { type: 'string' },
      'webhook-secret': { type: 'string' },
      'max-connections': { type: 'string' },
      'log-level': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  if (values.version) {
    const { readFileSync } = await import('node:fs');
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    process.stdout.write(`${pkg.version}\n`);
    return;
  }
  const env = process.env;
  const pick = (flag: string | undefined, variable: string) => flag ?? (env[variable] || undefined);
  const mode = pick(values.mode, 'CRYPTOCHECKOUT_MODE');
  const options: ServerOptions = {
    host: pick(values.host, 'CRYPTOCHECKOUT_HOST'),
    port: numberOption('port', pick(values.port, 'CRYPTOCHECKOUT_PORT')),
    publicUrl: pick(values['public-url'], 'CRYPTOCHECKOUT_PUBLIC_URL'),
    dataDir: pick(values['data-dir'], 'CRYPTOCHECKOUT_DATA_DIR'),
    databaseUrl: pick(values['database-url'], 'CRYPTOCHECKOUT_DATABASE_URL'),
    mode: mode as ServerOptions['mode'],
    expiryMinutes: numberOption(
      'expiry-minutes',
      pick(values['expiry-minutes'], 'CRYPTOCHECKOUT_EXPIRY_MINUTES'),
    ),
    lateWindowHours: numberOption(
      'late-window-hours',
      pick(values['late-window-hours'], 'CRYPTOCHECKOUT_LATE_WINDOW_HOURS'),
    ),
    webhooks: {
      retries: numberOption(
        'webhook-retries',
        pick(values['webhook-retries'], 'CRYPTOCHECKOUT_WEBHOOK_RETRIES'),
      ),
      signingSecret: pick(values['webhook-secret'], 'CRYPTOCHECKOUT_WEBHOOK_SECRET'),
    },
    maxConnections: numberOption(
      'max-connections',
      pick(values['max-connections'], 'CRYPTOCHECKOUT_MAX_CONNECTIONS'),
    ),
    logLevel: pick(values['log-level'], 'CRYPTOCHECKOUT_LOG_LEVEL'),
    // JSON lines for log collectors; readable lines when a person watches the terminal.
    readableLogs: Boolean(process.stdout.isTTY) && env.CRYPTOCHECKOUT_LOG_FORMAT !== 'json',
  };
  const server = await startServer(options);
  process.stderr.write(
    [
      '',
      `  Crypto Checkout server (${server.config.mode} mode) is running`,
      `  API base      ${server.url}/api`,
      `  OpenAPI       ${server.url}/api/openapi.json`,
      `  Health        ${server.url}/api/health`,
      `  Hosted page   ${server.url}/pay/<transaction_code>`,
      `  Storage       ${server.config.storage.kind === 'sqlite' ? server.config.storage.dataDir : 'PostgreSQL'}`,
      server.config.mode === 'sandbox'
        ? `  Try it        curl -s -X POST ${server.url}/api/checkout -H 'content-type: application/json' -d '{"fiat_amount":"25.00","fiat_currency":"EUR","external_reference":"order-1","customer":{"wallet_address":"0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359","crypto_currency":"USDC","crypto_currency_network":"POLYGON"}}'`
        : '',
      '  Press Ctrl+C to stop.',
      '',
    ].join('\n'),
  );
  const shutdown = (signal: string) => {
    process.stderr.write(`\n  ${signal} received, shutting down…\n`);
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`  shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`cryptocheckout-server: ${error instanceof Error ? error.message : String(error)}\n`);
  process.stderr.write('Run cryptocheckout-server --help for the options.\n');
  process.exit(1);
});
