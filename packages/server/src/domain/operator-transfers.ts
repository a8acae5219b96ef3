import { randomUUID } from 'node:crypto';
import type {
  OperatorChainTransfer,
  OperatorDepositForward,
  OperatorUnmatchedPage,
} from '@cryptocheckout/core';
import { compareDecimals } from '@cryptocheckout/core';
import type { Kysely } from 'kysely';
import { type ResolvedConfig, transactionExplorerUrl } from '../config.js';
import type { ForwardRow } from '../db/forward-repository.js';
import type { ChainTransferRow, TransferKey } from '../db/live-rail-repository.js';
import { OperatorRepository } from '../db/operator-repository.js';
import type { DatabaseSchema } from '../db/schema.js';
import { TransferResolutionRepository } from '../db/transfer-resolution-repository.js';
import { bitcoinAddressOfWallet } from '../rails/bitcoin/bitcoin-wallets.js';
import { RAILS } from '../rails/catalog.js';
import { FORWARDED_ELSEWHERE } from '../rails/evm/forward-records.js';
import type { PaymentSink } from '../rails/payment-rail-provider.js';
import { decodeCursorParts, encodeCursor } from './cursor.js';
import { ServiceProblem } from './service-problem.js';

export interface OperatorTransfersDependencies {
  db: Kysely<DatabaseSchema>;
  /** Where an attached transfer is recorded as the checkout's payment (the checkout service). */
  sink: PaymentSink;
  config: ResolvedConfig;
  clock: () => Date;
}

/** Who decided, in the resolution's note: the operator API has one credential. */
const BY_OPERATOR = 'by the operator token';

/**
 * Chain transfers as the operator sees them, and the three decisions an operator can take on one
 * (docs/operator-dashboard.md "Transfers"): attach a direct-mode transfer no checkout took to the
 * checkout it pays, mark a transfer handled outside the service, or approve the forward of a token
 * a deposit address received that its checkout did not ask for.
 */
export class OperatorTransfers {
  private readonly transfers: TransferResolutionRepository;
  private readonly lists: OperatorRepository;

  constructor(private readonly deps: OperatorTransfersDependencies) {
    this.transfers = new TransferResolutionRepository(deps.db);
    this.lists = new OperatorRepository(deps.db);
  }

  /**
   * One page of transfers no checkout counted, newest first.
   * @throws ServiceProblem `invalid_request` (field `cursor`) for a cursor this server did not make.
   */
  async unmatched(cursor: string | undefined, limit: number): Promise<OperatorUnmatchedPage> {
    const after = cursor === undefined ? null : decodeTransferCursor(cursor);
    const rows = await this.lists.unmatchedTransfers(after, limit + 1);
    const items = rows.slice(0, limit);
    const last = items.at(-1);
    return {
      items: await this.views(items),
      next_cursor:
        rows.length > limit && last
          ? encodeCursor([last.recorded_at, last.network, last.tx_hash, last.log_index])
          : null,
    };
  }

  /** The transfers recorded against one checkout, oldest first. */
  async ofTransaction(transactionCode: string): Promise<OperatorChainTransfer[]> {
    return this.views(await this.lists.transfersOf(transactionCode));
  }

