import type { Logger } from 'pino';
import type { RefundRow } from '../../db/refund-repository.js';
import type { RefundPayments } from '../../domain/refund-payments.js';
import { RefundTransfersOfNetwork, storeRefundTransfer } from '../refund-transfer-settlement.js';
import { type DecodedTransaction, scriptHex } from './bitcoin-blocks.js';
import { scriptOfAddress } from './bitcoin-keys.js';
import { BITCOIN_DECIMALS, blockColumnsOf, type Placement } from './bitcoin-payments.js';

/** How much earlier than the address confirmation a paying block's time may be (miners' clocks). */
const CLOCK_SLACK_MS = 2 * 3_600_000;

/**
 * Bitcoin refunds (docs/refunds.md, docs/bitcoin.md "Refunds"): the merchant pays the BIP21 request
 * of a refund to the buyer's confirmed address. The watcher looks for outputs to those addresses in
 * the blocks and mempool it reads anyway, so open refunds cost no node call; an output of the
 * refund's exact amount pays it once it has the confirmations a payment needs.
 */
export class BitcoinRefundTransfers extends RefundTransfersOfNetwork {
  /** Payable refunds by their address's output script, refreshed each poll. */
  private byScript = new Map<string, RefundRow>();

  constructor(
    payments: RefundPayments,
    private readonly clock: () => Date,
    logger: Logger,
  ) {
    super(
      'BITCOIN',
      payments,
      logger,
      'a refund transfer left the mempool (replaced or dropped) or its block left the chain before it was confirmed; forgetting it',
    );
  }

  /** Reads the refunds awaiting a payment on Bitcoin. */
  async refresh(): Promise<void> {
    const scripts = new Map<string, RefundRow>();
    for (const refund of await this.payments.payable('BITCOIN')) {
      if (!refund.address) continue;
      try {
        scripts.set(scriptHex(scriptOfAddress(refund.address, 'main')), refund);
      } catch (error) {
        this.logger.error(
          { refundId: refund.refund_id, err: (error as Error).message },
          'a Bitcoin refund address does not decode; its payment cannot be seen',
        );
      }
    }
    this.byScript = scripts;
  }

  /**
   * Records the outputs of `transaction` to a payable refund's address, each once.
   * @returns whether any output goes to one.
   */
  async record(transaction: DecodedTransaction, placement: Placement): Promise<boolean> {
    if (this.byScript.size === 0) return false;
    let matched = false;
    for (const output of transaction.outputs) {
      const refund = this.byScript.get(scriptHex(output.script));
      if (!refund) continue;
      matched = true;
      await storeRefundTransfer(this.payments, this.logger, refund, {
        network: 'BITCOIN',
        tx_hash: transaction.txid,
        log_index: output.index,
        ...blockColumnsOf(placement),
        from_address: '',
        recorded_at: this.clock().toISOString(),
        baseUnits: output.sats,
        decimals: BITCOIN_DECIMALS,
        clockSlackMs: CLOCK_SLACK_MS,
      });
    }
    return matched;
  }
}
