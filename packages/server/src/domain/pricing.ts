import {
  compareDecimals,
  decimalToScaled,
  divideDecimals,
  fiatMinorUnits,
  multiplyDecimals,
  normalizeFiatAmount,
  type PaymentOption,
  parseDecimal,
  subtractDecimalsAtLeastZero,
  toMinorUnits,
} from '@cryptocheckout/core';
import type { Logger } from 'pino';
import type { AssetRateLockRepository } from '../db/asset-rate-lock-repository.js';
import type { PaymentRow, TransactionRow } from '../db/transaction-repository.js';
import { quoteDecimals, RAILS, type Rail } from '../rails/catalog.js';
import type { MerchantWallet, PaymentRailProvider } from '../rails/payment-rail-provider.js';
import { STABLECOINS } from '../rates/rate-board.js';
import { type RateProvider, RateUnavailableError, type UsdQuote } from '../rates/rate-provider.js';
import { assertWithinUsdLimit } from './limits.js';
import { ServiceProblem } from './service-problem.js';
import { confirmedUsd } from './status.js';

/** A fiat amount converted to USD at the rate it was locked at, with where that rate came from. */
export interface PricedAmount {
  /** USD, 2 decimals, at least 0.01. */
  amountInUsd: string;
  /** USD per unit of the fiat currency, spread included, and its sources. */
  quote: UsdQuote;
}

/**
 * Prices orders and rails: fiat to USD at a locked rate, USD to each rail's asset. A volatile asset
 * (BTC, ETH, SOL) is priced, for a checkout, at the price it was first quoted at by that rail, held
 * for the checkout's window (docs/rates.md "Asset prices held").
 */
export class Pricing {
  constructor(
    private readonly rates: RateProvider,
    private readonly rails: PaymentRailProvider,
    private readonly logger: Logger,
    private readonly locks?: AssetRateLockRepository,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * Holds the asset's current price for a checkout and rail, unless it was held already (then that
   * one): called when the buyer is first given instructions. Stablecoins count at par and hold nothing.
   * @throws ServiceProblem `unavailable` when there is no price to hold.
   */
  async holdAssetPrice(transactionCode: string, rail: Rail): Promise<void> {
    if (!this.locks || rail.kind !== 'crypto' || STABLECOINS.has(rail.asset!)) return;
    if (await this.locks.lockOf(transactionCode, rail.slug)) return;
    await this.locks.lock({
      transaction_code: transactionCode,
      payment_method: rail.slug,
      asset: rail.asset!,
      usd_per_unit: await this.usdPerUnit(rail.asset!),
      locked_at: this.clock().toISOString(),
    });
  }

  /**
   * USD per unit a payment of a checkout by a crypto rail is worth: the held price when the buyer
   * was quoted one, else the current one.
   * @throws ServiceProblem `unavailable` without either.
   */
  async paymentPrice(transactionCode: string, rail: Rail): Promise<string> {
    return (await this.locks?.lockOf(transactionCode, rail.slug)) ?? (await this.assetPrice(rail));
  }

  /**
   * A request's fiat amount in canonical form (the currency's minor units).
   * @throws ServiceProblem `invalid_request` naming `fiat_amount` or `fiat_currency`.
   */
  checkedFiatAmount(fiatAmount: unknown, fiatCurrency: string): string {
    try {
      const amount = normalizeFiatAmount(fiatAmount, fiatCurrency);
      if (toMinorUnits(amount, fiatCurrency) <= 0n) {
        throw new ServiceProblem('invalid_request', 'fiat_amount must be greater than 0.', 'fiat_amount');
      }
      return amount;
    } catch (error) {
      if (error instanceof ServiceProblem) throw error;
      const code = (error as { code?: string }).code;
      const field = code === 'unsupported_currency' ? 'fiat_currency' : 'fiat_amount';
      throw new ServiceProblem('invalid_request', `${field}: ${(error as Error).message}`, field);
    }
  }

