import type { Insertable, Kysely, Selectable } from 'kysely';
import type { WriteScope } from './database.js';
import type { DatabaseSchema, ForwardAttemptsTable, ForwardsTable } from './schema.js';

export type ForwardRow = Selectable<ForwardsTable>;
export type ForwardAttemptRow = Selectable<ForwardAttemptsTable>;

/** The states of a forward (docs/deposit-mode.md "Forwards"). */
export type ForwardState = 'sending' | 'mined' | 'confirmed' | 'failed';

/** The SQL behind forwards: their rows, their signed attempts and the per-network sending lease. */
export class ForwardRepository {
  constructor(private readonly db: Kysely<DatabaseSchema>) {}

  /**
   * Takes or renews the right to send forwards on a network until `until`. True when this node
   * (`holder`) has it: nobody held it, the holder's lease ran out, or it is this node's already.
   */
  async acquireLease(network: string, holder: string, now: string, until: string): Promise<boolean> {
    await this.db
      .insertInto('forwarder_leases')
      .values({ network, holder, until })
      .onConflict((conflict) =>
        conflict
          .column('network')
          .doUpdateSet({ holder, until })
          .where((where) =>
            where.or([
              where('forwarder_leases.holder', '=', holder),
              where('forwarder_leases.until', '<', now),
            ]),
          ),
      )
      .execute();
    const lease = await this.db
      .selectFrom('forwarder_leases')
      .select('holder')
      .where('network', '=', network)
      .executeTakeFirst();
    return lease?.holder === holder;
  }

  /** Gives up this node's lease on a network, if it holds it. */
  async releaseLease(network: string, holder: string): Promise<void> {
    await this.db
      .deleteFrom('forwarder_leases')
      .where('network', '=', network)
      .where('holder', '=', holder)
      .execute();
  }

  /** Forwards sent or mined but not yet final, oldest nonce first. */
  async inFlight(network: string): Promise<ForwardRow[]> {
    return this.db
      .selectFrom('forwards')
      .selectAll()
      .where('network', '=', network)
      .where('state', 'in', ['sending', 'mined'])
      .orderBy('nonce')
      .execute();
  }

  /** Stores a new forward with its first signed attempt, in the scope that assigns its deposits. */
  async create(
    scope: WriteScope,
    forward: Insertable<ForwardsTable>,
    attempt: Insertable<ForwardAttemptsTable>,
  ): Promise<void> {
    await scope
      .insertInto('forwards')
      .values({ ...forward, nonce: String(forward.nonce) })
      .execute();
    await scope.insertInto('forward_attempts').values(attempt).execute();
  }

  /** Stores a fee-bumped replacement before it is sent. */
  async addAttempt(attempt: Insertable<ForwardAttemptsTable>): Promise<void> {
    await this.db.insertInto('forward_attempts').values(attempt).execute();
  }

  /** A forward's signed attempts, the newest last. */
  async attempts(forwardId: string): Promise<ForwardAttemptRow[]> {
    return this.db
      .selectFrom('forward_attempts')
      .selectAll()
      .where('forward_id', '=', forwardId)
      .orderBy('signed_at')
      .orderBy('tx_hash')
      .execute();
  }

  /** Moves a forward to `state` with what was learnt (the mined attempt, its block, an error). */
  async update(
    forwardId: string,
    change: Partial<
      Pick<ForwardRow, 'state' | 'tx_hash' | 'block_number' | 'block_hash' | 'gas_used' | 'error'>
    > & {
      updated_at: string;
    },
    scope?: WriteScope,
  ): Promise<void> {
    const values = {
      ...change,
      ...(change.block_number !== undefined && change.block_number !== null
        ? { block_number: String(change.block_number) }
        : {}),
      ...(change.gas_used !== undefined && change.gas_used !== null
        ? { gas_used: String(change.gas_used) }
        : {}),
    };
    await (scope ?? this.db)
      .updateTable('forwards')
      .set(values)
      .where('forward_id', '=', forwardId)
      .execute();
  }

  /**
   * The newest forward of ours, mined or confirmed, that emptied a deposit address of a token: a
   * deposit that arrived while it waited to be mined went with it.
   */
  async lastMinedFor(network: string, address: string, tokenContract: string): Promise<string | undefined> {
    const found = await this.db
      .selectFrom('chain_transfers')
      .innerJoin('forwards', 'forwards.forward_id', 'chain_transfers.forward_id')
      .select('forwards.forward_id')
      .where('chain_transfers.network', '=', network)
      .where('chain_transfers.to_address', '=', address)
      .where('chain_transfers.token_contract', '=', tokenContract)
      .where('forwards.state', 'in', ['mined', 'confirmed'])
      .orderBy('forwards.nonce', 'desc')
      .executeTakeFirst();
    return found?.forward_id;
  }

  /** Recent forwards of a network, newest first (for the operator). */
  async recent(network: string, limit: number): Promise<ForwardRow[]> {
    return this.db
      .selectFrom('forwards')
      .selectAll()
      .where('network', '=', network)
      .orderBy('created_at', 'desc')
      .limit(limit)
      .execute();
  }
}