  /**
   * Counts a confirmed direct-mode transfer no checkout took as a payment of `transactionCode`: the
   * checkout moves as if the buyer's transfer had matched (underpaid, settled, overpaid) and its
   * webhook goes out. Only money that reached that checkout's own merchant wallet can be attached.
   * @throws ServiceProblem `not_found`, or `conflict` naming why this transfer cannot be attached.
   */
  async attach(
    key: TransferKey,
    transactionCode: string,
    note: string | null,
  ): Promise<OperatorChainTransfer> {
    const row = await this.unresolved(key);
    if (row.deposit === 1) {
      throw new ServiceProblem(
        'conflict',
        `This transfer reached the deposit address of checkout ${row.transaction_code}: it belongs to that checkout. Approve its forward or mark it handled instead.`,
      );
    }
    if (row.confirmed !== 1) {
      throw new ServiceProblem(
        'conflict',
        'This transfer is not confirmed yet; attach it once it has its confirmations (the list shows when).',
      );
    }
    if (compareDecimals(row.amount, '0') <= 0) {
      throw new ServiceProblem(
        'conflict',
        'This transfer moved nothing to the merchant (it is kept to show where the money went); there is nothing to attach. Mark it handled instead.',
      );
    }
    const wallet = await this.transfers.walletOf(transactionCode);
    if (!wallet) throw new ServiceProblem('not_found', `No transaction has the code ${transactionCode}.`);
    const paidTo = `${row.asset} on ${row.network} to ${row.to_address}`;
    // Case is only a checksum in EVM addresses (stored lowercase); Solana's base58 compares exactly.
    const walletAddress = row.network === 'SOLANA' ? wallet.address : wallet.address.toLowerCase();
    const asked = `${wallet.asset.toUpperCase()} on ${wallet.network.toUpperCase()} to ${walletAddress}`;
    // Bitcoin: the transfer reached an address of the checkout's wallet (derived from its key, or the address itself).
    const samePlace =
      row.network === 'BITCOIN'
        ? wallet.network.toUpperCase() === 'BITCOIN' &&
          (await bitcoinAddressOfWallet(this.deps.db, row.to_address, wallet.address))
        : paidTo === asked;
    if (!samePlace) {
      throw new ServiceProblem(
        'conflict',
        `Checkout ${transactionCode} is paid in ${asked}; this transfer is ${paidTo}, so it cannot pay that checkout.`,
        'transaction_code',
      );
    }
    const rail = RAILS.find((each) => each.network === row.network && each.asset === row.asset)!;
    const paymentId = randomUUID();
    const now = this.deps.clock();
    let raced = false;
    try {
      await this.deps.sink.recordPayment({
        transactionCode,
        paymentMethod: rail.slug,
        amount: row.amount,
        txId: row.tx_hash,
        seenAt: new Date(row.block_time),
        confirmAt: now,
        paymentId,
        alongside: async (scope) => {
          const resolution = { kind: 'attached' as const, at: now.toISOString(), note: noteOf(note) };
          if (!(await this.transfers.resolve(key, { ...resolution, transactionCode, paymentId }, scope))) {
            raced = true;
            throw new Error('resolved meanwhile');
          }
        },
      });
    } catch (error) {
      if (raced) throw resolvedAlready();
      throw error;
    }
    return this.view(key);
  }

  /**
   * Records that a transfer was dealt with outside the service (refunded, booked by hand); nothing
   * else changes.
   * @throws ServiceProblem `not_found`, or `conflict` for a counted or resolved transfer.
   */
  async markHandled(key: TransferKey, note: string | null): Promise<OperatorChainTransfer> {
    await this.unresolved(key);
    const at = this.deps.clock().toISOString();
    if (!(await this.transfers.resolve(key, { kind: 'handled', at, note: noteOf(note) }))) {
      throw resolvedAlready();
    }
    return this.view(key);
  }

  /**
   * Lets the forwarder pay a deposit of a token its checkout did not ask for to the checkout's
   * merchant (the forwarder contract can pay no one else). It is never counted as payment.
   * @throws ServiceProblem `not_found`, or `conflict` for a transfer that is not such a deposit.
   */
  async approveForward(key: TransferKey, note: string | null): Promise<OperatorChainTransfer> {
    const row = await this.unresolved(key);
    if (row.deposit !== 1 || row.forward_approved === 1) {
      throw new ServiceProblem(
        'conflict',
        row.deposit !== 1
          ? 'Only a transfer to a deposit address is forwarded; this one went to the merchant directly.'
          : 'This deposit is forwarded already without approval.',
      );
    }
    const at = this.deps.clock().toISOString();
    if (!(await this.transfers.resolve(key, { kind: 'forward_approved', at, note: noteOf(note) }))) {
      throw resolvedAlready();
    }
    return this.view(key);
  }

