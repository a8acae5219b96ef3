import type { Insertable, Kysely, Selectable } from 'kysely';
import type { DatabaseSchema, MerchantKeysTable } from './schema.js';

export type MerchantKeyRow = Selectable<MerchantKeysTable>;

/** Merchant keys, stored by the SHA-256 of the key. */
export class MerchantKeyRepository {
  constructor(private readonly db: Kysely<DatabaseSchema>) {}

  async insert(row: Insertable<MerchantKeysTable>): Promise<void> {
    await this.db.insertInto('merchant_keys').values(row).execute();
  }

  byHash(keyHash: string): Promise<MerchantKeyRow | undefined> {
    return this.db.selectFrom('merchant_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
  }

  find(keyId: string): Promise<MerchantKeyRow | undefined> {
    return this.db.selectFrom('merchant_keys').selectAll().where('key_id', '=', keyId).executeTakeFirst();
  }

  /** Every key, newest first (an operator issues a handful: one per shop). */
  all(): Promise<MerchantKeyRow[]> {
    return this.db.selectFrom('merchant_keys').selectAll().orderBy('created_at', 'desc').execute();
  }

  /** Revokes a key once; the first revocation's time stays. */
  async revoke(keyId: string, at: string): Promise<void> {
    await this.db
      .updateTable('merchant_keys')
      .set({ revoked_at: at })
      .where('key_id', '=', keyId)
      .where('revoked_at', 'is', null)
      .execute();
  }

  async touch(keyId: string, at: string): Promise<void> {
    await this.db
      .updateTable('merchant_keys')
      .set({ last_used_at: at })
      .where('key_id', '=', keyId)
      .execute();
  }
}
