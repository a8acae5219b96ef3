import { compareDecimals, divideDecimals, type PaymentLink, type PaymentOption } from '@cryptocheckout/core';
import type { PaymentRow, TransactionRepository, TransactionRow } from '../db/transaction-repository.js';
import { findRail, quoteDecimals, type Rail } from '../rails/catalog.js';
import { type PaymentRailProvider, RailUnavailable } from '../rails/payment-rail-provider.js';
import { paymentUri } from '../rails/payment-uri.js';
import { STABLECOINS } from '../rates/rate-board.js';
import type { NewHoldLimits } from './new-hold-limits.js';
import { type Pricing, walletOf } from './pricing.js';
import { ServiceProblem } from './service-problem.js';
import { assertPayable } from './transitions.js';

/** How a buyer pays what a transaction still owes by one rail: a deposit address or a card redirect. */
export class PaymentInstructions {
  constructor(
    private readonly repository: TransactionRepository,
    private readonly pricing: Pricing,
    private readonly rails: PaymentRailProvider,
    private readonly clock: () => Date,
    private readonly publicUrl: () => string,
    /** Live mode's door before direct mode's amount pool; none in sandbox mode. */
    private readonly newHoldLimits?: NewHoldLimits,
  ) {}

  /**
   * The `GET /payment_link` data for a transaction as it stands (docs/api.md).
   * @throws ServiceProblem `invalid_request` for an unknown rail, `conflict` when settled or expired,
   *   `unprocessable` when the rail cannot take the amount due, `rate_limited` when a new amount
   *   hold would exceed the client's or the price's limit ({@link NewHoldLimits}).
   * @param clientIp the caller's address, counted by the new-hold limits.
   */
  async forRail(
    row: TransactionRow,
    paymentMethod: string,
    clientIp?: string,
    /** The transaction's payments: what is still due is taken from their exact sum. */
    payments?: readonly PaymentRow[],
  ): Promise<PaymentLink> {
    const rail = findRail(paymentMethod);
    if (!rail) {
      throw new ServiceProblem(
        'invalid_request',
        `payment_method "${paymentMethod}" is not a rail of this service; see GET /payment_options for the slugs.`,
        'payment_method',
      );
    }
    assertPayable(row, this.clock().toISOString());
    // The buyer is about to be quoted: a volatile asset's price holds from now for the checkout's window.
    await this.pricing.holdAssetPrice(row.transaction_code, rail);
    const { dueUsd, exactDueUsd, options } = await this.pricing.priceWhatIsDue(row, [rail], payments);
    const wallet = walletOf(row);
    // Instructions handed out before are a repeat: the hold exists, the limits count none.
    const handedOut =
      rail.kind === 'crypto'
        ? await this.repository.depositAddress(row.transaction_code, rail.slug)
        : undefined;
    const option = keptAtPar(
      options[0]!,
      rail,
      dueUsd,
      exactDueUsd,
      handedOut !== undefined && this.rails.availability(rail, wallet).available,
    );
    if (!option.available) {
      throw new ServiceProblem(
        'unprocessable',
        `${rail.name} is not available for ${dueUsd} USD. ${option.unavailable_reason ?? ''}`.trim(),
        'payment_method',
      );
    }
    if (rail.kind === 'fiat') {
      return {
        kind: 'fiat',
        payment_method: rail.slug,
        redirect_url: this.rails.fiatRedirectUrl(row.transaction_code, rail, this.publicUrl()),
        expires_at: row.expires_at,
      };
    }
    if (!handedOut && this.newHoldLimits && this.rails.sharesAmountPool?.(wallet) === true) {
      // Direct mode: this call takes an amount from the wallet's pool until monitor_until.
      this.newHoldLimits.admit({
        clientIp,
        network: rail.network!,
        asset: rail.asset!,
        walletAddress: wallet.address,
        dueAmount: option.amount,
      });
    }
    const request = await this.rails
      .paymentRequest({
        transactionCode: row.transaction_code,
        rail,
        wallet,
        dueAmount: option.amount,
        holdUntil: row.monitor_until,
      })
      .catch((error: unknown) => {
        if (error instanceof RailUnavailable) throw new ServiceProblem('unavailable', error.message);
        throw error;
      });
    const address = handedOut ?? (await this.saveDepositAddress(row.transaction_code, rail, request.address));
    return {
      kind: 'crypto',
      payment_method: rail.slug,
      address,
      amount: request.amount,
      asset: rail.asset!,
      network: rail.network!,
      uri: paymentUri(
        rail.network!,
        rail.asset!,
        address,
        request.amount,
        'Crypto Checkout',
        this.rails.tokenOverride?.(rail),
        request.reference
          ? { reference: request.reference, message: `Order ${row.external_reference}` }
          : undefined,
      ),
      expires_at: row.expires_at,
    };
  }

  /** Stores the address handed out for this transaction and rail, which every later call repeats. */
  private async saveDepositAddress(transactionCode: string, rail: Rail, address: string): Promise<string> {
    await this.repository.saveDepositAddress(transactionCode, rail.slug, address, this.clock().toISOString());
    // A concurrent request may have stored its address first; the stored one is the one to pay.
    return (await this.repository.depositAddress(transactionCode, rail.slug)) ?? address;
  }
}

/**
 * A stablecoin rail the buyer already has instructions for stays payable at par when its price
 * is refused now (stale sources, or under the floor): the buyer may be paying this minute, and
 * the watcher counts what was asked (docs/rates.md "Stablecoins"). Any other option as it is.
 */
function keptAtPar(
  option: PaymentOption,
  rail: Rail,
  dueUsd: string,
  exactDueUsd: string,
  handedOutToThisWallet: boolean,
): PaymentOption {
  if (option.available || !handedOutToThisWallet || !rail.asset || !STABLECOINS.has(rail.asset))
    return option;
  const withinBounds = compareDecimals(dueUsd, rail.minUsd) >= 0 && compareDecimals(dueUsd, rail.maxUsd) <= 0;
  if (!withinBounds) return option;
  const { unavailable_reason: _refused, ...rest } = option;
  return { ...rest, amount: divideDecimals(exactDueUsd, '1', quoteDecimals(rail), 'up'), available: true };
}
