import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parseDecimal } from '@cryptocheckout/core';
import type { StorageOptions } from './db/database.js';
import {
  type BitcoinNetworkConfig,
  bitcoinExplorerUrl,
  resolveBitcoinNetwork,
} from './rails/bitcoin/bitcoin-network.js';
import {
  type EvmNetworkConfig,
  explorerTransactionUrl,
  type LiveRailOptions,
  resolveEvmNetworks,
} from './rails/evm/evm-networks.js';
import type { PaymentRailProvider } from './rails/payment-rail-provider.js';
import {
  resolveSolanaNetwork,
  type SolanaNetworkConfig,
  solanaExplorerUrl,
} from './rails/solana/solana-network.js';
import { type RateOptions, type ResolvedRates, resolveRates } from './rates/rate-config.js';
import type { RateProvider } from './rates/rate-provider.js';

export type ServerMode = 'sandbox' | 'live';

/** Everything `startServer` accepts; every field has an embedded default. */
export interface ServerOptions {
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** Port (default 8787; 0 picks a free one). */
  port?: number;
  /** Public origin used in checkout URLs (default http://<host>:<port>). */
  publicUrl?: string;
  /** Directory of the embedded SQLite database (default ./.data). Ignored with `databaseUrl`. */
  dataDir?: string;
  /** PostgreSQL connection string, for several server nodes sharing one database. */
  databaseUrl?: string;
  /**
   * Bearer token of the operator API and dashboard (at least 24 characters). Default: the one stored
   * in `<dataDir>/operator-token`, generated on the first start.
   */
  operatorToken?: string;
  /** Folder of the built operator dashboard (default: the installed `@cryptocheckout/dashboard` build). */
  dashboardDir?: string;
  /** `sandbox` (default) simulates payments; `live` takes real ones (see `live`) and turns the sandbox controls off. */
  mode?: ServerMode;
  /** Live mode: the EVM networks to watch, by JSON-RPC URL (docs/live-mode.md). */
  live?: LiveRailOptions;
  /**
   * Percent of the order's USD amount that confirmed payments may fall short by and still settle
   * (BTCPay's "payment tolerance"; default 0). Stored with each checkout (docs/rates.md).
   */
  paymentTolerancePercent?: number | string;
  /** Minutes a checkout stays payable (default 60). */
  expiryMinutes?: number;
  /** Hours after expiry during which a full payment still settles, flagged late (default 24). */
  lateWindowHours?: number;
  /** Seconds a sandbox payment sent with `confirmed: false` takes to confirm (default 5). */
  sandboxConfirmationSeconds?: number;
  webhooks?: {
    /** Per-attempt timeout (default 8000 ms; docs/api.md "Webhook"). */
    timeoutMs?: number;
    /** Extra attempts after a failed one (default 0: fire-and-forget; docs/api.md "Webhook"). */
    retries?: number;
    /** First retry delay; doubles per retry (default 30 000 ms). */
    retryBaseDelayMs?: number;
    /** When set, each webhook carries an HMAC-SHA256 signature header (off by default). */
    signingSecret?: string;
    /**
     * Live mode refuses webhook URLs on loopback, private and special-purpose addresses (SSRF
     * protection); true lets a developer test live mode against a shop on their own machine.
     */
    allowPrivateTargets?: boolean;
    /** Deliveries in flight at once per server node (default 32). */
    concurrency?: number;
    /** Deliveries in flight at once to one origin, so a dead endpoint cannot hold the pool (default 4). */
    perOriginConcurrency?: number;
  };
  /** Interval of the background sweep (expiry, confirmations, outbox), default 1000 ms. */
  sweepIntervalMs?: number;
  /**
   * Time a client has to send a whole request, headers and body, before it gets a 408 and the
   * connection closes (default 30 000 ms); headers alone get at most 10 s of it. Slow clients
   * cannot hold connections forever.
   */
  requestTimeoutMs?: number;
  /** Idle time after which a kept-alive connection closes (default 5000 ms). */
  keepAliveTimeoutMs?: number;
  /** Open connections accepted at once; further ones are closed on arrival (default 1024). */
  maxConnections?: number;
  /**
   * Direct live mode: new amount holds (first payment instructions of a checkout and rail) admitted
   * a minute, per client address and per price of one wallet; 0 is no limit (docs/live-mode.md
   * "Floods and limits").
   */
  newHoldLimits?: {
    /** Per client IP address, an IPv6 one by its /64 (default 10). */
    perClientPerMinute?: number;
    /** Per network, asset, wallet and due amount (default 20). */
    perPricePerMinute?: number;
  };
  /**
   * Which proxies' `X-Forwarded-For` to believe for the client address (Fastify's `trustProxy`):
   * their addresses and CIDR ranges, comma-separated in one string or a list, or true for any peer
   * (only when nothing reaches the server but the proxy); the strings "true" and "false" are read
   * as such. Default none: the connection's peer is the client.
   */
  trustProxy?: boolean | string | string[];
  /** Clock, injectable for tests. */
  clock?: () => Date;
  /** How orders are priced: live market sources or the static table (docs/rates.md). */
  rates?: RateOptions;
  /** Replaces the rate sources altogether (embedding, tests). */
  rateProvider?: RateProvider;
  railProvider?: PaymentRailProvider;
  /** pino log level (default info; `silent` in tests). */
  logLevel?: string;
  /** One readable line per log entry instead of JSON (the CLI uses it on a terminal). */
  readableLogs?: boolean;
}

