import type { Insertable, Kysely, Selectable } from 'kysely';
import type { WriteScope } from './database.js';
import type { DatabaseSchema, DepositForwardersTable } from './schema.js';

export type DepositForwarderRow = Selectable<DepositForwardersTable>;

/** Confirmed deposits at one address in one token that no forward carries yet. */
export interface WaitingDeposit {
  network: string;
  /** The deposit address, lowercase. */
  address: string;
  tokenContract: string;
  asset: string;
  merchant: string;
  salt: string;
  /** Sum of the transfers, decimal string in the token's units. */
  transfers: { txHash: string; logIndex: number; amount: string; transactionCode: string | null }[];
}

/** Addresses per `IN (…)` lookup: far below every database's parameter limit. */
const ADDRESSES_PER_QUERY = 500;

/** The SQL behind deposit mode's addresses and the deposits waiting for a forward. */
export class DepositRepository {
  constructor(private readonly db: Kysely<DatabaseSchema>) {}

  /** Stores a checkout's forwarder address; an address stored already is left as it is. */
  async saveForwarder(row: Insertable<DepositForwardersTable>): Promise<void> {
    await this.db
      .insertInto('deposit_forwarders')
      .values(row)
      .onConflict((conflict) => conflict.doNothing())
      .execute();
  }

  /** The forwarders among `addresses` (lowercase) on a network, by address. */
  async forwardersAt(
    network: string,
    addresses: readonly string[],
  ): Promise<Map<string, DepositForwarderRow>> {
    const found = new Map<string, DepositForwarderRow>();
    const unique = [...new Set(addresses)];
    for (let index = 0; index < unique.length; index += ADDRESSES_PER_QUERY) {
      const rows = await this.db
        .selectFrom('deposit_forwarders')
        .selectAll()
        .where('network', '=', network)
        .where('address', 'in', unique.slice(index, index + ADDRESSES_PER_QUERY))
        .execute();
      for (const row of rows) found.set(row.address, row);
    }
    return found;
  }

  /** How many forwarder addresses a network has, up to `cap` (enough to choose how to read logs). */
  async countForwarders(network: string, cap: number): Promise<number> {
    const rows = await this.db
      .selectFrom('deposit_forwarders')
      .select('address')
      .where('network', '=', network)
      .limit(cap)
      .execute();
    return rows.length;
  }

  /** Every forwarder address of a network (lowercase); for a network with few of them. */
  async forwarderAddresses(network: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('deposit_forwarders')
      .select('address')
      .where('network', '=', network)
      .execute();
    return rows.map((row) => row.address);
  }

  /**
   * Confirmed, approved deposits no forward carries, grouped by address and token, oldest first;
   * at most `limit` groups.
   */
  async waitingDeposits(network: string, limit: number): Promise<WaitingDeposit[]> {
    const rows = await this.db
      .selectFrom('chain_transfers')
      .innerJoin('deposit_forwarders', (join) =>
        join
          .onRef('deposit_forwarders.network', '=', 'chain_transfers.network')
          .onRef('deposit_forwarders.address', '=', 'chain_transfers.to_address'),
      )
      .select([
        'chain_transfers.to_address as address',
        'chain_transfers.token_contract as tokenContract',
        'chain_transfers.asset as asset',
        'chain_transfers.tx_hash as txHash',
        'chain_transfers.log_index as logIndex',
        'chain_transfers.amount as amount',
        'chain_transfers.transaction_code as transactionCode',
        'deposit_forwarders.merchant as merchant',
        'deposit_forwarders.salt as salt',
      ])
      .where('chain_transfers.network', '=', network)
      .where('chain_transfers.deposit', '=', 1)
      .where('chain_transfers.confirmed', '=', 1)
      .where('chain_transfers.forward_approved', '=', 1)
      .where('chain_transfers.forward_id', 'is', null)
      .orderBy('chain_transfers.block_number')
      .orderBy('chain_transfers.log_index')
      .limit(limit * 20)
      .execute();
    const groups = new Map<string, WaitingDeposit>();
    for (const row of rows) {
      const key = `${row.address}:${row.tokenContract}`;
      let group = groups.get(key);
      if (!group) {
        if (groups.size >= limit) continue;
        group = {
          network,
          address: row.address,
          tokenContract: row.tokenContract,
          asset: row.asset,
          merchant: row.merchant,
          salt: row.salt,
          transfers: [],
        };
        groups.set(key, group);
      }
      group.transfers.push({
        txHash: row.txHash,
        logIndex: row.logIndex,
        amount: row.amount,
        transactionCode: row.transactionCode,
      });
    }
    return [...groups.values()];
  }

  /** Runs `work` in one database transaction. */
  transaction<T>(work: (scope: WriteScope) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  /**
   * Marks transfers as carried by `forwardId`, or as waiting again with null. Carrying takes only
   * transfers no forward carries yet.
   * @throws Error when one is carried already (the database transaction then stores nothing).
   */
  async assignForward(
    scope: WriteScope,
    network: string,
    transfers: readonly { txHash: string; logIndex: number }[],
    forwardId: string | null,
  ): Promise<void> {
    for (const transfer of transfers) {
      let update = scope
        .updateTable('chain_transfers')
        .set({ forward_id: forwardId })
        .where('network', '=', network)
        .where('tx_hash', '=', transfer.txHash)
        .where('log_index', '=', transfer.logIndex);
      if (forwardId !== null) update = update.where('forward_id', 'is', null);
      const result = await update.executeTakeFirst();
      if (forwardId !== null && Number(result.numUpdatedRows) !== 1) {
        throw new Error(
          `deposit ${transfer.txHash}:${transfer.logIndex} is carried by another forward already`,
        );
      }
    }
  }

  /** Makes every deposit carried by `forwardId` wait for a forward again (the forward failed). */
  async releaseForward(scope: WriteScope, forwardId: string): Promise<void> {
    await scope
      .updateTable('chain_transfers')
      .set({ forward_id: null })
      .where('forward_id', '=', forwardId)
      .execute();
  }

  /**
   * Sets `payout_dispatched` of deposit-mode checkouts from their forwards: true once every deposit
   * counted as payment is carried by a forward that was sent and has not failed. The row's version
   * goes up with it, so a writer that read the row before cannot store its older value.
   */
  async refreshPayouts(transactionCodes: readonly string[]): Promise<void> {
    for (const code of new Set(transactionCodes)) {
      const counted = await this.db
        .selectFrom('chain_transfers')
        .leftJoin('forwards', 'forwards.forward_id', 'chain_transfers.forward_id')
        .select(['chain_transfers.forward_id as forwardId', 'forwards.state as state'])
        .where('chain_transfers.transaction_code', '=', code)
        .where('chain_transfers.deposit', '=', 1)
        .where('chain_transfers.payment_id', 'is not', null)
        .execute();
      const dispatched =
        counted.length > 0 &&
        counted.every((row) => row.forwardId !== null && (row.state === null || row.state !== 'failed'));
      await this.db
        .updateTable('transactions')
        .set((update) => ({ payout_dispatched: dispatched ? 1 : 0, version: update('version', '+', 1) }))
        .where('transaction_code', '=', code)
        .where('payout_by_forward', '=', 1)
        .where('payout_dispatched', '!=', dispatched ? 1 : 0)
        .execute();
    }
  }
}
