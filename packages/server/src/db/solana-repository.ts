import { type Insertable, type Kysely, type Selectable, sql } from 'kysely';
import type { DatabaseSchema, SolanaReferencesTable } from './schema.js';

export type SolanaReferenceRow = Selectable<SolanaReferencesTable>;

/** A watched wallet and the earliest time a checkout's payment to it may have been made. */
export interface WatchedSolanaWallet {
  walletAddress: string;
  /** The payment methods its open checkouts were handed out for (`usdc_solana`, `sol_solana`). */
  paymentMethods: string[];
  /** The oldest reference's creation time still watched: no payment can be older. */
  since: string;
}

/** The SQL behind Solana live mode: references handed out and the watcher's cursors (docs/solana.md). */
export class SolanaRepository {
  constructor(private readonly db: Kysely<DatabaseSchema>) {}

  /**
   * Stores a reference and extends its wallet's watch to the checkout's monitor_until; a second store
   * of the same one (a repeat, another node) changes nothing. A wallet whose watch had ended starts
   * a new one at this reference.
   */
  async saveReference(row: Insertable<SolanaReferencesTable>): Promise<void> {
    await this.db.transaction().execute(async (scope) => {
      const inserted = await scope
        .insertInto('solana_references')
        .values(row)
        .onConflict((conflict) => conflict.column('reference').doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return;
      await scope
        .insertInto('solana_watched_wallets')
        .values({
          wallet_address: row.wallet_address,
          payment_method: row.payment_method,
          since: row.created_at,
          monitor_until: row.monitor_until,
        })
        .onConflict((conflict) =>
          conflict.columns(['wallet_address', 'payment_method']).doUpdateSet({
            since: sql`CASE WHEN solana_watched_wallets.monitor_until < excluded.since THEN excluded.since ELSE solana_watched_wallets.since END`,
            monitor_until: sql`CASE WHEN excluded.monitor_until > solana_watched_wallets.monitor_until THEN excluded.monitor_until ELSE solana_watched_wallets.monitor_until END`,
          }),
        )
        .execute();
    });
  }

  /** The references among a transaction's account keys. */
  async referencesAmong(keys: readonly string[]): Promise<SolanaReferenceRow[]> {
    if (keys.length === 0) return [];
    return this.db.selectFrom('solana_references').selectAll().where('reference', 'in', keys).execute();
  }

  /**
   * The wallets with a checkout whose payment is still awaited at `now` (until its monitor_until),
   * one row per wallet: the rows grow with the merchants, not with their checkouts.
   */
  async watchedWallets(now: string): Promise<WatchedSolanaWallet[]> {
    const rows = await this.db
      .selectFrom('solana_watched_wallets')
      .selectAll()
      .where('monitor_until', '>=', now)
      .orderBy('wallet_address')
      .execute();
    const wallets = new Map<string, WatchedSolanaWallet>();
    for (const row of rows) {
      const wallet = wallets.get(row.wallet_address) ?? {
        walletAddress: row.wallet_address,
        paymentMethods: [],
        since: row.since,
      };
      wallet.paymentMethods.push(row.payment_method);
      if (row.since < wallet.since) wallet.since = row.since;
      wallets.set(row.wallet_address, wallet);
    }
    return [...wallets.values()];
  }

  /** The newest finalized signature read for an address, if any. */
  async cursor(address: string): Promise<{ signature: string; slot: number } | undefined> {
    const found = await this.db
      .selectFrom('solana_cursors')
      .select(['signature', 'slot'])
      .where('address', '=', address)
      .executeTakeFirst();
    return found && { signature: found.signature, slot: Number(found.slot) };
  }

  /** Moves an address's cursor forward; an older slot (another node's slower poll) never moves it back. */
  async saveCursor(address: string, signature: string, slot: number, now: string): Promise<void> {
    await this.db
      .insertInto('solana_cursors')
      .values({ address, signature, slot: String(slot), updated_at: now })
      .onConflict((conflict) =>
        conflict
          .column('address')
          .doUpdateSet({ signature, slot: String(slot), updated_at: now })
          .where('solana_cursors.slot', '<', String(slot)),
      )
      .execute();
  }
}