export interface ResolvedConfig {
  host: string;
  port: number;
  publicUrl: string | undefined;
  storage: StorageOptions;
  /** Where the server keeps its files: the SQLite database (unless PostgreSQL) and the operator token. */
  dataDir: string;
  /** The built dashboard served at /dashboard, if one was found. */
  dashboardDir: string | undefined;
  mode: ServerMode;
  /** EVM networks live mode watches; empty in sandbox mode. */
  liveNetworks: EvmNetworkConfig[];
  /** Solana, when live mode watches it (`--rpc-url SOLANA=…`). */
  solana: SolanaNetworkConfig | undefined;
  /** Bitcoin, when live mode watches a node (`--rpc-url BITCOIN=…`). */
  bitcoin: BitcoinNetworkConfig | undefined;
  /** Percent short of the order amount that still settles; a decimal string. */
  paymentTolerancePercent: string;
  expiryMs: number;
  lateWindowMs: number;
  sandboxConfirmationMs: number;
  webhookTimeoutMs: number;
  webhookRetries: number;
  webhookRetryBaseDelayMs: number;
  webhookSigningSecret: string | undefined;
  /** Whether webhook targets are vetted against private and special-purpose addresses (live mode). */
  enforceWebhookTargets: boolean;
  webhookConcurrency: number;
  webhookPerOriginConcurrency: number;
  sweepIntervalMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
  newHoldLimits: { perClientPerMinute: number; perPricePerMinute: number };
  trustProxy: boolean | string | string[];
  logLevel: string;
  rates: ResolvedRates;
}

/**
 * Fills in the embedded defaults and checks ranges.
 * @throws Error naming the option and the accepted range.
 */
