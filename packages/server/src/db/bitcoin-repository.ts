import { type Insertable, type Kysely, type Selectable, sql } from 'kysely';
import type { ChainTransferRow } from './live-rail-repository.js';
import type { BitcoinScriptsTable, BitcoinWalletsTable, DatabaseSchema } from './schema.js';

export type BitcoinScriptRow = Selectable<BitcoinScriptsTable>;
export type BitcoinWalletRow = Selectable<BitcoinWalletsTable>;

/** Scripts per `IN (…)` lookup: well under every database's parameter limit. */
const LOOKUP_CHUNK = 500;
/** Where transfers are kept: payments (and unmatched ones) and refund payments. */
const TRANSFER_TABLES = ['chain_transfers', 'refund_transfers'] as const;
/** Blocks kept behind the tip to find where a reorganisation forked. */
const BLOCKS_KEPT = 288;

/** The SQL behind Bitcoin live mode (docs/bitcoin.md): keys, handed-out scripts, scanned blocks. */
export class BitcoinRepository {
  constructor(private readonly db: Kysely<DatabaseSchema>) {}

  /**
   * The next receive index of an extended key, taken for good: two calls (or two server nodes) never
   * get the same one, and an index is never handed out again.
   */
  async takeIndex(wallet: { id: string; wallet: string; scheme: string }, now: string): Promise<number> {
    await this.db
      .insertInto('bitcoin_wallets')
      .values({
        wallet_id: wallet.id,
        wallet: wallet.wallet,
        scheme: wallet.scheme,
        next_index: 0,
        created_at: now,
      })
      .onConflict((conflict) => conflict.column('wallet_id').doNothing())
      .execute();
    const taken = await this.db
      .updateTable('bitcoin_wallets')
      .set({ next_index: sql`next_index + 1` })
      .where('wallet_id', '=', wallet.id)
      .returning('next_index')
      .executeTakeFirstOrThrow();
    return Number(taken.next_index) - 1;
  }

  /** The script derived for a checkout and rail, when one was. */
  async derivedFor(transactionCode: string, paymentMethod: string): Promise<BitcoinScriptRow | undefined> {
    return this.db
      .selectFrom('bitcoin_scripts')
      .selectAll()
      .where('transaction_code', '=', transactionCode)
      .where('payment_method', '=', paymentMethod)
      .orderBy('derivation_index')
      .executeTakeFirst();
  }

  async saveDerived(row: Insertable<BitcoinScriptsTable>): Promise<void> {
    await this.db.insertInto('bitcoin_scripts').values(row).execute();
  }

  /**
   * Watches a plain merchant address until `monitorUntil` at least; `walletId` is the address as the
   * merchant entered it (the amount holds' scope), `address` as encoded for the node's chain.
   */
  async watchAddress(
    scriptHex: string,
    address: string,
    walletId: string,
    monitorUntil: string,
    now: string,
  ): Promise<void> {
    await this.db
      .insertInto('bitcoin_scripts')
      .values({
        script_hex: scriptHex,
        address,
        wallet_id: walletId,
        derivation_index: null,
        transaction_code: null,
        payment_method: null,
        created_at: now,
        monitor_until: monitorUntil,
      })
      .onConflict((conflict) =>
        conflict.columns(['script_hex', 'wallet_id']).doUpdateSet({
          monitor_until: sql`CASE WHEN excluded.monitor_until > bitcoin_scripts.monitor_until THEN excluded.monitor_until ELSE bitcoin_scripts.monitor_until END`,
        }),
      )
      .execute();
  }

  /**
   * The watched scripts among `scriptHexes` (a block's or a transaction's outputs): every derived
   * one (a payment to it, however late, is the checkout's) and plain addresses still watched at `now`.
   */
  async watchedAmong(scriptHexes: readonly string[], now: string): Promise<Map<string, BitcoinScriptRow[]>> {
    const unique = [...new Set(scriptHexes)];
    const found = new Map<string, BitcoinScriptRow[]>();
    for (let start = 0; start < unique.length; start += LOOKUP_CHUNK) {
      const rows = await this.db
        .selectFrom('bitcoin_scripts')
        .selectAll()
        .where('script_hex', 'in', unique.slice(start, start + LOOKUP_CHUNK))
        .where((where) =>
          where.or([where('transaction_code', 'is not', null), where('monitor_until', '>=', now)]),
        )
        .execute();
      for (const row of rows) found.set(row.script_hex, [...(found.get(row.script_hex) ?? []), row]);
    }
    return found;
  }

