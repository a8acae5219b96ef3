import { scaledToDecimal } from '@cryptocheckout/core';
import type { Insertable } from 'kysely';
import type { Logger } from 'pino';
import type { LiveRailRepository } from '../../db/live-rail-repository.js';
import type { ChainTransfersTable } from '../../db/schema.js';
import type { SolanaReferenceRow, SolanaRepository } from '../../db/solana-repository.js';
import { findRail } from '../catalog.js';
import { ChainTransferBooking } from '../chain-transfer-booking.js';
import type { PaymentSink } from '../payment-rail-provider.js';
import { associatedTokenAccount } from './solana-addresses.js';
import type { SolanaAsset, SolanaNetworkConfig } from './solana-network.js';
import type { SolanaTransaction } from './solana-rpc.js';
import {
  accountKeysOf,
  feePayerOf,
  lamportsReceived,
  tokenArrivalsOf,
  tokensReceived,
} from './solana-transactions.js';

/** What one of the merchant's accounts received in a transaction, in an asset live mode takes. */
interface Receipt {
  asset: SolanaAsset;
  /** The account credited: the wallet for SOL, its associated token account for a token. */
  account: string;
  amount: bigint;
}

/**
 * Decides what a successful transaction found on a watched wallet is, as Solana Pay's validation
 * does, and books it once: a payment when it carries one checkout's reference and credits that
 * checkout's asset to the merchant's own account (the wallet for SOL, its associated token account
 * for a token), whatever the amount; otherwise, when it credits the merchant or names a checkout,
 * a transfer kept for the operator with the reason. docs/solana.md "Finding payments".
 */
export class SolanaPaymentRecorder {
  private readonly booking: ChainTransferBooking;

  constructor(
    private readonly config: SolanaNetworkConfig,
    private readonly transfers: LiveRailRepository,
    private readonly references: SolanaRepository,
    sink: PaymentSink,
    private readonly clock: () => Date,
    logger: Logger,
  ) {
    this.booking = new ChainTransferBooking(transfers, sink, logger);
  }

  /** Whether the transaction was booked already (by this node before a restart, or another node). */
  isKnown(signature: string): Promise<boolean> {
    return this.transfers.isKnown({ network: 'SOLANA', txHash: signature, logIndex: 0 });
  }

  /**
   * Books a successful transaction found on the watched merchant wallets (`wallets`: each with the
   * assets its open checkouts ask for); returns the number of rows stored. Each row is keyed by
   * signature and index, so a second look changes nothing.
   */
  async record(
    signature: string,
    transaction: SolanaTransaction,
    wallets: ReadonlyMap<string, ReadonlySet<string>>,
  ): Promise<number> {
    const keys = accountKeysOf(transaction);
    const references = await this.references.referencesAmong(keys);
    const rows: {
      row: Insertable<ChainTransfersTable>;
      book: (row: Insertable<ChainTransfersTable>) => Promise<void>;
    }[] = [];
    const base = this.baseRow(signature, transaction);
    // The checkouts this transaction names, each judged by what reached its merchant.
    const named = new Set<string>();
    for (const reference of references) {
      named.add(reference.wallet_address);
      const sameWallet = references.filter((each) => each.wallet_address === reference.wallet_address);
      const receipts = await this.receipts(transaction, reference.wallet_address);
      if (sameWallet.length > 1) {
        if (reference !== sameWallet[0]) continue;
        const codes = sameWallet.map((each) => each.transaction_code).join(', ');
        for (const receipt of receipts) {
          rows.push(
            this.kept(
              base,
              receipt,
              reference.wallet_address,
              `The transfer carries the references of several checkouts (${codes}); it is not counted for any of them.`,
            ),
          );
        }
        continue;
      }
      rows.push(...(await this.judged(base, transaction, reference, receipts)));
    }
    // Money that reached a watched wallet without naming any of its checkouts.
    for (const [wallet, assets] of wallets) {
      if (named.has(wallet)) continue;
      if (!keys.includes(wallet) && !(await this.touchesTokenAccounts(keys, wallet))) continue;
      for (const receipt of await this.receipts(transaction, wallet)) {
        // Only the assets its checkouts ask for: a SOL rent refund to a USDC merchant is not a payment attempt.
        if (!assets.has(receipt.asset.asset)) continue;
        rows.push(
          this.kept(
            base,
            receipt,
            wallet,
            `No open checkout's Solana Pay reference is in this transfer of ${this.amountText(receipt)} to the merchant's wallet.`,
          ),
        );
      }
    }
    let stored = 0;
    for (const [index, { row, book }] of rows.entries()) {
      await book({ ...row, log_index: index });
      stored++;
    }
    return stored;
  }