  private async unresolved(key: TransferKey): Promise<ChainTransferRow> {
    const row = await this.transfers.find(key);
    if (!row) {
      throw new ServiceProblem(
        'not_found',
        `No transfer ${key.txHash} (log ${key.logIndex}) on ${key.network} is recorded.`,
      );
    }
    if (row.resolution !== null) throw resolvedAlready(row);
    if (row.payment_id !== null) {
      throw new ServiceProblem(
        'conflict',
        `This transfer is counted already as a payment of checkout ${row.transaction_code}.`,
      );
    }
    return row;
  }

  private async view(key: TransferKey): Promise<OperatorChainTransfer> {
    const row = await this.transfers.find(key);
    return (await this.views(row ? [row] : []))[0]!;
  }

  private async views(rows: readonly ChainTransferRow[]): Promise<OperatorChainTransfer[]> {
    const forwards = await this.transfers.forwards(
      rows.flatMap((row) =>
        row.forward_id && row.forward_id !== FORWARDED_ELSEWHERE ? [row.forward_id] : [],
      ),
    );
    return rows.map((row) => {
      const explorer = (hash: string) => transactionExplorerUrl(this.deps.config, row.network, hash);
      return {
        network: row.network,
        tx_hash: row.tx_hash,
        log_index: row.log_index,
        block_number: String(row.block_number),
        block_time: row.block_time,
        asset: row.asset,
        token_contract: row.token_contract,
        from_address: row.from_address,
        to_address: row.to_address,
        amount: row.amount,
        transaction_code: row.transaction_code,
        unmatched_reason: row.unmatched_reason,
        confirmed: row.confirmed === 1,
        recorded_at: row.recorded_at,
        explorer_url: explorer(row.tx_hash),
        forward: row.deposit === 1 ? forwardOf(row, forwards, explorer) : null,
        resolution: row.resolution
          ? {
              kind: row.resolution as 'attached' | 'handled' | 'forward_approved',
              at: row.resolved_at ?? row.recorded_at,
              note: row.resolution_note,
            }
          : null,
      };
    });
  }
}

/** Where a deposit is on its way to the merchant. */
function forwardOf(
  row: ChainTransferRow,
  forwards: ReadonlyMap<string, ForwardRow>,
  explorer: (hash: string) => string | null,
): OperatorDepositForward {
  const none = { tx_hash: null, explorer_url: null };
  if (row.forward_id === FORWARDED_ELSEWHERE) return { state: 'elsewhere', ...none };
  const forward = row.forward_id ? forwards.get(row.forward_id) : undefined;
  if (!forward) return { state: row.forward_approved === 1 ? 'waiting' : 'needs_approval', ...none };
  const state = forward.state as OperatorDepositForward['state'];
  const minedHash = state === 'mined' || state === 'confirmed' ? forward.tx_hash : null;
  return { state, tx_hash: minedHash, explorer_url: minedHash ? explorer(minedHash) : null };
}

function noteOf(note: string | null): string {
  return note ? `${BY_OPERATOR}: ${note}` : BY_OPERATOR;
}

function resolvedAlready(row?: ChainTransferRow): ServiceProblem {
  return new ServiceProblem(
    'conflict',
    row?.resolution
      ? `This transfer was resolved already (${row.resolution} at ${row.resolved_at}).`
      : 'This transfer was resolved by another request meanwhile; reload to see how.',
  );
}

function decodeTransferCursor(cursor: string) {
  const [recordedAt, network, txHash, logIndex] = decodeCursorParts(cursor, [
    'string',
    'string',
    'string',
    'number',
  ]) as [string, string, string, number];
  return { recordedAt, network, txHash, logIndex };
}
