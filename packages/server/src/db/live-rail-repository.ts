import type { Insertable, Kysely, Selectable } from 'kysely';
import type { WriteScope } from './database.js';
import type { AmountHoldsTable, ChainTransfersTable, DatabaseSchema } from './schema.js';

export type ChainTransferRow = Selectable<ChainTransfersTable>;

/** Where a watcher has scanned to on one network. */
export interface ChainCursor {
  blockNumber: bigint;
  blockHash: string;
  blockTime: string;
}

/** A transfer's identity on its chain. */
export interface TransferKey {
  network: string;
  txHash: string;
  logIndex: number;
}

/** The wallet, asset and network an amount hold is unique within. */
export interface HoldScope {
  network: string;
  asset: string;
  /** Lowercase hex. */
  walletAddress: string;
}

/** The SQL behind live mode: amount holds, watcher cursors and observed chain transfers. */
export class LiveRailRepository {
  constructor(private readonly db: Kysely<DatabaseSchema>) {}

  /** The amount already held for a transaction and rail, if any. */
  async holdOf(transactionCode: string, paymentMethod: string): Promise<string | undefined> {
    const found = await this.db
      .selectFrom('amount_holds')
      .select('amount')
      .where('transaction_code', '=', transactionCode)
      .where('payment_method', '=', paymentMethod)
      .executeTakeFirst();
    return found?.amount;
  }

  /** The holds of base-unit amounts in [from, to] in a scope that last until `now` or later. */
  private holdsInRange(scope: HoldScope, from: bigint, to: bigint, now: string) {
    return this.db
      .selectFrom('amount_holds')
      .where('network', '=', scope.network)
      .where('asset', '=', scope.asset)
      .where('wallet_address', '=', scope.walletAddress)
      .where('amount_base_units', '>=', from.toString())
      .where('amount_base_units', '<=', to.toString())
      .where('held_until', '>=', now);
  }

  /** Base-unit amounts in [from, to] held in a scope at `now` or later. */
  async heldAmounts(scope: HoldScope, from: bigint, to: bigint, now: string): Promise<Set<bigint>> {
    const rows = await this.holdsInRange(scope, from, to, now).select('amount_base_units').execute();
    return new Set(rows.map((row) => BigInt(String(row.amount_base_units))));
  }

  /** When the first hold of a base-unit amount in [from, to] held at `now` or later ends, if any. */
  async earliestHoldEnd(
    scope: HoldScope,
    from: bigint,
    to: bigint,
    now: string,
  ): Promise<string | undefined> {
    const found = await this.holdsInRange(scope, from, to, now)
      .select((select) => select.fn.min('held_until').as('first_end'))
      .executeTakeFirst();
    return found?.first_end ?? undefined;
  }

  /**
   * Takes an amount for a transaction unless the scope holds it already. A hold whose window has
   * passed (`held_until` before `now`) is released first. False when another checkout holds it.
   */
  async tryHold(hold: Insertable<AmountHoldsTable>, now: string): Promise<boolean> {
    return this.db.transaction().execute(async (scope) => {
      await scope
        .deleteFrom('amount_holds')
        .where('network', '=', hold.network)
        .where('asset', '=', hold.asset)
        .where('wallet_address', '=', hold.wallet_address)
        .where('amount_base_units', '=', String(hold.amount_base_units))
        .where('held_until', '<', now)
        .execute();
      const inserted = await scope
        .insertInto('amount_holds')
        .values({ ...hold, amount_base_units: String(hold.amount_base_units) })
        .onConflict((conflict) => conflict.doNothing())
        .executeTakeFirst();
      return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
    });
  }

