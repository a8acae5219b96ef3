import { setMaxListeners } from 'node:events';
import {
  FIAT_CURRENCY_CODES,
  type OperatorRate,
  type OperatorRateSource,
  type OperatorRates,
} from '@cryptocheckout/core';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { RateRepository } from '../db/rate-repository.js';
import type { DatabaseSchema, RateQuotesTable, RateSourceStatusTable } from '../db/schema.js';
import { type BoardEntry, type BoardValue, minuteText, priceOnBoard } from './rate-board.js';
import { type RateProvider, RateUnavailableError, type UsdQuote } from './rate-provider.js';
import { type FetchText, PRICED_ASSETS, type RateSource, type SourceQuote } from './sources/rate-source.js';

/** A source as this server reads it: the adapter, the URL (its own or a mirror's) and how often. */
export interface ConfiguredRateSource {
  source: RateSource;
  url: string;
  refreshIntervalMs: number;
}

export interface LiveRatesOptions {
  db: Kysely<DatabaseSchema>;
  clock: () => Date;
  logger: Logger;
  sources: readonly ConfiguredRateSource[];
  /** Percent added for the merchant: per code, else `default` (docs/rates.md "Spread"). */
  spreadPercent: { default: string; byCode: Readonly<Record<string, string>> };
  stablecoinFloorUsd: string;
  divergenceLimitPercent: string;
  /** Per request to a source. */
  requestTimeoutMs: number;
  /** How often values other nodes wrote are loaded. */
  reloadIntervalMs: number;
  /** Wait after a failed read before the next try, when shorter than the source's interval. */
  retryAfterFailureMs: number;
  /** How sources are read (tests may wrap it); default: fetch with the timeout. */
  fetchText?: FetchText;
}

/** Largest answer read from a source: the biggest documented one is a few tens of kilobytes. */
const MAX_ANSWER_BYTES = 2_000_000;
const FIAT_CODES: ReadonlySet<string> = new Set(FIAT_CURRENCY_CODES);
const ASSET_CODES: ReadonlySet<string> = new Set(PRICED_ASSETS);

/**
 * Live market prices (docs/rates.md): a background reader per source writes what it reads to the
 * database; every node loads all sources' values from there and prices from memory, so checkout
 * creation never waits on a network, a restart serves the last values at once and nodes sharing
 * PostgreSQL quote the same price.
 */
export class LiveRateProvider implements RateProvider {
  private readonly repository: RateRepository;
  private values = new Map<string, { kind: 'fiat' | 'asset'; values: BoardValue[] }>();
  private statuses = new Map<string, RateSourceStatusTable>();
  /** Board entries by code, valid until the first value in them stops being fresh or a reload. */
  private entries = new Map<string, { entry: BoardEntry; validUntil: string }>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<void>>();
  /** Aborts every read under way when the provider stops; each read listens (Coinbase reads five at once). */
  private readonly aborter = abortControllerForManyReads();
  private readonly loggedProblems = new Map<string, string>();
  private stopped = false;
  private readonly labels: Map<string, string>;

  constructor(private readonly options: LiveRatesOptions) {
    this.repository = new RateRepository(options.db);
    this.labels = new Map(options.sources.map(({ source }) => [source.name, source.label]));
  }

  async start(): Promise<void> {
    await this.reload();
    for (const configured of this.options.sources) this.schedule(configured, 0);
    const reloader = setInterval(() => {
      this.track(
        this.reload().catch((error: unknown) =>
          this.options.logger.warn({ err: error }, 'rates: reload failed'),
        ),
      );
    }, this.options.reloadIntervalMs);
    reloader.unref();
    this.timers.add(reloader);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.aborter.abort();
    await Promise.allSettled([...this.inFlight]);
  }

  async fiatToUsd(currency: string): Promise<UsdQuote | undefined> {
    if (currency === 'USD') {
      return {
        usdPerUnit: '1',
        source: 'USD (no conversion)',
        sources: [],
        asOf: this.options.clock().toISOString(),
        spreadPercent: '0',
      };
    }
    if (!FIAT_CODES.has(currency)) return undefined;
    return this.quoteOf(currency, 'fiat');
  }

  async assetToUsd(symbol: string): Promise<UsdQuote | undefined> {
    if (!ASSET_CODES.has(symbol)) return undefined;
    return this.quoteOf(symbol, 'asset');
  }

