import type { Logger } from 'pino';
import type { Block } from 'viem';
import type { RefundRow, RefundTransferRow } from '../../db/refund-repository.js';
import type { RefundPayments } from '../../domain/refund-payments.js';
import {
  confirmRefundTransfer,
  forgetRefundTransfer,
  storeRefundTransfer,
} from '../refund-transfer-settlement.js';
import type { EvmNetworkConfig } from './evm-networks.js';
import type { TransferLog } from './transfer-logs.js';
import type { ObservedTransfer } from './transfer-recorder.js';

/**
 * How much earlier than the address confirmation a paying block may be stamped: block times are
 * whole seconds set by the block's producer, not the server's clock.
 */
const CLOCK_SLACK_MS = 120_000;

/**
 * Live mode: the merchant's transfers that pay refunds (docs/refunds.md "Paying it"). The addresses
 * buyers confirmed are watched like the shop's wallets; a transfer of the refund's asset to one is
 * recorded once, and once it is `confirmations` deep and still on the chain, pays the refund if its
 * amount is the refund's exact amount and its block came after the address was confirmed (within
 * {@link CLOCK_SLACK_MS} of the server's clock). A transfer whose
 * block leaves the chain before that is forgotten, so a reorganisation never pays a refund twice.
 */
export class RefundTransfers {
  /** Refunds a transfer may pay, by lowercase address, as of the last {@link recipients} call. */
  private payable = new Map<string, RefundRow[]>();

  constructor(
    private readonly config: EvmNetworkConfig,
    private readonly payments: RefundPayments,
    private readonly clock: () => Date,
    private readonly logger: Logger,
  ) {}

  /** The confirmed refund addresses to watch (lowercase), read fresh for each scan. */
  async recipients(): Promise<string[]> {
    const refunds = await this.payments.payable(this.config.network);
    this.payable = new Map();
    for (const refund of refunds) {
      if (!refund.address || !this.tokenOf(refund)) continue;
      const key = refund.address.toLowerCase();
      this.payable.set(key, [...(this.payable.get(key) ?? []), refund]);
    }
    return [...this.payable.keys()];
  }

  /** The logs among `logs` that go to a watched refund address. */
  own<Log extends TransferLog>(logs: readonly Log[]): Log[] {
    return logs.filter((log) => this.payable.has(log.to));
  }

  /** Records the transfers of a scanned range that go to a refund address; each once. */
  async record(transfers: readonly ObservedTransfer[]): Promise<void> {
    for (const transfer of transfers) {
      for (const refund of this.payable.get(transfer.to) ?? []) {
        const token = this.tokenOf(refund);
        if (token?.contract !== transfer.token.contract) continue;
        const recorded = await storeRefundTransfer(this.payments, this.logger, refund, {
          network: this.config.network,
          tx_hash: transfer.txHash,
          log_index: transfer.logIndex,
          block_number: transfer.blockNumber.toString(),
          block_hash: transfer.blockHash,
          block_time: transfer.blockTime.toISOString(),
          from_address: transfer.from,
          recorded_at: this.clock().toISOString(),
          baseUnits: transfer.value,
          decimals: token.decimals,
          clockSlackMs: CLOCK_SLACK_MS,
        });
        // A transfer pays at most one refund, the oldest it matches.
        if (recorded) break;
      }
    }
  }

  /** Confirms recorded transfers deep enough below `head`, forgetting those whose block left the chain. */
  async confirmOrRetract(
    head: bigint,
    blockAt: (blockNumber: bigint) => Promise<Block | undefined>,
  ): Promise<void> {
    const repository = this.payments.refunds.repository;
    for (const transfer of await repository.unconfirmedTransfers(this.config.network)) {
      const blockNumber = BigInt(String(transfer.block_number));
      if (head - blockNumber + 1n < BigInt(this.config.confirmations)) continue;
      if ((await blockAt(blockNumber))?.hash !== transfer.block_hash) {
        await this.forget(transfer);
        continue;
      }
      await this.confirm(transfer);
    }
  }

  /** Forgets every unconfirmed transfer whose block left the chain (after a reorganisation). */
  async retractOrphans(blockAt: (blockNumber: bigint) => Promise<Block | undefined>): Promise<void> {
    for (const transfer of await this.payments.refunds.repository.unconfirmedTransfers(this.config.network)) {
      if ((await blockAt(BigInt(String(transfer.block_number))))?.hash !== transfer.block_hash) {
        await this.forget(transfer);
      }
    }
  }

  private confirm(transfer: RefundTransferRow): Promise<void> {
    return confirmRefundTransfer(this.payments, transfer);
  }

  private forget(transfer: RefundTransferRow): Promise<void> {
    return forgetRefundTransfer(
      this.payments,
      transfer,
      this.logger,
      'a refund transfer left the chain in a reorganisation; forgetting it',
    );
  }

  private tokenOf(refund: RefundRow) {
    return this.config.tokens.find((token) => token.asset === refund.asset);
  }
}
