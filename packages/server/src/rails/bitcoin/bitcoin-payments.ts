import { scaledToDecimal } from '@cryptocheckout/core';
import type { Insertable } from 'kysely';
import type { Logger } from 'pino';
import type { BitcoinRepository, BitcoinScriptRow } from '../../db/bitcoin-repository.js';
import type { LiveRailRepository } from '../../db/live-rail-repository.js';
import type { ChainTransfersTable } from '../../db/schema.js';
import { ChainTransferBooking } from '../chain-transfer-booking.js';
import type { PaymentSink } from '../payment-rail-provider.js';
import {
  type DecodedTransaction,
  isDataCarrier,
  scriptHex,
  type TransactionOutput,
} from './bitcoin-blocks.js';

/** Bitcoin's decimals: amounts are whole satoshis everywhere, shown as BTC with 8 decimals. */
export const BITCOIN_DECIMALS = 8;

/** Where a transaction was seen: in a block of the active chain, or only in the mempool. */
export type Placement =
  | { mined: true; height: number; hash: string; time: Date }
  | { mined: false; seenAt: Date };

/**
 * The block columns of a transfer seen at `placement`: block number 0 and an empty hash while it is
 * only in the mempool, and the time it was seen then.
 */
export function blockColumnsOf(placement: Placement) {
  return {
    block_number: placement.mined ? String(placement.height) : '0',
    block_hash: placement.mined ? placement.hash : '',
    block_time: (placement.mined ? placement.time : placement.seenAt).toISOString(),
  };
}

/**
 * Decides what each output of a transaction to a watched script is, and books it once: a payment of
 * the checkout its derived address was handed out for (any amount), a payment of the checkout
 * holding its exact amount at a plain merchant address, or a transfer kept for the operator with
 * the reason. docs/bitcoin.md "Finding payments".
 */
export class BitcoinPaymentRecorder {
  private readonly booking: ChainTransferBooking;

  constructor(
    private readonly transfers: LiveRailRepository,
    private readonly scripts: BitcoinRepository,
    sink: PaymentSink,
    private readonly clock: () => Date,
    logger: Logger,
  ) {
    this.booking = new ChainTransferBooking(transfers, sink, logger);
  }

  /** The output scripts of transactions, as the watched-script lookup takes them. */
  static scriptsOf(transactions: readonly DecodedTransaction[]): string[] {
    return transactions.flatMap((transaction) =>
      transaction.outputs
        .filter((output) => !isDataCarrier(output.script))
        .map((output) => scriptHex(output.script)),
    );
  }

  /**
   * Books the outputs of `transaction` paying `watched` scripts that were not booked before.
   * @returns how many outputs were stored now, and whether any output pays a watched script.
   */
  async record(
    transaction: DecodedTransaction,
    placement: Placement,
    watched: ReadonlyMap<string, readonly BitcoinScriptRow[]>,
  ): Promise<{ stored: number; matched: boolean }> {
    let stored = 0;
    let matched = false;
    for (const output of transaction.outputs) {
      const rows = watched.get(scriptHex(output.script));
      if (!rows) continue;
      matched = true;
      const key = { network: 'BITCOIN', txHash: transaction.txid, logIndex: output.index };
      if (await this.transfers.isKnown(key)) continue;
      await this.book(this.rowOf(transaction, output, rows[0]!, placement), rows, output.sats);
      stored++;
    }
    return { stored, matched };
  }

  /**
   * An output to a plain address is the checkout holding its exact amount there; else, when the
   * script was also derived for a checkout (the same key's address entered alone elsewhere), that
   * checkout's; else kept for the operator.
   */
  private async book(
    row: Insertable<ChainTransfersTable>,
    scripts: readonly BitcoinScriptRow[],
    sats: bigint,
  ): Promise<void> {
    const derived = scripts.find(
      (script) => script.transaction_code !== null && script.payment_method !== null,
    );
    for (const plain of scripts.filter((script) => script.transaction_code === null)) {
      const holder = await this.transfers.holderOf(
        { network: 'BITCOIN', asset: 'BTC', walletAddress: plain.wallet_id },
        sats,
        row.block_time!,
      );
      if (holder) {
        await this.booking.countAsPayment(
          row,
          holder.transactionCode,
          holder.paymentMethod,
          (message) =>
            `Checkout ${holder.transactionCode} asks for this amount but refused the payment: ${message}`,
        );
        return;
      }
    }
    if (!derived) {
      await this.booking.keep(row, `No open checkout asks for exactly ${row.amount} BTC to this address.`);
      return;
    }
    const code = derived.transaction_code!;
    await this.booking.countAsPayment(
      { ...row, transaction_code: code },
      code,
      derived.payment_method!,
      (message) => `Checkout ${code} was paid at its own address but refused the payment: ${message}`,
    );
    if (derived.derivation_index !== null)
      await this.scripts.markIndexPaid(derived.wallet_id, derived.derivation_index);
  }

  private rowOf(
    transaction: DecodedTransaction,
    output: TransactionOutput,
    script: BitcoinScriptRow,
    placement: Placement,
  ): Insertable<ChainTransfersTable> {
    return {
      network: 'BITCOIN',
      tx_hash: transaction.txid,
      log_index: output.index,
      ...blockColumnsOf(placement),
      token_contract: '',
      asset: 'BTC',
      // Inputs name the outputs they spend, not addresses: the sender is not known without more lookups.
      from_address: '',
      to_address: script.address,
      amount: scaledToDecimal(output.sats, BITCOIN_DECIMALS),
      transaction_code: null,
      payment_id: null,
      unmatched_reason: null,
      confirmed: 0,
      recorded_at: this.clock().toISOString(),
    };
  }
}