  overview(): OperatorRates {
    const now = this.options.clock();
    const rates: OperatorRate[] = [...this.values.entries()]
      .map(([code, { kind }]) => this.entryOf(code, kind, now).row)
      .sort((a, b) => (a.kind === b.kind ? a.code.localeCompare(b.code) : a.kind === 'fiat' ? -1 : 1));
    return {
      source: 'live',
      static_table_date: null,
      stablecoin_floor_usd: this.options.stablecoinFloorUsd,
      divergence_limit_percent: this.options.divergenceLimitPercent,
      rates,
      sources: this.sourceRows(now),
    };
  }

  problems(): string[] {
    const now = this.options.clock();
    const problems = this.sourceRows(now).flatMap((row) =>
      row.stale || row.last_error
        ? [
            `${row.label}: ${row.stale ? 'stale' : 'failing'}${row.last_success_at ? `, last answer ${minuteText(row.last_success_at)}` : ', no answer yet'}${row.last_error ? ` (${row.last_error})` : ''}`,
          ]
        : [],
    );
    for (const [code, { kind }] of this.values) {
      const { row } = this.entryOf(code, kind, now);
      if (row.status === 'depegged' || row.status === 'diverging') problems.push(row.problem!);
    }
    return problems;
  }

  private async quoteOf(code: string, kind: 'fiat' | 'asset'): Promise<UsdQuote> {
    const entry = this.entryOf(code, kind, this.options.clock());
    if (entry.quote) return entry.quote;
    throw new RateUnavailableError(code, entry.refusal!);
  }

  private entryOf(code: string, kind: 'fiat' | 'asset', now: Date): BoardEntry {
    const nowIso = now.toISOString();
    const cached = this.entries.get(code);
    if (cached && cached.validUntil > nowIso) return cached.entry;
    const values = this.values.get(code)?.values ?? [];
    const entry = priceOnBoard(code, kind, values, now, {
      spreadPercent: (each) => this.options.spreadPercent.byCode[each] ?? this.options.spreadPercent.default,
      stablecoinFloorUsd: this.options.stablecoinFloorUsd,
      divergenceLimitPercent: this.options.divergenceLimitPercent,
    });
    // Valid until a value in it stops being fresh.
    const changes = values.map((value) => value.freshUntil).filter((time) => time > nowIso);
    const validUntil = changes.reduce(
      (first, time) => (time < first ? time : first),
      new Date(now.getTime() + 60_000).toISOString(),
    );
    this.entries.set(code, { entry, validUntil });
    this.logChange(code, entry);
    return entry;
  }

  /** One log line when a code's standing changes (refused, depegged, diverging, back to normal). */
  private logChange(code: string, entry: BoardEntry): void {
    const state = entry.row.status;
    const before = this.loggedProblems.get(code);
    if (before === state || (before === undefined && state === 'ok')) return;
    this.loggedProblems.set(code, state);
    if (state === 'ok') this.options.logger.info({ code }, `rates: ${code} priced again`);
    else this.options.logger.warn({ code, status: state }, `rates: ${entry.row.problem}`);
  }

  private sourceRows(now: Date): OperatorRateSource[] {
    const nowIso = now.toISOString();
    return this.options.sources.map(({ source, url, refreshIntervalMs }) => {
      const status = this.statuses.get(source.name);
      const values = [...this.values.values()].flatMap((each) =>
        each.values.filter((value) => value.source === source.name),
      );
      return {
        name: source.name,
        label: source.label,
        kind: source.kind,
        origin: new URL(url).origin,
        refresh_interval_seconds: Math.round(refreshIntervalMs / 1000),
        last_attempt_at: status?.last_attempt_at ?? null,
        last_success_at: status?.last_success_at ?? null,
        last_error: status?.last_error ?? null,
        stale: !values.some((value) => value.freshUntil > nowIso),
      };
    });
  }