  /**
   * Converts a fiat amount to USD at the current rate, which the checkout then keeps.
   * @throws ServiceProblem `unavailable` (503) naming the currency when it has no fresh rate,
   *   `invalid_request` without any rate or over the USD limit.
   */
  async lockRate(fiatAmount: string, fiatCurrency: string): Promise<PricedAmount> {
    const quote = await this.rates.fiatToUsd(fiatCurrency).catch((error: unknown) => {
      if (error instanceof RateUnavailableError) {
        throw new ServiceProblem('unavailable', error.message, 'fiat_currency');
      }
      this.logger.error({ err: error, fiatCurrency }, 'rate source failed');
      throw new ServiceProblem('unavailable', 'The exchange-rate source is unavailable; try again shortly.');
    });
    if (!quote) {
      throw new ServiceProblem('invalid_request', `No exchange rate for ${fiatCurrency}.`, 'fiat_currency');
    }
    // USD amounts have 2 decimals, rounded half up; a positive order is never priced at 0.
    const converted = multiplyDecimals(fiatAmount, quote.usdPerUnit, 2, 'half_up');
    assertWithinUsdLimit(converted, 'fiat_amount', `fiat_amount ${fiatAmount} ${fiatCurrency}`);
    const amountInUsd = maxDecimal(converted, '0.01');
    return { amountInUsd, quote };
  }

  /** USD per unit of a crypto rail's asset. @throws ServiceProblem `unavailable` without a price. */
  async assetPrice(rail: Rail): Promise<string> {
    return this.usdPerUnit(rail.asset!);
  }

  /**
   * USD per unit of `asset` now, for what was received or is paid back. A stablecoin counts at par:
   * it was charged at par, and a payment that arrives while its market is stale or under the floor
   * must still count as what the buyer was asked to send (docs/rates.md "Stablecoins").
   * @throws ServiceProblem `unavailable` when the rate source has no price.
   */
  async usdPerUnit(asset: string): Promise<string> {
    if (STABLECOINS.has(asset)) return '1';
    const quote = await this.rates.assetToUsd(asset).catch((error: unknown) => {
      if (error instanceof RateUnavailableError) throw new ServiceProblem('unavailable', error.message);
      return undefined;
    });
    if (!quote) {
      throw new ServiceProblem('unavailable', `No price for ${asset} right now; try again shortly.`);
    }
    return quote.usdPerUnit;
  }

  /**
   * Prices rails for what a transaction still owes: the whole order before any payment (and once
   * nothing is left), else the rest, in USD and in the order's currency at the locked rate. Given
   * the payments, the rest is taken from their exact sum (each valued to 8 decimals), so a top-up of
   * what is asked never overshoots by the cent `received_usd` rounds away; `dueUsd` shows it in
   * whole cents, rounded up.
   */
  async priceWhatIsDue(
    row: TransactionRow,
    rails: readonly Rail[] = RAILS,
    payments?: readonly PaymentRow[],
  ) {
    const wallet = walletOf(row);
    const received = payments ? confirmedUsd(payments, this.clock().toISOString()) : row.received_usd;
    const rest = subtractDecimalsAtLeastZero(row.amount_in_usd, received);
    const partlyPaid = compareDecimals(rest, '0') > 0 && compareDecimals(rest, row.amount_in_usd) < 0;
    const exactDueUsd = partlyPaid ? rest : row.amount_in_usd;
    const dueUsd = partlyPaid ? multiplyDecimals(rest, '1', 2, 'up') : row.amount_in_usd;
    const dueFiat = partlyPaid
      ? divideDecimals(rest, row.usd_rate, fiatMinorUnits(row.fiat_currency), 'up')
      : row.fiat_amount;
    const held = (await this.locks?.locksOf(row.transaction_code)) ?? new Map<string, string>();
    return {
      dueUsd,
      exactDueUsd,
      options: await this.priceRails(dueUsd, dueFiat, row.fiat_currency, rails, wallet, held, exactDueUsd),
    };
  }

