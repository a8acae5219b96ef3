#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { deployFactoryCommand } from './cli-deploy-factory.js';
import type { ResolvedConfig, ServerOptions } from './config.js';
import {
  DEFAULT_CONFIRMATIONS,
  defaultTokenTable,
  LIVE_ASSETS,
  LIVE_NETWORKS,
} from './rails/evm/evm-networks.js';
import { RATE_SOURCE_NAMES } from './rates/sources/catalog.js';
import { STATIC_RATES_DATE } from './rates/static-rates.js';
import { type RunningServer, startServer } from './server.js';
import { readSweeperKey } from './sweeper-key.js';

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
  --trust-proxy <value>     X-Forwarded-For of these proxies  CRYPTOCHECKOUT_TRUST_PROXY (none)
                            (comma-separated addresses/CIDRs, or true: set it behind a reverse proxy)
  --operator-token <text>   bearer token of the dashboard     CRYPTOCHECKOUT_OPERATOR_TOKEN
                            (default: generated on the first start, kept in <data dir>/operator-token)
  --dashboard-dir <path>    a built operator dashboard        CRYPTOCHECKOUT_DASHBOARD_DIR
  --log-level <level>       pino level                        CRYPTOCHECKOUT_LOG_LEVEL (info)
                            (readable lines on a terminal, JSON otherwise; CRYPTOCHECKOUT_LOG_FORMAT=json forces JSON)
  -h, --help                show this help
  -v, --version             show the version

Prices (docs/rates.md): sandbox mode charges the embedded table of ${STATIC_RATES_DATE}; live mode the
median of fresh market sources (${RATE_SOURCE_NAMES.join(', ')}), read in the background.
  --rates <live|static>     where prices come from            CRYPTOCHECKOUT_RATES (static in sandbox, live in live mode)
  --i-know-prices-are-fixed live mode with --rates static     CRYPTOCHECKOUT_FIXED_PRICES_IN_LIVE=1
  --rate-source <NAME=url>  a source's mirror, or NAME=off    CRYPTOCHECKOUT_RATE_SOURCES
  --rate-refresh-seconds <NAME=n>  seconds between reads      CRYPTOCHECKOUT_RATE_REFRESH_SECONDS
  --rate-spread <pct|CODE=pct>  percent added for the merchant CRYPTOCHECKOUT_RATE_SPREAD (0)
  --stablecoin-floor <usd>  USDC/USDT under it: rails paused  CRYPTOCHECKOUT_STABLECOIN_FLOOR (0.98)