  /** A transaction naming `reference`: its payment when the checkout's asset reached the merchant, else kept. */
  private async judged(
    base: Insertable<ChainTransfersTable>,
    transaction: SolanaTransaction,
    reference: SolanaReferenceRow,
    receipts: Receipt[],
  ) {
    const rail = findRail(reference.payment_method);
    const code = reference.transaction_code;
    const wallet = reference.wallet_address;
    const paid = receipts.find((receipt) => receipt.asset.asset === rail?.asset);
    const rows = receipts
      .filter((receipt) => receipt !== paid)
      .map((receipt) =>
        this.kept(
          base,
          receipt,
          wallet,
          `The transfer carries the reference of checkout ${code}, which asked for ${rail?.asset ?? 'another asset'}, but brought ${this.amountText(receipt)}: not counted.`,
        ),
      );
    if (paid) {
      rows.unshift({
        row: this.rowFor(base, paid, wallet),
        book: (row) =>
          this.booking.countAsPayment(
            row,
            code,
            reference.payment_method,
            (message) =>
              `Checkout ${code} is named by this transfer's reference but refused the payment: ${message}`,
            this.config.commitment === 'confirmed' ? new Date(row.block_time) : null,
          ),
      });
      return rows;
    }
    // Named, but nothing of the asked asset reached the merchant: another mint, another recipient.
    const asked = this.config.assets.find((asset) => asset.asset === rail?.asset);
    const elsewhere = this.arrivalsElsewhere(transaction, wallet, asked);
    const what =
      elsewhere.length > 0 ? `it credited ${elsewhere.join(', ')}` : 'it moved nothing to the merchant';
    rows.unshift({
      row: {
        ...base,
        token_contract: asked?.mint ?? '',
        asset: rail?.asset ?? '',
        to_address: wallet,
        amount: '0',
        transaction_code: code,
      },
      book: (row) =>
        this.booking.keep(
          row,
          `The transfer carries the reference of checkout ${code} but pays no ${rail?.asset ?? ''} to the merchant's ${asked?.mint ? 'token account' : 'wallet'}: ${what}. Not counted.`,
        ),
    });
    return rows;
  }

  /** What the transaction credited in the asked asset to accounts other than the merchant's, and in other mints to the merchant. */
  private arrivalsElsewhere(
    transaction: SolanaTransaction,
    wallet: string,
    asked: SolanaAsset | undefined,
  ): string[] {
    const keys = accountKeysOf(transaction);
    const meta = transaction.meta;
    if (!meta) return [];
    const found: string[] = [];
    for (const arrival of tokenArrivalsOf(transaction, wallet)) {
      found.push(
        `${scaledToDecimal(arrival.amount, arrival.decimals)} of mint ${arrival.mint} to the merchant`,
      );
    }
    for (const after of meta.postTokenBalances ?? []) {
      if (after.owner === wallet || (asked?.mint !== undefined && after.mint !== asked.mint)) continue;
      const before =
        meta.preTokenBalances?.find((each) => each.accountIndex === after.accountIndex)?.uiTokenAmount
          .amount ?? '0';
      const gained = BigInt(after.uiTokenAmount.amount) - BigInt(before);
      if (gained > 0n)
        found.push(
          `${scaledToDecimal(gained, after.uiTokenAmount.decimals)} to ${after.owner ?? keys[after.accountIndex]}`,
        );
    }
    if (asked && !asked.mint) {
      const payer = feePayerOf(transaction);
      for (const key of keys) {
        if (key === wallet || key === payer) continue;
        const gained = lamportsReceived(transaction, key);
        if (gained > 0n) found.push(`${scaledToDecimal(gained, 9)} SOL to ${key}`);
      }
    }
    return found;
  }

  /** What the merchant's wallet and its associated token accounts received, per asset live mode takes. */
  private async receipts(transaction: SolanaTransaction, wallet: string): Promise<Receipt[]> {
    const receipts: Receipt[] = [];
    for (const asset of this.config.assets) {
      const account = asset.mint ? await associatedTokenAccount(wallet, asset.mint) : wallet;
      const amount = asset.mint
        ? tokensReceived(transaction, account, asset.mint)
        : // The buyer's own wallet paying fees is never "received": only a credit counts.
          lamportsReceived(transaction, account);
      if (amount > 0n) receipts.push({ asset, account, amount });
    }
    return receipts;
  }

  private async touchesTokenAccounts(keys: readonly string[], wallet: string): Promise<boolean> {
    for (const asset of this.config.assets) {
      if (asset.mint && keys.includes(await associatedTokenAccount(wallet, asset.mint))) return true;
    }
    return false;
  }

  private kept(base: Insertable<ChainTransfersTable>, receipt: Receipt, wallet: string, reason: string) {
    return {
      row: this.rowFor(base, receipt, wallet),
      book: (stored: Insertable<ChainTransfersTable>) => this.booking.keep(stored, reason),
    };
  }

  private rowFor(
    base: Insertable<ChainTransfersTable>,
    receipt: Receipt,
    wallet: string,
  ): Insertable<ChainTransfersTable> {
    return {
      ...base,
      token_contract: receipt.asset.mint ?? '',
      asset: receipt.asset.asset,
      to_address: wallet,
      amount: scaledToDecimal(receipt.amount, receipt.asset.decimals),
    };
  }

  private amountText(receipt: Receipt): string {
    return `${scaledToDecimal(receipt.amount, receipt.asset.decimals)} ${receipt.asset.asset}`;
  }

  private baseRow(signature: string, transaction: SolanaTransaction): Insertable<ChainTransfersTable> {
    return {
      network: 'SOLANA',
      tx_hash: signature,
      log_index: 0,
      block_number: String(transaction.slot),
      // Solana's finality is the signature's status, not a block hash; the slot is kept for the record.
      block_hash: '',
      block_time: new Date(
        (transaction.blockTime ?? Math.floor(this.clock().getTime() / 1000)) * 1000,
      ).toISOString(),
      token_contract: '',
      asset: '',
      from_address: feePayerOf(transaction),
      to_address: '',
      amount: '0',
      transaction_code: null,
      payment_id: null,
      unmatched_reason: null,
      confirmed: this.config.commitment === 'confirmed' ? 1 : 0,
      recorded_at: this.clock().toISOString(),
    };
  }
}
