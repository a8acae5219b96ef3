import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import pino, { type Logger } from 'pino';
import { type ResolvedConfig, resolveConfig, type ServerOptions } from './config.js';
import { closeDatabase, openDatabase } from './db/database.js';
import { MerchantKeyRepository } from './db/merchant-key-repository.js';
import type { DatabaseSchema } from './db/schema.js';
import { CheckoutService } from './domain/checkout-service.js';
import { FailedCredentials } from './domain/failed-credentials.js';
import { MerchantKeys } from './domain/merchant-keys.js';
import { OperatorRefunds } from './domain/operator-refunds.js';
import { OperatorService } from './domain/operator-service.js';
import { Pricing } from './domain/pricing.js';
import { RefundClaims } from './domain/refund-claims.js';
import { RefundPayments } from './domain/refund-payments.js';
import { RefundService } from './domain/refund-service.js';
import { buildApp } from './http/app.js';
import { readableLogStream } from './logging.js';
import { type OperatorToken, resolveOperatorToken } from './operator-token.js';
import { bitcoinRailProvider } from './rails/bitcoin/bitcoin-rail-provider.js';
import { combinedRailProvider, type RailFamily } from './rails/combined-rail-provider.js';
import { evmRailProvider } from './rails/evm/evm-rail-provider.js';
import {
  noLiveRailProvider,
  type PaymentRailProvider,
  sandboxRailProvider,
} from './rails/payment-rail-provider.js';
import { solanaRailProvider } from './rails/solana/solana-rail-provider.js';
import { LiveRateProvider } from './rates/live-rates.js';
import { staticRateProvider } from './rates/static-rates.js';
import { WebhookOutbox } from './webhooks/outbox.js';

export interface RunningServer {
  /** Public origin (`http://127.0.0.1:8787`); the API base is `${url}/api`. */
  readonly url: string;
  readonly port: number;
  readonly config: ResolvedConfig;
  /** The service itself, for embedding and tests (sweeps, payments from a rail provider). */
  readonly service: CheckoutService;
  readonly outbox: WebhookOutbox;
  /** The operator dashboard's address and the token it takes (and where the token came from). */
  readonly dashboard: { url: string; token: OperatorToken };
  /** Stops accepting requests, finishes webhook deliveries under way, closes the database. */
  close(): Promise<void>;
}

const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/**
 * Starts the reference server with embedded defaults (sandbox mode, SQLite under ./.data, static
 * rates) unless told otherwise. Resolves once it listens.
 * @throws Error for invalid options, an unreachable database or a port in use.
 */