  /** Records that an index received a payment (the gap the merchant's wallet must scan starts after it). */
  async markIndexPaid(walletId: string, index: number): Promise<void> {
    await this.db
      .updateTable('bitcoin_wallets')
      .set({ highest_paid_index: index })
      .where('wallet_id', '=', walletId)
      .where((where) =>
        where.or([where('highest_paid_index', 'is', null), where('highest_paid_index', '<', index)]),
      )
      .execute();
  }

  async wallets(): Promise<BitcoinWalletRow[]> {
    return this.db.selectFrom('bitcoin_wallets').selectAll().orderBy('created_at').execute();
  }

  async wallet(walletId: string): Promise<BitcoinWalletRow | undefined> {
    return this.db
      .selectFrom('bitcoin_wallets')
      .selectAll()
      .where('wallet_id', '=', walletId)
      .executeTakeFirst();
  }

  /** When the first watched script was handed out (ISO time), if any. */
  async earliestScriptTime(): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('bitcoin_scripts')
      .select((select) => select.fn.min('created_at').as('earliest'))
      .executeTakeFirst();
    return (row?.earliest as string | null | undefined) ?? undefined;
  }

  /** The newest scanned block. */
  async tip(): Promise<{ height: number; hash: string } | undefined> {
    const row = await this.db
      .selectFrom('bitcoin_blocks')
      .select(['height', 'hash'])
      .orderBy('height', 'desc')
      .executeTakeFirst();
    return row && { height: Number(row.height), hash: row.hash };
  }

  async blockHashAt(height: number): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('bitcoin_blocks')
      .select('hash')
      .where('height', '=', height)
      .executeTakeFirst();
    return row?.hash;
  }

  /** Stores a scanned block and forgets those far enough behind it. */
  async saveBlock(height: number, hash: string, now: string): Promise<void> {
    await this.db
      .insertInto('bitcoin_blocks')
      .values({ height, hash, scanned_at: now })
      .onConflict((conflict) => conflict.column('height').doUpdateSet({ hash, scanned_at: now }))
      .execute();
    await this.db
      .deleteFrom('bitcoin_blocks')
      .where('height', '<', height - BLOCKS_KEPT)
      .execute();
  }

  /**
   * A reorganisation left the chain above `height`: forgets those blocks, and puts the unconfirmed
   * transfers mined there back to "seen, not mined" (they may be mined again, or be gone).
   * @returns the confirmed transfers that were in the dropped blocks (deeper than their confirmations).
   */
  async unmineAbove(height: number): Promise<ChainTransferRow[]> {
    return this.db.transaction().execute(async (scope) => {
      await scope.deleteFrom('bitcoin_blocks').where('height', '>', height).execute();
      for (const table of TRANSFER_TABLES) {
        await scope
          .updateTable(table)
          .set({ block_number: '0', block_hash: '' })
          .where('network', '=', 'BITCOIN')
          .where('confirmed', '=', 0)
          .where('block_number', '>', String(height))
          .execute();
      }
      return scope
        .selectFrom('chain_transfers')
        .selectAll()
        .where('network', '=', 'BITCOIN')
        .where('confirmed', '=', 1)
        .where('block_number', '>', String(height))
        .execute();
    });
  }

  /** Records the block a transfer seen in the mempool (or in a dropped block) was mined in. */
  async markMined(txid: string, height: number, hash: string, time: string): Promise<void> {
    for (const table of TRANSFER_TABLES) {
      await this.db
        .updateTable(table)
        .set({ block_number: String(height), block_hash: hash, block_time: time })
        .where('network', '=', 'BITCOIN')
        .where('tx_hash', '=', txid)
        .where('confirmed', '=', 0)
        .execute();
    }
  }

  /** The order amount (USD) of each checkout, for the confirmations its payments need. */
  async orderAmounts(transactionCodes: readonly string[]): Promise<Map<string, string>> {
    const unique = [...new Set(transactionCodes)];
    const found = new Map<string, string>();
    for (let start = 0; start < unique.length; start += LOOKUP_CHUNK) {
      const rows = await this.db
        .selectFrom('transactions')
        .select(['transaction_code', 'amount_in_usd'])
        .where('transaction_code', 'in', unique.slice(start, start + LOOKUP_CHUNK))
        .execute();
      for (const row of rows) found.set(row.transaction_code, row.amount_in_usd);
    }
    return found;
  }
}
