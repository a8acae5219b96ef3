import { scaledToDecimal } from '@cryptocheckout/core';
import type { Insertable } from 'kysely';
import type { Logger } from 'pino';
import type { DepositForwarderRow, DepositRepository } from '../../db/deposit-repository.js';
import type { LiveRailRepository } from '../../db/live-rail-repository.js';
import type { ChainTransfersTable } from '../../db/schema.js';
import { findRail } from '../catalog.js';
import { ChainTransferBooking } from '../chain-transfer-booking.js';
import type { PaymentSink } from '../payment-rail-provider.js';
import type { EvmNetworkConfig } from './evm-networks.js';
import { MAX_FILTERED_RECIPIENTS, type TransferLog } from './transfer-logs.js';

/** A `Transfer` log with its block's time. */
export type ObservedTransfer = TransferLog & { blockTime: Date };

/**
 * Decides what each observed transfer is and records it once: a payment of a direct-mode checkout
 * (its exact amount to the merchant's wallet), a deposit to a checkout's forwarder address (any
 * amount; counted when it is the asked asset and the checkout takes it), or a transfer kept for
 * the operator with the reason. docs/live-mode.md, docs/deposit-mode.md.
 */
export class TransferRecorder {
  /** Direct-mode wallets whose holds cover the range being scanned (lowercase). */
  private directWallets = new Set<string>();
  private readonly booking: ChainTransferBooking;

  constructor(
    private readonly config: EvmNetworkConfig,
    private readonly repository: LiveRailRepository,
    private readonly deposits: DepositRepository | undefined,
    sink: PaymentSink,
    private readonly clock: () => Date,
    logger: Logger,
  ) {
    this.booking = new ChainTransferBooking(repository, sink, logger);
  }

  /**
   * The recipients to ask the node about for blocks from `since` on: the direct-mode wallets with a
   * hold and the deposit addresses, or `'all'` (every transfer of the watched tokens, matched here)
   * once there are more than {@link MAX_FILTERED_RECIPIENTS}, so calls per block stay bounded.
   */
  async recipientsSince(since: string): Promise<string[] | 'all'> {
    const wallets = await this.repository.watchedWallets(this.config.network, since);
    this.directWallets = new Set(wallets);
    if (!this.deposits) return wallets;
    const count = await this.deposits.countForwarders(this.config.network, MAX_FILTERED_RECIPIENTS + 1);
    if (wallets.length + count > MAX_FILTERED_RECIPIENTS) return 'all';
    return [...wallets, ...(await this.deposits.forwarderAddresses(this.config.network))];
  }

  /**
   * The transfers among `logs` that go to a watched wallet or a deposit address: read before the
   * blocks' headers are fetched, so reading every transfer of a token costs no header per block.
   */
  async ownTransfers<Log extends TransferLog>(logs: readonly Log[]): Promise<Log[]> {
    const forwarders = this.deposits
      ? await this.deposits.forwardersAt(
          this.config.network,
          logs.map((log) => log.to),
        )
      : new Map<string, DepositForwarderRow>();
    return logs.filter((log) => this.directWallets.has(log.to) || forwarders.has(log.to));
  }

  /** Records the transfers of one scanned range, in chain order; each transfer once. */
  async recordAll(transfers: readonly ObservedTransfer[]): Promise<number> {
    const forwarders = this.deposits
      ? await this.deposits.forwardersAt(
          this.config.network,
          transfers.map((transfer) => transfer.to),
        )
      : new Map<string, DepositForwarderRow>();
    let recorded = 0;
    for (const transfer of transfers) {
      const forwarder = forwarders.get(transfer.to);
      if (!forwarder && !this.directWallets.has(transfer.to)) continue;
      const key = { network: this.config.network, txHash: transfer.txHash, logIndex: transfer.logIndex };
      if (await this.repository.isKnown(key)) continue;
      recorded++;
      if (forwarder) await this.recordDeposit(transfer, forwarder);
      else await this.recordDirect(transfer);
    }
    return recorded;
  }

  private rowOf(transfer: ObservedTransfer): Insertable<ChainTransfersTable> {
    return {
      network: this.config.network,
      tx_hash: transfer.txHash,
      log_index: transfer.logIndex,
      block_number: transfer.blockNumber.toString(),
      block_hash: transfer.blockHash,
      block_time: transfer.blockTime.toISOString(),
      token_contract: transfer.token.contract,
      asset: transfer.token.asset,
      from_address: transfer.from,
      to_address: transfer.to,
      amount: scaledToDecimal(transfer.value, transfer.token.decimals),
      transaction_code: null,
      payment_id: null,
      unmatched_reason: null,
      confirmed: 0,
      recorded_at: this.clock().toISOString(),
    };
  }

  /** Direct mode: a payment when an open checkout holds the exact amount, else kept unmatched. */
  private async recordDirect(transfer: ObservedTransfer): Promise<void> {
    const row = this.rowOf(transfer);
    const holder = await this.repository.holderOf(
      { network: this.config.network, asset: transfer.token.asset, walletAddress: transfer.to },
      transfer.value,
      row.block_time!,
    );
    if (!holder) {
      await this.keep(
        row,
        `No open checkout asks for exactly ${row.amount} ${transfer.token.asset} to this wallet.`,
      );
      return;
    }
    await this.countAsPayment(row, holder.transactionCode, holder.paymentMethod);
  }

  /**
   * Deposit mode: the money is at the checkout's own address, so it is the checkout's whatever the
   * amount. The asked asset counts as payment (and is forwarded); another token is kept for the
   * operator, never counted, and forwarded once the operator says so.
   */
  private async recordDeposit(transfer: ObservedTransfer, forwarder: DepositForwarderRow): Promise<void> {
    const row = { ...this.rowOf(transfer), deposit: 1, transaction_code: forwarder.transaction_code };
    const asked = findRail(forwarder.payment_method)?.asset;
    if (asked !== transfer.token.asset) {
      await this.keep(
        row,
        `${transfer.token.asset} arrived at the deposit address of checkout ${forwarder.transaction_code}, which asked for ${asked ?? 'another asset'}: not counted as payment; the operator can forward it to the merchant.`,
      );
      return;
    }
    await this.countAsPayment(
      { ...row, forward_approved: 1 },
      forwarder.transaction_code,
      forwarder.payment_method,
    );
  }

  private countAsPayment(
    row: Insertable<ChainTransfersTable>,
    transactionCode: string,
    paymentMethod: string,
  ): Promise<void> {
    return this.booking.countAsPayment(
      row,
      transactionCode,
      paymentMethod,
      (message) =>
        `Checkout ${transactionCode} ${row.deposit ? 'did not count this deposit' : 'asks for this amount but refused the payment'}: ${message}`,
    );
  }

  private keep(row: Insertable<ChainTransfersTable>, reason: string): Promise<void> {
    return this.booking.keep(row, reason);
  }
}
