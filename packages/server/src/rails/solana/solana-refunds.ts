import type { Logger } from 'pino';
import type { RefundRow } from '../../db/refund-repository.js';
import type { RefundPayments } from '../../domain/refund-payments.js';
import { RefundTransfersOfNetwork, storeRefundTransfer } from '../refund-transfer-settlement.js';
import { associatedTokenAccount, refundReference } from './solana-addresses.js';
import type { SolanaNetworkConfig } from './solana-network.js';
import type { SolanaRpc } from './solana-rpc.js';
import { feePayerOf, lamportsReceived, succeeded, tokensReceived } from './solana-transactions.js';

/** How much earlier than the address confirmation a paying transaction's block time may be (producers' clocks). */
const CLOCK_SLACK_MS = 120_000;

/** Signatures asked for per refund reference: a refund is paid by one transfer, a few at most. */
const SIGNATURES_PER_REFUND = 20;

/**
 * Solana refunds (docs/refunds.md, docs/solana.md "Refunds"): the merchant pays the Solana Pay request
 * of a refund, which carries the refund's own reference. Each refund awaiting payment is looked up
 * by its reference (one call per open refund); a transfer crediting the buyer's confirmed address
 * (its associated token account for a token) with the exact amount pays the refund once final.
 */
export class SolanaRefundTransfers extends RefundTransfersOfNetwork {
  constructor(
    private readonly config: SolanaNetworkConfig,
    private readonly rpc: SolanaRpc,
    payments: RefundPayments,
    private readonly clock: () => Date,
    logger: Logger,
  ) {
    super(
      'SOLANA',
      payments,
      logger,
      'a refund transfer was dropped before the cluster finalized it; forgetting it',
    );
  }

  /** Looks for new transfers carrying a payable refund's reference and records each once. */
  async poll(): Promise<void> {
    const repository = this.payments.refunds.repository;
    for (const refund of await this.payments.payable('SOLANA')) {
      const asset = this.config.assets.find((each) => each.asset === refund.asset);
      if (!refund.address || !asset) continue;
      const known = new Set((await repository.transfersOf(refund.refund_id)).map((each) => each.tx_hash));
      const found = await this.rpc.getSignaturesForAddress(refundReference(refund.refund_id), {
        limit: SIGNATURES_PER_REFUND,
      });
      for (const entry of found) {
        if (entry.err !== null || known.has(entry.signature)) continue;
        const transaction = await this.rpc.getTransaction(entry.signature);
        if (!transaction || !succeeded(transaction)) continue;
        const account = asset.mint
          ? await associatedTokenAccount(refund.address, asset.mint)
          : refund.address;
        const received = asset.mint
          ? tokensReceived(transaction, account, asset.mint)
          : lamportsReceived(transaction, account);
        if (received === 0n) continue;
        await this.record(
          refund,
          entry.signature,
          transaction.slot,
          transaction.blockTime,
          received,
          asset.decimals,
          feePayerOf(transaction),
        );
      }
    }
  }

  private async record(
    refund: RefundRow,
    signature: string,
    slot: number,
    blockTime: number | null,
    received: bigint,
    decimals: number,
    from: string,
  ): Promise<void> {
    const time = blockTime === null ? this.clock() : new Date(blockTime * 1000);
    await storeRefundTransfer(this.payments, this.logger, refund, {
      network: 'SOLANA',
      tx_hash: signature,
      log_index: 0,
      block_number: String(slot),
      block_hash: '',
      block_time: time.toISOString(),
      from_address: from,
      recorded_at: this.clock().toISOString(),
      baseUnits: received,
      decimals,
      clockSlackMs: CLOCK_SLACK_MS,
    });
  }
}