  private schedule(configured: ConfiguredRateSource, delayMs: number): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.track(
        this.refresh(configured).then((succeeded) =>
          this.schedule(
            configured,
            succeeded
              ? configured.refreshIntervalMs
              : Math.min(configured.refreshIntervalMs, this.options.retryAfterFailureMs),
          ),
        ),
      );
    }, delayMs);
    timer.unref();
    this.timers.add(timer);
  }

  private track(work: Promise<unknown>): void {
    const tracked = work.then(
      () => undefined,
      () => undefined,
    );
    this.inFlight.add(tracked);
    void tracked.finally(() => this.inFlight.delete(tracked));
  }

  /** Reads one source, stores what it said (or why it failed) and reloads; true when it answered. */
  private async refresh({ source, url }: ConfiguredRateSource): Promise<boolean> {
    const attemptAt = this.options.clock();
    const previous = this.statuses.get(source.name);
    let error: string | null = null;
    let quotes: SourceQuote[] = [];
    try {
      quotes = (await source.read(url, this.options.fetchText ?? this.fetchText, attemptAt)).filter(
        (quote) => (source.kind === 'fiat' ? FIAT_CODES.has(quote.code) : ASSET_CODES.has(quote.code)),
      );
      if (quotes.length === 0) throw new Error(`${source.label}: nothing we price in the answer`);
    } catch (caught) {
      error = (caught instanceof Error ? caught.message : String(caught)).slice(0, 500);
    }
    if (this.stopped) return false;
    const fetchedAt = this.options.clock().toISOString();
    try {
      await this.repository.saveQuotes(
        quotes.map(
          (quote): RateQuotesTable => ({
            source: source.name,
            code: quote.code,
            kind: source.kind,
            usd_per_unit: quote.usdPerUnit,
            as_of: quote.asOf,
            fresh_until: quote.freshUntil,
            fetched_at: fetchedAt,
          }),
        ),
      );
      await this.repository.saveStatus({
        source: source.name,
        last_attempt_at: attemptAt.toISOString(),
        last_success_at: error ? (previous?.last_success_at ?? null) : fetchedAt,
        last_error: error,
      });
      await this.reload();
    } catch (caught) {
      if (!this.stopped)
        this.options.logger.error(
          { err: caught, source: source.name },
          'rates: storing a source answer failed',
        );
      return false;
    }
    if (error && previous?.last_error !== error) {
      this.options.logger.warn(
        { source: source.name, url: new URL(url).origin },
        `rates: ${source.label} failed: ${error}`,
      );
    } else if (!error && previous?.last_error) {
      this.options.logger.info({ source: source.name }, `rates: ${source.label} answers again`);
    }
    return error === null;
  }

  /** Loads every source's values and status from the database (all nodes' reads). */
  private async reload(): Promise<void> {
    if (this.stopped) return;
    const [quotes, statuses] = await Promise.all([
      this.repository.allQuotes(),
      this.repository.allStatuses(),
    ]);
    const values = new Map<string, { kind: 'fiat' | 'asset'; values: BoardValue[] }>();
    for (const quote of quotes) {
      const label = this.labels.get(quote.source);
      // A source this node no longer reads (turned off) does not price here.
      if (!label) continue;
      let forCode = values.get(quote.code);
      if (!forCode) {
        forCode = { kind: quote.kind, values: [] };
        values.set(quote.code, forCode);
      }
      forCode.values.push({
        source: quote.source,
        label,
        usdPerUnit: quote.usd_per_unit,
        asOf: quote.as_of,
        freshUntil: quote.fresh_until,
      });
    }
    for (const forCode of values.values()) forCode.values.sort((a, b) => a.source.localeCompare(b.source));
    this.values = values;
    this.statuses = new Map(statuses.map((status) => [status.source, status]));
    this.entries = new Map();
  }

  /** GET with the request timeout; a non-2xx answer or an oversized body is an error. */
  private readonly fetchText: FetchText = async (url) => {
    // A timer of our own: on Node 20, an AbortSignal.timeout() inside AbortSignal.any() is lost
    // to garbage collection before it fires (a silent source then hung its reader for good; seen
    // in a long test run, reproduced with --expose-gc), and a read that never ends is never retried.
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.options.requestTimeoutMs);
    const stop = () => controller.abort();
    this.aborter.signal.addEventListener('abort', stop, { once: true });
    const origin = new URL(url).origin;
    try {
      const response = await fetch(url, {
        signal: controller.signal,
        headers: { accept: 'application/json, application/xml, text/xml' },
      });
      if (!response.ok) {
        await response.body?.cancel();
        throw new Error(`${origin} answered HTTP ${response.status}`);
      }
      // The body is read under the same timer: a source that trickles is as late as one that is silent.
      const text = await response.text();
      if (text.length > MAX_ANSWER_BYTES)
        throw new Error(`${origin}: answer larger than ${MAX_ANSWER_BYTES} bytes`);
      return text;
    } catch (error) {
      if (timedOut) throw new Error(`${origin}: no answer within ${this.options.requestTimeoutMs} ms`);
      if ((error as Error).message.startsWith(origin)) throw error;
      throw new Error(
        `${origin}: ${(error as Error & { cause?: Error }).cause?.message ?? (error as Error).message}`,
      );
    } finally {
      clearTimeout(timer);
      this.aborter.signal.removeEventListener('abort', stop);
    }
  };
}

/** An AbortController whose signal takes a listener per read under way without a leak warning. */
function abortControllerForManyReads(): AbortController {
  const controller = new AbortController();
  setMaxListeners(64, controller.signal);
  return controller;
}
