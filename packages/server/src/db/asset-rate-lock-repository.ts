import type { Kysely } from 'kysely';
import type { DatabaseSchema } from './schema.js';

/** The SQL behind asset rate locks: the price a checkout was quoted at by a rail (docs/rates.md). */
export class AssetRateLockRepository {
  constructor(private readonly db: Kysely<DatabaseSchema>) {}

  /** USD per unit by payment method, for one checkout. */
  async locksOf(transactionCode: string): Promise<Map<string, string>> {
    const rows = await this.db
      .selectFrom('asset_rate_locks')
      .select(['payment_method', 'usd_per_unit'])
      .where('transaction_code', '=', transactionCode)
      .execute();
    return new Map(rows.map((row) => [row.payment_method, row.usd_per_unit]));
  }

  async lockOf(transactionCode: string, paymentMethod: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('asset_rate_locks')
      .select('usd_per_unit')
      .where('transaction_code', '=', transactionCode)
      .where('payment_method', '=', paymentMethod)
      .executeTakeFirst();
    return row?.usd_per_unit;
  }

  /** Stores a lock unless one exists (another request or node locked first); returns the stored price. */
  async lock(row: {
    transaction_code: string;
    payment_method: string;
    asset: string;
    usd_per_unit: string;
    locked_at: string;
  }): Promise<string> {
    await this.db
      .insertInto('asset_rate_locks')
      .values(row)
      .onConflict((conflict) => conflict.columns(['transaction_code', 'payment_method']).doNothing())
      .execute();
    return (await this.lockOf(row.transaction_code, row.payment_method)) ?? row.usd_per_unit;
  }
}
