import type { PaymentLink } from '@cryptocheckout/core';
import type { TransactionRepository, TransactionRow } from '../db/transaction-repository.js';
import { findRail, type Rail } from '../rails/catalog.js';
import { type PaymentRailProvider, RailUnavailable } from '../rails/payment-rail-provider.js';
import { paymentUri } from '../rails/payment-uri.js';
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
  ) {}

  /**
   * The `GET /payment_link` data for a transaction as it stands (docs/api.md).
   * @throws ServiceProblem `invalid_request` for an unknown rail, `conflict` when settled or expired,
   *   `unprocessable` when the rail cannot take the amount due.
   */
  async forRail(row: TransactionRow, paymentMethod: string): Promise<PaymentLink> {
    const rail = findRail(paymentMethod);
    if (!rail) {
      throw new ServiceProblem(
        'invalid_request',
        `payment_method "${paymentMethod}" is not a rail of this service; see GET /payment_options for the slugs.`,
        'payment_method',
      );
    }
    assertPayable(row, this.clock().toISOString());
    const { dueUsd, options } = await this.pricing.priceWhatIsDue(row, [rail]);
    const option = options[0]!;
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
    const request = await this.rails
      .paymentRequest({
        transactionCode: row.transaction_code,
        rail,
        wallet: walletOf(row),
        dueAmount: option.amount,
        holdUntil: row.monitor_until,
      })
      .catch((error: unknown) => {
        if (error instanceof RailUnavailable) throw new ServiceProblem('unavailable', error.message);
        throw error;
      });
    const address = await this.depositAddress(row.transaction_code, rail, request.address);
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
      ),
      expires_at: row.expires_at,
    };
  }

  /** The address handed out for this transaction and rail, the same on every call. */
  private async depositAddress(transactionCode: string, rail: Rail, address: string): Promise<string> {
    const existing = await this.repository.depositAddress(transactionCode, rail.slug);
    if (existing) return existing;
    await this.repository.saveDepositAddress(transactionCode, rail.slug, address, this.clock().toISOString());
    // A concurrent request may have stored its address first; the stored one is the one to pay.
    return (await this.repository.depositAddress(transactionCode, rail.slug)) ?? address;
  }
}