Live mode (--mode live): buyers pay the merchant's own wallet on an EVM chain the server watches.
Repeat a flag per network; the environment variable takes a comma-separated list of the same pairs.
  --rpc-url <NET=url>       JSON-RPC endpoint to watch        CRYPTOCHECKOUT_RPC_URLS
  --confirmations <NET=n>   blocks until a payment is final   CRYPTOCHECKOUT_CONFIRMATIONS
                            (defaults: ${Object.entries(DEFAULT_CONFIRMATIONS)
                              .map(([network, blocks]) => `${network} ${blocks}`)
                              .join(', ')})
  --token <NET:ASSET=0x…>   token contract, not the default   CRYPTOCHECKOUT_TOKENS
  --chain-id <NET=id>       a testnet's or local chain's id   CRYPTOCHECKOUT_CHAIN_IDS
  --allow-private-webhooks  webhooks to private hosts (tests) CRYPTOCHECKOUT_ALLOW_PRIVATE_WEBHOOKS=1
  --poll-interval-ms <n>    time between chain scans          CRYPTOCHECKOUT_POLL_INTERVAL_MS (2000)
  --solana-commitment <finalized|confirmed>                   CRYPTOCHECKOUT_SOLANA_COMMITMENT (finalized)
                            Solana (--rpc-url SOLANA=…, USDC, USDT and SOL by Solana Pay, docs/solana.md):
                            when a payment counts; mints with --token SOLANA:USDC=<mint> (devnet, tests)
  Bitcoin (--rpc-url BITCOIN=http://user:password@127.0.0.1:8332, a Bitcoin Core node, docs/bitcoin.md):
  --bitcoin-chain <main|test|testnet4|signet|regtest>        CRYPTOCHECKOUT_BITCOIN_CHAIN (main)
                            the chain the node must be on; coins of any other are refused
  --bitcoin-confirmations <n>  confirmations to settle        CRYPTOCHECKOUT_BITCOIN_CONFIRMATIONS (1)
  --bitcoin-large-payment <USD=n>  orders from USD wait n     CRYPTOCHECKOUT_BITCOIN_LARGE_PAYMENT (1000=3)
  --bitcoin-gap-limit <n>   the merchants' wallets' gap limit CRYPTOCHECKOUT_BITCOIN_GAP_LIMIT (20)
  --bitcoin-rpc-cookie <path>  Bitcoin Core's .cookie file   CRYPTOCHECKOUT_BITCOIN_RPC_COOKIE
  --payment-tolerance <pct>  payments this much short settle  CRYPTOCHECKOUT_PAYMENT_TOLERANCE (0)
  --max-block-range <n>     blocks per eth_getLogs call       CRYPTOCHECKOUT_MAX_BLOCK_RANGE (500)
  --new-holds-per-client <n>                                  CRYPTOCHECKOUT_NEW_HOLDS_PER_CLIENT (10)
                            direct mode: new exact amounts a minute per client address (0: no limit)
  --new-holds-per-price <n>                                   CRYPTOCHECKOUT_NEW_HOLDS_PER_PRICE (20)
                            the same per wallet and due amount, whoever asks

Deposit mode (per network): each checkout gets its own address, any amount counts, and deposits
are forwarded to the merchant's wallet. See docs/deposit-mode.md.
  --deposit-factory <NET=0x…>  the network's DepositFactory    CRYPTOCHECKOUT_DEPOSIT_FACTORIES
  --sweeper-key-file <path>    key that pays forwards' gas     CRYPTOCHECKOUT_SWEEPER_KEY (the key itself)
  --sweeper-key <0x…>          the same, on the command line (other users can see it: prefer the file)
  --forwarding-lease-ms <n>    how long a node that stopped    CRYPTOCHECKOUT_FORWARDING_LEASE_MS (60000)
                               without a word keeps the right to send forwards (several nodes)
  cryptocheckout-server deploy-factory --help   deploys a DepositFactory and prints its address
  Networks: ${LIVE_NETWORKS.join(', ')}. Assets: ${LIVE_ASSETS.join(', ')}. Default token contracts:
${defaultTokenTable()
  .map((line) => `    ${line}`)
  .join('\n')}
  Example: cryptocheckout-server --mode live --rpc-url POLYGON=https://polygon-rpc.example
`;

/**
 * Reads repeated `NAME=value` flags (or one comma-separated variable) into a map.
 * @throws Error naming the flag and the expected form.
 */
function pairOption(
  flag: string,
  values: string[] | undefined,
  fromEnv: string | undefined,
  example: string,
) {
  const entries = values?.length ? values : (fromEnv ?? '').split(',').filter((each) => each.trim() !== '');
  const result: Record<string, string> = {};
  for (const entry of entries) {
    const separator = entry.indexOf('=');
    if (separator <= 0) throw new Error(`--${flag} takes NAME=value, like ${example}, not "${entry}".`);
    result[entry.slice(0, separator).trim()] = entry.slice(separator + 1).trim();
  }
  return result;
}

function numberPairs(flag: string, pairs: Record<string, string>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(pairs).map(([name, value]) => [
      name,
      numberOption(`${flag} ${name}`, value) ?? Number.NaN,
    ]),
  );
}

function numberOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed)) throw new Error(`--${name} must be a number, not "${value}".`);
  return parsed;
}

/** The forwarding settings the command line set, if any. */
function forwardingOption(leaseMs: number | undefined): { forwarding?: { leaseMs: number } } {
  return leaseMs === undefined ? {} : { forwarding: { leaseMs } };
}

/**
 * The rate options from the command line and environment (docs/rates.md).
 * @throws Error naming the flag and the expected form.
 */
function rateOptions(
  values: {
    rates?: string;
    'i-know-prices-are-fixed'?: boolean;
    'rate-source'?: string[];
    'rate-refresh-seconds'?: string[];
    'rate-spread'?: string[];
    'stablecoin-floor'?: string;
  },
  env: NodeJS.ProcessEnv,
): ServerOptions['rates'] {
  const source = values.rates ?? (env.CRYPTOCHECKOUT_RATES || undefined);
  if (source !== undefined && source !== 'live' && source !== 'static') {
    throw new Error(`--rates takes live or static, not "${source}".`);
  }
  const spreads = values['rate-spread']?.length
    ? values['rate-spread']
    : (env.CRYPTOCHECKOUT_RATE_SPREAD ?? '').split(',').filter((each) => each.trim() !== '');
  const global = spreads.filter((each) => !each.includes('='));
  const floor = values['stablecoin-floor'] ?? (env.CRYPTOCHECKOUT_STABLECOIN_FLOOR || undefined);
  if (global.length > 1)
    throw new Error(`--rate-spread takes one global percent, not ${global.join(' and ')}.`);
  return {
    ...(source ? { source } : {}),
    fixedPricesInLiveMode:
      values['i-know-prices-are-fixed'] === true || env.CRYPTOCHECKOUT_FIXED_PRICES_IN_LIVE === '1',
    sourceUrls: pairOption(
      'rate-source',
      values['rate-source'],
      env.CRYPTOCHECKOUT_RATE_SOURCES,
      'ecb=https://…',
    ),
    refreshSeconds: numberPairs(
      'rate-refresh-seconds',
      pairOption(
        'rate-refresh-seconds',
        values['rate-refresh-seconds'],
        env.CRYPTOCHECKOUT_RATE_REFRESH_SECONDS,
        'kraken=30',
      ),
    ),
    ...(global[0] !== undefined ? { spreadPercent: global[0].trim() } : {}),
    spreadByCode: pairOption(
      'rate-spread',
      spreads.filter((each) => each.includes('=')),
      undefined,
      'EUR=0.5',
    ),
    ...(floor ? { stablecoinFloorUsd: floor } : {}),
  };
}

/** Where prices come from, in a line of the start banner. */
function pricesBannerLine(config: ResolvedConfig): string {
  if (config.rates.source === 'static') {
    return config.mode === 'live'
      ? `  Prices        FIXED: the static table of ${STATIC_RATES_DATE}, not the market (--i-know-prices-are-fixed)`
      : `  Prices        static table of ${STATIC_RATES_DATE} (sandbox; live mode reads market sources, docs/rates.md)`;
  }
  return `  Prices        live: median of fresh ${config.rates.sources.map((each) => each.source.label).join(', ')}${
    config.rates.spreadPercent.default !== '0' ? `, spread ${config.rates.spreadPercent.default}%` : ''
  } (rates view in the dashboard)`;
}

/** What live mode watches, or how to make it watch something. */
function liveBannerLines(config: ResolvedConfig): string[] {
  if (config.mode !== 'live') return [];
  if (config.liveNetworks.length === 0 && !config.solana && !config.bitcoin) {
    return [
      '  Live rails    none: no rail takes payments until you add --rpc-url POLYGON=<url> (see --help)',
    ];
  }
  const { solana, bitcoin } = config;
  return [
    ...config.liveNetworks.map(
      (network) =>
        `  Watching      ${network.network} (chain ${network.chainId}) ${network.tokens.map((token) => token.asset).join(', ')}, ${network.confirmations} confirmations, ${new URL(network.rpcUrl).origin}, ${network.depositFactory ? `deposit mode (factory ${network.depositFactory})` : 'direct mode (exact amounts)'}`,
    ),
    ...(solana
      ? [
          `  Watching      SOLANA ${solana.assets.map((asset) => asset.asset).join(', ')}, counted at ${solana.commitment}, ${new URL(solana.rpcUrl).origin}, Solana Pay references${solana.customMints ? ' (configured mints)' : ''}`,
        ]
      : []),
    ...(bitcoin
      ? [
          `  Watching      BITCOIN BTC on ${bitcoin.chain}, ${bitcoin.policy.confirmations} confirmation(s), ${bitcoin.policy.largeConfirmations} from ${bitcoin.policy.largeFromUsd} USD, ${new URL(bitcoin.rpcUrl).origin} (Bitcoin Core RPC), derived addresses or satoshi tags`,
        ]
      : []),
    ...(config.paymentTolerancePercent !== '0'
      ? [`  Tolerance     payments up to ${config.paymentTolerancePercent}% short settle`]
      : []),
  ];
}

/** Where the dashboard is and how to sign in; a generated token is shown the one time it is made. */
function dashboardBannerLines({ url, token }: RunningServer['dashboard']): string[] {
  const tokenLine = {
    generated: `${token.token}  (new; kept in ${token.path}, shown only now)`,
    file: `in ${token.path}`,
    option: 'the one given with --operator-token',
  }[token.source];
  return [`  Dashboard     ${url}`, `  Operator token ${tokenLine}`];
}

async function main(): Promise<void> {
  if (process.argv[2] === 'deploy-factory') {
    await deployFactoryCommand(process.argv.slice(3), (line) => process.stdout.write(`${line}\n`));
    return;
  }
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
      'trust-proxy': { type: 'string' },
      'new-holds-per-client': { type: 'string' },
      'new-holds-per-price': { type: 'string' },
      'operator-token': { type: 'string' },
      'dashboard-dir': { type: 'string' },
      'log-level': { type: 'string' },
      'rpc-url': { type: 'string', multiple: true },
      confirmations: { type: 'string', multiple: true },
      token: { type: 'string', multiple: true },
      'chain-id': { type: 'string', multiple: true },
      'poll-interval-ms': { type: 'string' },
      'solana-commitment': { type: 'string' },
      'bitcoin-chain': { type: 'string' },
      'bitcoin-confirmations': { type: 'string' },
      'bitcoin-large-payment': { type: 'string' },
      'bitcoin-gap-limit': { type: 'string' },
      'bitcoin-rpc-cookie': { type: 'string' },
      'payment-tolerance': { type: 'string' },
      'max-block-range': { type: 'string' },
      'allow-private-webhooks': { type: 'boolean' },
      'deposit-factory': { type: 'string', multiple: true },
      'sweeper-key-file': { type: 'string' },
      'sweeper-key': { type: 'string' },
      'forwarding-lease-ms': { type: 'string' },
      rates: { type: 'string' },
      'i-know-prices-are-fixed': { type: 'boolean' },
      'rate-source': { type: 'string', multiple: true },
      'rate-refresh-seconds': { type: 'string', multiple: true },
      'rate-spread': { type: 'string', multiple: true },
      'stablecoin-floor': { type: 'string' },
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
      allowPrivateTargets:
        values['allow-private-webhooks'] === true || env.CRYPTOCHECKOUT_ALLOW_PRIVATE_WEBHOOKS === '1',
    },
    maxConnections: numberOption(
      'max-connections',
      pick(values['max-connections'], 'CRYPTOCHECKOUT_MAX_CONNECTIONS'),
    ),
    trustProxy: pick(values['trust-proxy'], 'CRYPTOCHECKOUT_TRUST_PROXY'),
    newHoldLimits: {
      perClientPerMinute: numberOption(
        'new-holds-per-client',
        pick(values['new-holds-per-client'], 'CRYPTOCHECKOUT_NEW_HOLDS_PER_CLIENT'),
      ),
      perPricePerMinute: numberOption(
        'new-holds-per-price',
        pick(values['new-holds-per-price'], 'CRYPTOCHECKOUT_NEW_HOLDS_PER_PRICE'),
      ),
    },
    paymentTolerancePercent: pick(values['payment-tolerance'], 'CRYPTOCHECKOUT_PAYMENT_TOLERANCE'),
    logLevel: pick(values['log-level'], 'CRYPTOCHECKOUT_LOG_LEVEL'),
    operatorToken: pick(values['operator-token'], 'CRYPTOCHECKOUT_OPERATOR_TOKEN'),
    rates: rateOptions(values, env),
    dashboardDir: pick(values['dashboard-dir'], 'CRYPTOCHECKOUT_DASHBOARD_DIR'),
    live: {
      rpcUrls: pairOption('rpc-url', values['rpc-url'], env.CRYPTOCHECKOUT_RPC_URLS, 'POLYGON=https://…'),
      confirmations: numberPairs(
        'confirmations',
        pairOption('confirmations', values.confirmations, env.CRYPTOCHECKOUT_CONFIRMATIONS, 'POLYGON=64'),
      ),
      tokens: pairOption('token', values.token, env.CRYPTOCHECKOUT_TOKENS, 'POLYGON:USDC=0x…'),
      chainIds: numberPairs(
        'chain-id',
        pairOption('chain-id', values['chain-id'], env.CRYPTOCHECKOUT_CHAIN_IDS, 'POLYGON=80002'),
      ),
      pollIntervalMs: numberOption(
        'poll-interval-ms',
        pick(values['poll-interval-ms'], 'CRYPTOCHECKOUT_POLL_INTERVAL_MS'),
      ),
      maxBlockRange: numberOption(
        'max-block-range',
        pick(values['max-block-range'], 'CRYPTOCHECKOUT_MAX_BLOCK_RANGE'),
      ),
      depositFactories: pairOption(
        'deposit-factory',
        values['deposit-factory'],
        env.CRYPTOCHECKOUT_DEPOSIT_FACTORIES,
        'POLYGON=0x…',
      ),
      sweeperKey: readSweeperKey({
        file: values['sweeper-key-file'],
        flag: values['sweeper-key'],
        env: env.CRYPTOCHECKOUT_SWEEPER_KEY,
      }),
      solanaCommitment: pick(values['solana-commitment'], 'CRYPTOCHECKOUT_SOLANA_COMMITMENT'),
      bitcoinChain: pick(values['bitcoin-chain'], 'CRYPTOCHECKOUT_BITCOIN_CHAIN'),
      bitcoinConfirmations: numberOption(
        'bitcoin-confirmations',
        pick(values['bitcoin-confirmations'], 'CRYPTOCHECKOUT_BITCOIN_CONFIRMATIONS'),
      ),
      bitcoinLargePayment: pick(values['bitcoin-large-payment'], 'CRYPTOCHECKOUT_BITCOIN_LARGE_PAYMENT'),
      bitcoinGapLimit: numberOption(
        'bitcoin-gap-limit',
        pick(values['bitcoin-gap-limit'], 'CRYPTOCHECKOUT_BITCOIN_GAP_LIMIT'),
      ),
      bitcoinCookieFile: pick(values['bitcoin-rpc-cookie'], 'CRYPTOCHECKOUT_BITCOIN_RPC_COOKIE'),
      ...forwardingOption(
        numberOption(
          'forwarding-lease-ms',
          pick(values['forwarding-lease-ms'], 'CRYPTOCHECKOUT_FORWARDING_LEASE_MS'),
        ),
      ),
    },
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
      ...dashboardBannerLines(server.dashboard),
      `  Storage       ${server.config.storage.kind === 'sqlite' ? server.config.storage.dataDir : 'PostgreSQL'}`,
      pricesBannerLine(server.config),
      ...liveBannerLines(server.config),
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