  /** The checkout holding an exact amount in a scope at a time (a transfer's block time). */
  async holderOf(
    scope: HoldScope,
    baseUnits: bigint,
    at: string,
  ): Promise<{ transactionCode: string; paymentMethod: string } | undefined> {
    const found = await this.db
      .selectFrom('amount_holds')
      .select(['transaction_code', 'payment_method'])
      .where('network', '=', scope.network)
      .where('asset', '=', scope.asset)
      .where('wallet_address', '=', scope.walletAddress)
      .where('amount_base_units', '=', baseUnits.toString())
      .where('held_until', '>=', at)
      .executeTakeFirst();
    return found && { transactionCode: found.transaction_code, paymentMethod: found.payment_method };
  }

  /** Wallets (lowercase) with an amount held on a network at `since` or later. */
  async watchedWallets(network: string, since: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('amount_holds')
      .select('wallet_address')
      .distinct()
      .where('network', '=', network)
      .where('held_until', '>=', since)
      .execute();
    return rows.map((row) => row.wallet_address);
  }

  async cursor(network: string): Promise<ChainCursor | undefined> {
    const found = await this.db
      .selectFrom('chain_cursors')
      .selectAll()
      .where('network', '=', network)
      .executeTakeFirst();
    return (
      found && {
        blockNumber: BigInt(String(found.block_number)),
        blockHash: found.block_hash,
        blockTime: found.block_time,
      }
    );
  }

  async saveCursor(network: string, cursor: ChainCursor, now: string): Promise<void> {
    const values = {
      block_number: cursor.blockNumber.toString(),
      block_hash: cursor.blockHash,
      block_time: cursor.blockTime,
      updated_at: now,
    };
    await this.db
      .insertInto('chain_cursors')
      .values({ network, ...values })
      .onConflict((conflict) => conflict.column('network').doUpdateSet(values))
      .execute();
  }

  async isKnown(key: TransferKey): Promise<boolean> {
    const found = await this.db
      .selectFrom('chain_transfers')
      .select('tx_hash')
      .where('network', '=', key.network)
      .where('tx_hash', '=', key.txHash)
      .where('log_index', '=', key.logIndex)
      .executeTakeFirst();
    return found !== undefined;
  }

  /**
   * Stores a transfer, in `scope` when given (with the payment it became). False when the transfer
   * is stored already (another server node recorded it first); the stored one is left as it is.
   */
  async insertTransfer(transfer: Insertable<ChainTransfersTable>, scope?: WriteScope): Promise<boolean> {
    const inserted = await (scope ?? this.db)
      .insertInto('chain_transfers')
      .values({ ...transfer, block_number: String(transfer.block_number) })
      .onConflict((conflict) => conflict.doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  /** Transfers on a network not yet confirmed, oldest block first. */
  async unconfirmedTransfers(network: string): Promise<ChainTransferRow[]> {
    return this.db
      .selectFrom('chain_transfers')
      .selectAll()
      .where('network', '=', network)
      .where('confirmed', '=', 0)
      .orderBy('block_number')
      .orderBy('log_index')
      .execute();
  }

  async markTransferConfirmed(key: TransferKey, scope?: WriteScope): Promise<void> {
    await (scope ?? this.db)
      .updateTable('chain_transfers')
      .set({ confirmed: 1 })
      .where('network', '=', key.network)
      .where('tx_hash', '=', key.txHash)
      .where('log_index', '=', key.logIndex)
      .execute();
  }

  async deleteTransfer(key: TransferKey, scope?: WriteScope): Promise<void> {
    await (scope ?? this.db)
      .deleteFrom('chain_transfers')
      .where('network', '=', key.network)
      .where('tx_hash', '=', key.txHash)
      .where('log_index', '=', key.logIndex)
      .execute();
  }

  /** Transfers that matched no checkout, newest first (for the operator). */
  async unmatchedTransfers(limit: number): Promise<ChainTransferRow[]> {
    return this.db
      .selectFrom('chain_transfers')
      .selectAll()
      .where('unmatched_reason', 'is not', null)
      .orderBy('recorded_at', 'desc')
      .limit(limit)
      .execute();
  }
}