export function resolveConfig(options: ServerOptions): ResolvedConfig {
  const mode = options.mode ?? 'sandbox';
  if (mode !== 'sandbox' && mode !== 'live')
    throw new Error(`mode must be "sandbox" or "live", not "${mode}".`);
  const port = options.port ?? 8787;
  requireRange('port', port, 0, 65535);
  const expiryMinutes = options.expiryMinutes ?? 60;
  requireRange('expiryMinutes', expiryMinutes, 0.01, 7 * 24 * 60);
  const lateWindowHours = options.lateWindowHours ?? 24;
  requireRange('lateWindowHours', lateWindowHours, 0, 24 * 30);
  const retries = options.webhooks?.retries ?? 0;
  requireRange('webhooks.retries', retries, 0, 20);
  const webhookConcurrency = options.webhooks?.concurrency ?? 32;
  requireRange('webhooks.concurrency', webhookConcurrency, 1, 1024);
  const webhookPerOriginConcurrency = options.webhooks?.perOriginConcurrency ?? 4;
  requireRange('webhooks.perOriginConcurrency', webhookPerOriginConcurrency, 1, 1024);
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  requireRange('requestTimeoutMs', requestTimeoutMs, 100, 3_600_000);
  const keepAliveTimeoutMs = options.keepAliveTimeoutMs ?? 5000;
  requireRange('keepAliveTimeoutMs', keepAliveTimeoutMs, 1, 3_600_000);
  const maxConnections = options.maxConnections ?? 1024;
  requireRange('maxConnections', maxConnections, 1, 1_000_000);
  const perClientPerMinute = options.newHoldLimits?.perClientPerMinute ?? 10;
  requireWholeNumber('newHoldLimits.perClientPerMinute', perClientPerMinute, 0, 1_000_000);
  const perPricePerMinute = options.newHoldLimits?.perPricePerMinute ?? 20;
  requireWholeNumber('newHoldLimits.perPricePerMinute', perPricePerMinute, 0, 1_000_000);
  if (options.publicUrl !== undefined && !/^https?:\/\/[^/]+$/.test(options.publicUrl.replace(/\/$/, ''))) {
    throw new Error(`publicUrl must be an origin like https://pay.example.com, not "${options.publicUrl}".`);
  }
  const liveRpcUrls = Object.keys(options.live?.rpcUrls ?? {});
  if (mode === 'sandbox' && liveRpcUrls.length > 0) {
    throw new Error(`--rpc-url ${liveRpcUrls.join(', ')} needs --mode live; sandbox mode watches no chain.`);
  }
  const dataDir = options.dataDir ?? join(process.cwd(), '.data');
  const tolerance = Number(options.paymentTolerancePercent ?? 0);
  requireRange('paymentTolerancePercent', tolerance, 0, 10);
  return {
    host: options.host ?? '127.0.0.1',
    port,
    publicUrl: options.publicUrl?.replace(/\/$/, ''),
    storage: options.databaseUrl
      ? { kind: 'postgres', connectionString: options.databaseUrl }
      : { kind: 'sqlite', dataDir },
    dataDir,
    dashboardDir: options.dashboardDir ?? installedDashboardBuild(),
    mode,
    ...liveFamilies(mode, options.live),
    paymentTolerancePercent: parseDecimal(String(options.paymentTolerancePercent ?? '0')),
    expiryMs: Math.round(expiryMinutes * 60_000),
    lateWindowMs: Math.round(lateWindowHours * 3_600_000),
    sandboxConfirmationMs: Math.round((options.sandboxConfirmationSeconds ?? 5) * 1000),
    webhookTimeoutMs: options.webhooks?.timeoutMs ?? 8000,
    webhookRetries: retries,
    webhookRetryBaseDelayMs: options.webhooks?.retryBaseDelayMs ?? 30_000,
    webhookSigningSecret: options.webhooks?.signingSecret || undefined,
    enforceWebhookTargets: mode === 'live' && options.webhooks?.allowPrivateTargets !== true,
    webhookConcurrency: Math.floor(webhookConcurrency),
    webhookPerOriginConcurrency: Math.floor(webhookPerOriginConcurrency),
    sweepIntervalMs: options.sweepIntervalMs ?? 1000,
    requestTimeoutMs,
    keepAliveTimeoutMs,
    maxConnections: Math.floor(maxConnections),
    newHoldLimits: { perClientPerMinute, perPricePerMinute },
    trustProxy: trustProxyOf(options.trustProxy),
    logLevel: options.logLevel ?? 'info',
    rates: resolveRates(options.rates, mode),
  };
}

/**
 * The `dist` folder of the `@cryptocheckout/dashboard` package installed beside the server, found
 * by name at run time: the server serves its files and imports none of its code.
 */
function installedDashboardBuild(): string | undefined {
  try {
    const manifest = createRequire(import.meta.url).resolve('@cryptocheckout/dashboard/package.json');
    return join(dirname(manifest), 'dist');
  } catch {
    return undefined;
  }
}

function requireRange(name: string, value: number, minimum: number, maximum: number): void {
  if (!Number.isFinite(value) || value < minimum || value > maximum) {
    throw new Error(`${name} must be a number from ${minimum} to ${maximum}, not ${value}.`);
  }
}

function requireWholeNumber(name: string, value: number, minimum: number, maximum: number): void {
  if (!Number.isInteger(value) || value < minimum || value > maximum) {
    throw new Error(`${name} must be a whole number from ${minimum} to ${maximum}, not ${value}.`);
  }
}

/** Fastify's trustProxy from the option, which the CLI and environment give as a string. */
function trustProxyOf(value: ServerOptions['trustProxy']): boolean | string | string[] {
  if (value === 'true' || value === 'false') return value === 'true';
  return value ?? false;
}

