import type { Logger } from 'pino';
import type { Block } from 'viem';
import type { ChainTransferRow, LiveRailRepository } from '../../db/live-rail-repository.js';
import { ChainTransferBooking } from '../chain-transfer-booking.js';
import type { PaymentSink } from '../payment-rail-provider.js';
import type { EvmNetworkConfig } from './evm-networks.js';

/**
 * Confirms recorded transfers once `confirmations` blocks hold them and their block is still on the
 * chain, and takes back those whose block has left it (the payment goes, and the checkout returns
 * to the state its other payments give it). docs/live-mode.md "The watcher", steps 4 and 5.
 */
export class TransferConfirmer {
  private readonly booking: ChainTransferBooking;

  constructor(
    private readonly config: EvmNetworkConfig,
    private readonly repository: LiveRailRepository,
    sink: PaymentSink,
    private readonly blockAt: (blockNumber: bigint) => Promise<Block | undefined>,
    logger: Logger,
  ) {
    this.booking = new ChainTransferBooking(repository, sink, logger);
  }

  /** Confirms the transfers deep enough below `head`, retracting those whose block is gone. */
  async confirmOrRetract(head: bigint): Promise<void> {
    const waiting = await this.repository.unconfirmedTransfers(this.config.network);
    const headers = new Map<bigint, Block | undefined>();
    for (const transfer of waiting) {
      const blockNumber = BigInt(String(transfer.block_number));
      const deep = head - blockNumber + 1n >= BigInt(this.config.confirmations);
      if (!deep) continue;
      if (!headers.has(blockNumber)) headers.set(blockNumber, await this.blockAt(blockNumber));
      if (headers.get(blockNumber)?.hash !== transfer.block_hash) {
        await this.retract(transfer);
        continue;
      }
      await this.confirm(transfer);
    }
  }

  /** Retracts every unconfirmed transfer whose block left the chain (after a reorganisation). */
  async retractOrphans(): Promise<void> {
    for (const transfer of await this.repository.unconfirmedTransfers(this.config.network)) {
      const header = await this.blockAt(BigInt(String(transfer.block_number)));
      if (header?.hash !== transfer.block_hash) await this.retract(transfer);
    }
  }

  /** `address:token` keys of deposits still confirming: their address waits to be forwarded. */
  async confirmingDeposits(): Promise<Set<string>> {
    const waiting = await this.repository.unconfirmedTransfers(this.config.network);
    return new Set(
      waiting
        .filter((transfer) => transfer.deposit === 1)
        .map((transfer) => `${transfer.to_address}:${transfer.token_contract}`),
    );
  }

  private confirm(transfer: ChainTransferRow): Promise<void> {
    return this.booking.confirm(transfer);
  }

  private retract(transfer: ChainTransferRow): Promise<void> {
    return this.booking.retract(transfer, 'transfer left the chain in a reorganisation; un-counting it');
  }
}
