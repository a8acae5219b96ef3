import type { Kysely } from 'kysely';
import type { WriteScope } from './database.js';
import type { ForwardRow } from './forward-repository.js';
import type { ChainTransferRow, TransferKey } from './live-rail-repository.js';
import type { DatabaseSchema } from './schema.js';

/** An operator's decision on a transfer, as stored on its row. */
export interface TransferResolution {
  kind: 'attached' | 'handled' | 'forward_approved';
  at: string;
  note: string | null;
  /** Attaching: the checkout and the payment the transfer became. */
  transactionCode?: string;
  paymentId?: string;
}

/** The operator's reads and writes on single chain transfers and the forwards carrying them. */
export class TransferResolutionRepository {
  constructor(private readonly db: Kysely<DatabaseSchema>) {}

  /** One stored transfer, or undefined. */
  find(key: TransferKey): Promise<ChainTransferRow | undefined> {
    return this.db
      .selectFrom('chain_transfers')
      .selectAll()
      .where('network', '=', key.network)
      .where('tx_hash', '=', key.txHash)
      .where('log_index', '=', key.logIndex)
      .executeTakeFirst();
  }

  /** The merchant wallet a checkout pays, or undefined for an unknown code. */
  async walletOf(
    transactionCode: string,
  ): Promise<{ address: string; asset: string; network: string } | undefined> {
    const row = await this.db
      .selectFrom('transactions')
      .select(['wallet_address', 'wallet_currency', 'wallet_network'])
      .where('transaction_code', '=', transactionCode)
      .executeTakeFirst();
    return row && { address: row.wallet_address, asset: row.wallet_currency, network: row.wallet_network };
  }

  /** The forwards with these ids, by id. */
  async forwards(forwardIds: readonly string[]): Promise<Map<string, ForwardRow>> {
    if (forwardIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('forwards')
      .selectAll()
      .where('forward_id', 'in', [...new Set(forwardIds)])
      .execute();
    return new Map(rows.map((row) => [row.forward_id, row]));
  }

  /**
   * Records `resolution` on a transfer no one resolved yet (and, attaching, the payment it became).
   * @returns false when another request resolved it first or it was counted meanwhile.
   */
  async resolve(key: TransferKey, resolution: TransferResolution, scope?: WriteScope): Promise<boolean> {
    const result = await (scope ?? this.db)
      .updateTable('chain_transfers')
      .set({
        resolution: resolution.kind,
        resolved_at: resolution.at,
        resolution_note: resolution.note,
        ...(resolution.kind === 'forward_approved' ? { forward_approved: 1 } : {}),
        ...(resolution.transactionCode
          ? { transaction_code: resolution.transactionCode, payment_id: resolution.paymentId ?? null }
          : {}),
      })
      .where('network', '=', key.network)
      .where('tx_hash', '=', key.txHash)
      .where('log_index', '=', key.logIndex)
      .where('resolution', 'is', null)
      .where('payment_id', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}