  /**
   * Each rail's amount for a USD amount (fiat rails: the fiat amount) and whether it is payable,
   * for the merchant's wallet when known; an unavailable rail carries the reason.
   */
  async priceRails(
    amountUsd: string,
    fiatAmount: string,
    fiatCurrency: string,
    rails: readonly Rail[] = RAILS,
    wallet?: MerchantWallet,
    /** Prices held for this checkout, by payment method: they stand in for the market's. */
    held: ReadonlyMap<string, string> = new Map(),
    /** The USD a crypto amount is computed from when it is finer than whole cents (a rest after payments). */
    exactUsd: string = amountUsd,
  ): Promise<PaymentOption[]> {
    const usdCents = decimalToScaled(amountUsd, 2);
    const assets = [...new Set(rails.flatMap((rail) => (rail.kind === 'crypto' ? [rail.asset!] : [])))];
    const quotes = new Map(
      await Promise.all(
        assets.map(
          async (asset) =>
            [
              asset,
              // A refusal (stale, or a stablecoin under its floor) is the buyer's reason on the page.
              await this.rates
                .assetToUsd(asset)
                .catch((error: unknown) =>
                  error instanceof RateUnavailableError ? error.message : undefined,
                ),
            ] as const,
        ),
      ),
    );
    return rails.map((rail) => {
      const bounds = railBoundsInCents(rail);
      const withinBounds = usdCents >= bounds.min && usdCents <= bounds.max;
      const heldPrice = held.get(rail.slug);
      const answer =
        rail.kind !== 'crypto' ? undefined : heldPrice ? { usdPerUnit: heldPrice } : quotes.get(rail.asset!);
      const quote = typeof answer === 'object' ? answer : undefined;
      const refusal = typeof answer === 'string' ? answer : undefined;
      const priced = rail.kind === 'fiat' || quote !== undefined;
      const amount =
        rail.kind === 'fiat'
          ? fiatAmount
          : quote
            ? divideDecimals(exactUsd, quote.usdPerUnit, quoteDecimals(rail), 'up')
            : '0';
      const offered = this.rails.availability(rail, wallet);
      const reason = !offered.available
        ? offered.reason
        : !withinBounds
          ? `Not offered for ${amountUsd} USD: this rail takes ${rail.minUsd}–${rail.maxUsd} USD.`
          : !priced
            ? (refusal ?? `Not offered right now: no price for ${rail.asset}.`)
            : undefined;
      return {
        slug: rail.slug,
        name: rail.name,
        kind: rail.kind,
        asset: rail.asset ?? fiatCurrency,
        network: rail.network,
        amount: parseDecimal(amount),
        amount_usd: Number(amountUsd),
        min_usd: Number(rail.minUsd),
        max_usd: Number(rail.maxUsd),
        available: reason === undefined,
        ...(reason === undefined ? {} : { unavailable_reason: reason }),
      };
    });
  }
}

const boundsCache = new WeakMap<Rail, { min: bigint; max: bigint }>();

/** A rail's USD bounds as integer cents, computed once per rail. */
function railBoundsInCents(rail: Rail): { min: bigint; max: bigint } {
  let bounds = boundsCache.get(rail);
  if (!bounds) {
    bounds = { min: decimalToScaled(rail.minUsd, 2), max: decimalToScaled(rail.maxUsd, 2) };
    boundsCache.set(rail, bounds);
  }
  return bounds;
}

/** The merchant wallet a transaction pays to. */
export function walletOf(row: TransactionRow): MerchantWallet {
  return { address: row.wallet_address, asset: row.wallet_currency, network: row.wallet_network };
}

/** The larger of two decimal strings. */
export function maxDecimal(a: string, b: string): string {
  return compareDecimals(a, b) >= 0 ? a : b;
}