/**
 * Splits the live-mode settings by chain family: `SOLANA` in `--rpc-url` and `--token SOLANA:…`
 * go to the Solana watcher, `BITCOIN` to the Bitcoin watcher, the rest to the EVM networks.
 * @throws Error naming the setting and the fix.
 */
function liveFamilies(
  mode: ServerMode,
  live: LiveRailOptions | undefined,
): {
  liveNetworks: EvmNetworkConfig[];
  solana: SolanaNetworkConfig | undefined;
  bitcoin: BitcoinNetworkConfig | undefined;
} {
  if (mode !== 'live' || !live) return { liveNetworks: [], solana: undefined, bitcoin: undefined };
  const isSolana = (key: string) => key.toUpperCase() === 'SOLANA' || key.toUpperCase().startsWith('SOLANA:');
  const isBitcoin = (key: string) => key.toUpperCase() === 'BITCOIN';
  const pick = <T>(map: Partial<Record<string, T>> | undefined, solana: boolean) =>
    Object.fromEntries(
      Object.entries(map ?? {}).filter(([key]) => isSolana(key) === solana && !isBitcoin(key)),
    );
  const bitcoinUrl = Object.entries(live.rpcUrls).find(([key]) => isBitcoin(key))?.[1];
  const bitcoinSettings = [
    live.bitcoinChain,
    live.bitcoinConfirmations,
    live.bitcoinLargePayment,
    live.bitcoinGapLimit,
    live.bitcoinCookieFile,
  ];
  if (bitcoinUrl === undefined && bitcoinSettings.some((setting) => setting !== undefined)) {
    throw new Error('--bitcoin-… settings need the Bitcoin node too, with --rpc-url BITCOIN=<url>.');
  }
  const solanaUrl = Object.entries(live.rpcUrls).find(([key]) => isSolana(key))?.[1];
  const solanaMints = Object.fromEntries(
    Object.entries(pick(live.tokens, true)).map(([key, mint]) => [key.split(':')[1] ?? '', mint]),
  );
  if (solanaUrl === undefined && Object.keys(solanaMints).length > 0) {
    throw new Error('--token SOLANA:… needs the Solana endpoint too, with --rpc-url SOLANA=<url>.');
  }
  if (solanaUrl === undefined && live.solanaCommitment !== undefined) {
    throw new Error('--solana-commitment needs the Solana endpoint too, with --rpc-url SOLANA=<url>.');
  }
  return {
    liveNetworks: resolveEvmNetworks({
      ...live,
      rpcUrls: pick(live.rpcUrls, false),
      tokens: pick(live.tokens, false),
    }),
    solana:
      solanaUrl === undefined
        ? undefined
        : resolveSolanaNetwork({
            rpcUrl: solanaUrl,
            mints: solanaMints,
            ...(live.solanaCommitment !== undefined ? { commitment: live.solanaCommitment } : {}),
            ...(live.pollIntervalMs !== undefined ? { pollIntervalMs: live.pollIntervalMs } : {}),
          }),
    bitcoin:
      bitcoinUrl === undefined
        ? undefined
        : resolveBitcoinNetwork({
            rpcUrl: bitcoinUrl,
            ...(live.bitcoinChain !== undefined ? { chain: live.bitcoinChain } : {}),
            ...(live.bitcoinConfirmations !== undefined ? { confirmations: live.bitcoinConfirmations } : {}),
            ...(live.bitcoinLargePayment !== undefined ? { largePayment: live.bitcoinLargePayment } : {}),
            ...(live.bitcoinGapLimit !== undefined ? { gapLimit: live.bitcoinGapLimit } : {}),
            ...(live.bitcoinCookieFile !== undefined ? { cookieFile: live.bitcoinCookieFile } : {}),
            ...(live.pollIntervalMs !== undefined ? { pollIntervalMs: live.pollIntervalMs } : {}),
          }),
  };
}

/** The public explorer page of a transaction on a watched network; null when the chain is not the network's own. */
export function transactionExplorerUrl(config: ResolvedConfig, network: string, txId: string): string | null {
  if (network === 'SOLANA') return config.solana ? solanaExplorerUrl(config.solana, txId) : null;
  if (network === 'BITCOIN') return config.bitcoin ? bitcoinExplorerUrl(config.bitcoin, txId) : null;
  const evm = config.liveNetworks.find((each) => each.network === network);
  return evm ? explorerTransactionUrl(evm, txId) : null;
}
