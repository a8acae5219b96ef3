import { type Log, type PublicClient, parseAbiItem } from 'viem';
import type { WatchedToken } from './evm-networks.js';

const TRANSFER_EVENT = parseAbiItem(
  'event Transfer(address indexed from, address indexed to, uint256 value)',
);

/** Recipients per `eth_getLogs` call when filtering by recipient: the `to` topic is an OR list, and endpoints cap request sizes. */
export const RECIPIENTS_PER_CALL = 100;

/**
 * Above this many watched addresses the watcher stops filtering by recipient and reads every
 * `Transfer` log of the watched tokens, matching recipients itself: one call per block range
 * whatever the count, instead of one per 100 addresses.
 */
export const MAX_FILTERED_RECIPIENTS = 1000;

/** A `Transfer` log of a watched token, addresses lowercase. */
export interface TransferLog {
  txHash: string;
  logIndex: number;
  blockNumber: bigint;
  blockHash: string;
  token: WatchedToken;
  from: string;
  to: string;
  /** Base units. */
  value: bigint;
}

/** An endpoint's refusal of a range as too large: answered by asking for half of it. */
const TOO_MANY_RESULTS =
  /more than \d+ results|too many (results|logs)|response size|result size|limit exceeded|block range|query timeout|-32005/i;

/**
 * Reads the `Transfer` logs of the watched tokens in a block range, for a list of recipients or
 * for all of them; a range the endpoint finds too large is split in halves until it answers.
 */
export class TransferLogSource {
  /** `eth_getLogs` calls made, for `/api/health` and the benchmark. */
  calls = 0;

  constructor(
    private readonly client: PublicClient,
    private readonly tokens: ReadonlyMap<string, WatchedToken>,
  ) {}

  /**
   * The logs in blocks `from`..`to` (inclusive), to `recipients` (lowercase) or to anyone (`'all'`).
   * Logs an endpoint marks `removed`, or without a block, are left out.
   * @throws Error from the endpoint, other than a range too large.
   */
  async read(from: bigint, to: bigint, recipients: readonly string[] | 'all'): Promise<TransferLog[]> {
    if (recipients === 'all') return this.readSplitting(from, to, undefined);
    const logs: TransferLog[] = [];
    for (let index = 0; index < recipients.length; index += RECIPIENTS_PER_CALL) {
      logs.push(
        ...(await this.readSplitting(from, to, recipients.slice(index, index + RECIPIENTS_PER_CALL))),
      );
    }
    return logs;
  }

  private async readSplitting(
    from: bigint,
    to: bigint,
    recipients: string[] | undefined,
  ): Promise<TransferLog[]> {
    try {
      return await this.readOnce(from, to, recipients);
    } catch (error) {
      if (to <= from || !TOO_MANY_RESULTS.test(String((error as Error).message))) throw error;
      const middle = from + (to - from) / 2n;
      return [
        ...(await this.readSplitting(from, middle, recipients)),
        ...(await this.readSplitting(middle + 1n, to, recipients)),
      ];
    }
  }

  private async readOnce(from: bigint, to: bigint, recipients: string[] | undefined): Promise<TransferLog[]> {
    this.calls++;
    const logs = await this.client.getLogs({
      address: [...this.tokens.keys()] as `0x${string}`[],
      event: TRANSFER_EVENT,
      args: recipients ? { to: recipients as `0x${string}`[] } : undefined,
      fromBlock: from,
      toBlock: to,
    });
    return logs.flatMap((log) => {
      const transfer = transferOf(log, this.tokens);
      return transfer ? [transfer] : [];
    });
  }
}

function transferOf(
  log: Log<bigint, number, false, typeof TRANSFER_EVENT>,
  tokens: ReadonlyMap<string, WatchedToken>,
): TransferLog | undefined {
  if (log.removed || log.blockNumber === null || log.logIndex === null || log.transactionHash === null)
    return;
  const token = tokens.get(log.address.toLowerCase());
  if (!token || log.blockHash === null) return;
  return {
    txHash: log.transactionHash,
    logIndex: log.logIndex,
    blockNumber: log.blockNumber,
    blockHash: log.blockHash,
    token,
    from: (log.args.from ?? '').toLowerCase(),
    to: (log.args.to ?? '').toLowerCase(),
    value: log.args.value ?? 0n,
  };
}