export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const config = resolveConfig(options);
  const operatorToken = resolveOperatorToken(options.operatorToken, config.dataDir);
  const clock = options.clock ?? (() => new Date());
  const logOptions = { level: config.logLevel, base: { service: 'cryptocheckout-server' } };
  const logger: Logger = options.readableLogs ? pino(logOptions, readableLogStream()) : pino(logOptions);
  const db = await openDatabase(config.storage);
  const outbox = new WebhookOutbox(db, config, clock, logger);
  let publicUrl = config.publicUrl ?? '';
  const rails = options.railProvider ?? railProviderFor(config, { db, clock, logger, live: options.live });
  const rates =
    options.rateProvider ??
    (config.rates.source === 'live'
      ? new LiveRateProvider({ db, clock, logger, ...config.rates })
      : staticRateProvider(config.rates.stablecoinFloorUsd));
  // Loads the values persisted by earlier runs and other nodes; the sources are read in the background.
  await rates.start?.();
  const service = new CheckoutService({
    db,
    config,
    clock,
    rates,
    rails,
    outbox,
    logger,
    publicUrl: () => publicUrl,
  });
  const operator = new OperatorService({
    db,
    checkout: service,
    outbox,
    config,
    clock,
    version: VERSION,
    rates,
  });
  const refundService = new RefundService({
    db,
    config,
    pricing: new Pricing(rates, rails, logger),
    rails,
    outbox,
    clock,
    logger,
    publicUrl: () => publicUrl,
  });
  const failedCredentials = new FailedCredentials(clock, logger);
  const refunds = {
    refunds: refundService,
    payments: new RefundPayments(refundService),
    claims: new RefundClaims(refundService),
    operatorRefunds: new OperatorRefunds(refundService, () => publicUrl),
    keys: new MerchantKeys(new MerchantKeyRepository(db), operatorToken.token, clock, failedCredentials),
  };
  const app = await buildApp({
    refunds,
    config,
    service,
    operator,
    operatorToken: operatorToken.token,
    failedCredentials,
    outbox,
    logger,
    version: VERSION,
    clock,
    describeServer: () => ({
      version: VERSION,
      mode: config.mode,
      storage: config.storage.kind,
      ...(config.mode === 'live' ? { networks: rails.health?.() ?? {} } : {}),
      rates: { source: config.rates.source, problems: rates.problems?.() ?? [] },
    }),
  });
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await rates.stop?.();
    await closeDatabase(db);
    throw error;
  }
  const port = (app.server.address() as AddressInfo).port;
  const hostForUrl = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  publicUrl =
    config.publicUrl ?? `http://${hostForUrl.includes(':') ? `[${hostForUrl}]` : hostForUrl}:${port}`;

  await rails.start?.(service, refunds.payments);
  // Webhooks left in the outbox by a previous run (a crash between settling and sending) go out now.
  void outbox.kick();
  let sweeping = false;
  const sweepTimer = setInterval(async () => {
    if (sweeping) return;
    sweeping = true;
    try {
      await service.sweep();
      await refundService.sweep();
    } catch (error) {
      logger.error({ err: error }, 'background sweep failed');
    } finally {
      // Webhooks and their retries go out even when the sweep could not finish.
      await outbox.kick();
      sweeping = false;
    }
  }, config.sweepIntervalMs);
  sweepTimer.unref();

  let closing: Promise<void> | null = null;
  return {
    url: publicUrl,
    port,
    config,
    service,
    outbox,
    dashboard: { url: `${publicUrl}/dashboard`, token: operatorToken },
    close: () => {
      closing ??= (async () => {
        clearInterval(sweepTimer);
        await app.close();
        await rails.stop?.();
        await rates.stop?.();
        await outbox.stop();
        await closeDatabase(db);
      })();
      return closing;
    },
  };
}

/** The rails of the mode: sandbox's simulated ones, or live mode's chain families (EVM, Bitcoin, Solana). */
function railProviderFor(
  config: ResolvedConfig,
  dependencies: {
    db: Kysely<DatabaseSchema>;
    clock: () => Date;
    logger: Logger;
    live: ServerOptions['live'];
  },
): PaymentRailProvider {
  if (config.mode === 'sandbox') return sandboxRailProvider();
  const { db, clock, logger, live } = dependencies;
  const families: RailFamily[] = [];
  if (config.liveNetworks.length > 0) {
    families.push({
      networks: config.liveNetworks.map((network) => network.network),
      provider: evmRailProvider({
        db,
        networks: config.liveNetworks,
        clock,
        logger,
        ...(live?.sweeperKey
          ? {
              deposits: {
                sweeperKey: live.sweeperKey as `0x${string}`,
                holder: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
                ...(live.forwarding ? { forwarder: live.forwarding } : {}),
              },
            }
          : {}),
      }),
    });
  }
  if (config.bitcoin) {
    families.push({
      networks: ['BITCOIN'],
      provider: bitcoinRailProvider({ db, config: config.bitcoin, clock, logger }),
    });
  }
  if (config.solana) {
    families.push({
      networks: ['SOLANA'],
      provider: solanaRailProvider({ db, config: config.solana, clock, logger }),
    });
  }
  if (families.length === 0) return noLiveRailProvider();
  return families.length === 1 ? families[0]!.provider : combinedRailProvider(families);
}
