import { randomUUID } from 'node:crypto';
import { scaledToDecimal } from '@cryptocheckout/core';
import type { Insertable } from 'kysely';
import type { Logger } from 'pino';
import { type Block, createPublicClient, http, type PublicClient, parseAbiItem } from 'viem';
import type { ChainCursor, ChainTransferRow, LiveRailRepository } from '../../db/live-rail-repository.js';
import type { ChainTransfersTable } from '../../db/schema.js';
import { isRefusedPayment, type PaymentSink } from '../payment-rail-provider.js';
import type { EvmNetworkConfig, WatchedToken } from './evm-networks.js';

const TRANSFER_EVENT = parseAbiItem(
  'event Transfer(address indexed from, address indexed to, uint256 value)',
);
/** Wallets per `eth_getLogs` call: the `to` topic is an OR list, and endpoints cap request sizes. */
const WALLETS_PER_CALL = 100;
/** Longest wait between attempts while the RPC endpoint fails (ms). */
const MAX_BACKOFF_MS = 60_000;

/** What a watcher reports in `GET /api/health` and to the benchmark. */
export interface WatcherHealth {
  chainId: number;
  confirmations: number;
  /** Last head seen, last block scanned (null before the first scan). */
  head: string | null;
  scannedTo: string | null;
  /** Set while the endpoint fails or reports the wrong chain; cleared by the next good scan. */
  lastError: string | null;
  consecutiveFailures: number;
  blocksScanned: number;
  transfersSeen: number;
  reorganisations: number;
}

type TickOutcome = 'behind' | 'caught_up';

/**
 * Follows one EVM network for ERC-20 `Transfer` logs of the configured tokens to wallets with an
 * open live checkout, from a stored cursor, in bounded block ranges. Matched transfers are recorded
 * as payments awaiting confirmation and confirmed once `confirmations` blocks include them; a
 * transfer whose block leaves the chain first is retracted. docs/live-mode.md "The watcher".
 */
export class EvmWatcher {
  private readonly client: PublicClient;
  private readonly tokens: Map<string, WatchedToken>;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private wrongChain: string | undefined;
  private chainIdChecked = false;
  private readonly state: WatcherHealth;

  constructor(
    private readonly config: EvmNetworkConfig,
    private readonly repository: LiveRailRepository,
    private readonly sink: PaymentSink,
    private readonly clock: () => Date,
    private readonly logger: Logger,
  ) {
    // viem's own retries are off: the watcher backs off itself and resumes from its cursor.
    this.client = createPublicClient({ transport: http(config.rpcUrl, { retryCount: 0, timeout: 15_000 }) });
    this.tokens = new Map(config.tokens.map((token) => [token.contract, token]));
    this.state = {
      chainId: config.chainId,
      confirmations: config.confirmations,
      head: null,
      scannedTo: null,
      lastError: null,
      consecutiveFailures: 0,
      blocksScanned: 0,
      transfersSeen: 0,
      reorganisations: 0,
    };
  }

  /** Whether buyers can be sent to this network: false once the endpoint reported another chain. */
  get usable(): boolean {
    return this.wrongChain === undefined;
  }

  health(): WatcherHealth {
    return { ...this.state };
  }

  /** Starts the scan loop; the first scan runs at once. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops the loop and waits for a scan under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.runOnce().finally(() => {
        this.running = undefined;
      });
    }, delayMs);
  }

  private async runOnce(): Promise<void> {
    let delay = this.config.pollIntervalMs;
    try {
      const outcome = await this.tick();
      if (this.state.consecutiveFailures > 0) {
        this.logger.info({ network: this.config.network }, 'chain watcher reached its RPC endpoint again');
      }
      this.state.consecutiveFailures = 0;
      this.state.lastError = this.wrongChain ?? null;
      if (outcome === 'behind') delay = 0;
    } catch (error) {
      const failures = ++this.state.consecutiveFailures;
      this.state.lastError = error instanceof Error ? error.message.split('\n')[0]! : String(error);
      delay = Math.min(this.config.pollIntervalMs * 2 ** Math.min(failures, 16), MAX_BACKOFF_MS);
      // The first failure and then every tenth: an endpoint down for an hour must not flood the log.
      if (failures === 1 || failures % 10 === 0) {
        this.logger.warn(
          { network: this.config.network, failures, retryInMs: delay, err: this.state.lastError },
          'chain watcher cannot scan; retrying',
        );
      }
    }
    this.schedule(delay);
  }

  /**
   * One step: checks the chain id once, follows a reorganisation, scans the next range of blocks,
   * then confirms or retracts transfers awaiting confirmation.
   * @throws Error from the RPC endpoint or the database; the loop backs off and retries.
   */
  async tick(): Promise<TickOutcome> {
    if (!(await this.chainIdMatches())) return 'caught_up';
    const head = await this.client.getBlockNumber({ cacheTime: 0 });
    this.state.head = head.toString();
    let cursor = await this.repository.cursor(this.config.network);
    if (!cursor) {
      // A first start watches from the current head: no checkout can have been paid before it.
      cursor = await this.cursorAt(head);
      await this.saveCursor(cursor);
    }
    const atCursor = cursor.blockNumber <= head ? await this.blockAt(cursor.blockNumber) : undefined;
    if (atCursor?.hash !== cursor.blockHash) {
      await this.followReorganisation(cursor, head);
      return 'behind';
    }
    let outcome: TickOutcome = 'caught_up';
    if (cursor.blockNumber < head) {
      const to = minBigInt(head, cursor.blockNumber + BigInt(this.config.maxBlockRange));
      await this.scan(cursor, to);
      if (to < head) outcome = 'behind';
    }
    await this.confirmOrRetract(head);
    return outcome;
  }

  private async chainIdMatches(): Promise<boolean> {
    if (this.wrongChain) return false;
    if (this.chainIdChecked) return true;
    const chainId = await this.client.getChainId();
    if (chainId !== this.config.chainId) {
      this.wrongChain = `The RPC endpoint for ${this.config.network} reports chain id ${chainId}, not ${this.config.chainId}; fix --rpc-url or set --chain-id ${this.config.network}=${chainId} with --token contracts.`;
      this.state.lastError = this.wrongChain;
      this.logger.error({ network: this.config.network }, this.wrongChain);
      return false;
    }
    this.chainIdChecked = true;
    return true;
  }

  /** Scans blocks after the cursor up to `to`, records what they hold, then moves the cursor to `to`. */
  private async scan(cursor: ChainCursor, to: bigint): Promise<void> {
    const from = cursor.blockNumber + 1n;
    const toBlock = await this.blockAt(to);
    if (!toBlock?.hash) throw new Error(`block ${to} is not available yet`);
    // Wallets whose holds cover the scanned blocks' time: a payment made while the server was down counts.
    const wallets = await this.repository.watchedWallets(this.config.network, cursor.blockTime);
    const headers = new Map<bigint, Block>([[to, toBlock]]);
    for (let index = 0; index < wallets.length; index += WALLETS_PER_CALL) {
      const logs = await this.client.getLogs({
        address: [...this.tokens.keys()] as `0x${string}`[],
        event: TRANSFER_EVENT,
        args: { to: wallets.slice(index, index + WALLETS_PER_CALL) as `0x${string}`[] },
        fromBlock: from,
        toBlock: to,
      });
      for (const log of logs) {
        if (log.removed || log.blockNumber === null || log.logIndex === null || log.transactionHash === null)
          continue;
        let header = headers.get(log.blockNumber);
        if (!header) {
          header = await this.blockAt(log.blockNumber);
          if (!header) throw new Error(`block ${log.blockNumber} vanished during the scan; rescanning`);
          headers.set(log.blockNumber, header);
        }
        // The endpoint answered from a fork the chain has left: scan again on the next tick.
        if (header.hash !== log.blockHash)
          throw new Error(`block ${log.blockNumber} changed during the scan; rescanning`);
        await this.handleTransfer({
          txHash: log.transactionHash,
          logIndex: log.logIndex,
          blockNumber: log.blockNumber,
          blockHash: log.blockHash,
          blockTime: new Date(Number(header.timestamp) * 1000),
          token: this.tokens.get(log.address.toLowerCase())!,
          from: (log.args.from ?? '').toLowerCase(),
          to: (log.args.to ?? '').toLowerCase(),
          value: log.args.value ?? 0n,
        });
      }
    }
    this.state.blocksScanned += Number(to - cursor.blockNumber);
    await this.saveCursor(cursorOf(toBlock));
  }

  /** Records one transfer once: a payment when an open checkout holds its exact amount, else unmatched. */
  private async handleTransfer(transfer: ObservedTransfer): Promise<void> {
    const key = { network: this.config.network, txHash: transfer.txHash, logIndex: transfer.logIndex };
    if (await this.repository.isKnown(key)) return;
    this.state.transfersSeen++;
    const amount = scaledToDecimal(transfer.value, transfer.token.decimals);
    const row: Insertable<ChainTransfersTable> = {
      network: this.config.network,
      tx_hash: transfer.txHash,
      log_index: transfer.logIndex,
      block_number: transfer.blockNumber.toString(),
      block_hash: transfer.blockHash,
      block_time: transfer.blockTime.toISOString(),
      token_contract: transfer.token.contract,
      asset: transfer.token.asset,
      from_address: transfer.from,
      to_address: transfer.to,
      amount,
      transaction_code: null,
      payment_id: null,
      unmatched_reason: null,
      confirmed: 0,
      recorded_at: this.clock().toISOString(),
    };
    const holder = await this.repository.holderOf(
      { network: this.config.network, asset: transfer.token.asset, walletAddress: transfer.to },
      transfer.value,
      row.block_time!,
    );
    if (!holder) {
      await this.keepUnmatched(
        row,
        `No open checkout asks for exactly ${amount} ${transfer.token.asset} to this wallet.`,
      );
      return;
    }
    const paymentId = randomUUID();
    let recordedElsewhere = false;
    try {
      await this.sink.recordPayment({
        transactionCode: holder.transactionCode,
        paymentMethod: holder.paymentMethod,
        amount,
        txId: transfer.txHash,
        seenAt: transfer.blockTime,
        confirmAt: null,
        paymentId,
        alongside: async (scope) => {
          const stored = await this.repository.insertTransfer(
            { ...row, transaction_code: holder.transactionCode, payment_id: paymentId },
            scope,
          );
          // Another node stored this transfer (and its payment) first: roll this payment back.
          if (!stored) {
            recordedElsewhere = true;
            throw new Error(`transfer ${transfer.txHash}:${transfer.logIndex} is recorded already`);
          }
        },
      });
    } catch (error) {
      if (recordedElsewhere) return;
      if (!isRefusedPayment(error)) throw error;
      await this.keepUnmatched(
        { ...row, transaction_code: holder.transactionCode },
        `Checkout ${holder.transactionCode} asks for this amount but refused the payment: ${(error as Error).message}`,
      );
    }
  }

  private async keepUnmatched(row: Insertable<ChainTransfersTable>, reason: string): Promise<void> {
    await this.repository.insertTransfer({ ...row, unmatched_reason: reason });
    this.logger.warn(
      {
        network: this.config.network,
        txHash: row.tx_hash,
        amount: row.amount,
        asset: row.asset,
        to: row.to_address,
      },
      `unmatched transfer: ${reason}`,
    );
  }

  /**
   * Confirms transfers `confirmations` deep whose block is still on the chain, and retracts those
   * whose block has left it (the payment goes, and the checkout returns to the state its other
   * payments give it).
   */
  private async confirmOrRetract(head: bigint): Promise<void> {
    const waiting = await this.repository.unconfirmedTransfers(this.config.network);
    const headers = new Map<bigint, Block | undefined>();
    for (const transfer of waiting) {
      const blockNumber = BigInt(String(transfer.block_number));
      const deep = head - blockNumber + 1n >= BigInt(this.config.confirmations);
      if (!deep) continue;
      if (!headers.has(blockNumber)) headers.set(blockNumber, await this.blockAt(blockNumber));
      if (headers.get(blockNumber)?.hash !== transfer.block_hash) {
        await this.retract(transfer);
        continue;
      }
      await this.confirm(transfer);
    }
  }

  private async confirm(transfer: ChainTransferRow): Promise<void> {
    const key = keyOf(transfer);
    if (transfer.payment_id && transfer.transaction_code) {
      await this.sink.confirmPayment(transfer.transaction_code, transfer.payment_id, (scope) =>
        this.repository.markTransferConfirmed(key, scope),
      );
    } else {
      await this.repository.markTransferConfirmed(key);
    }
  }

  private async retract(transfer: ChainTransferRow): Promise<void> {
    const key = keyOf(transfer);
    this.logger.warn(
      { network: this.config.network, txHash: transfer.tx_hash, block: String(transfer.block_number) },
      'transfer left the chain in a reorganisation; un-counting it',
    );
    if (transfer.payment_id && transfer.transaction_code && transfer.unmatched_reason === null) {
      await this.sink.retractPayment(transfer.transaction_code, transfer.payment_id, (scope) =>
        this.repository.deleteTransfer(key, scope),
      );
    } else {
      await this.repository.deleteTransfer(key);
    }
  }

  /**
   * The block at the cursor is no longer the one scanned: un-counts the unconfirmed transfers whose
   * blocks left the chain and moves the cursor back by the confirmation depth, the deepest
   * reorganisation live mode promises to follow, so the new blocks are scanned.
   */
  private async followReorganisation(cursor: ChainCursor, head: bigint): Promise<void> {
    this.state.reorganisations++;
    const back = BigInt(this.config.confirmations);
    const restart = minBigInt(head, cursor.blockNumber > back ? cursor.blockNumber - back : 0n);
    this.logger.warn(
      { network: this.config.network, at: cursor.blockNumber.toString(), rescanFrom: restart.toString() },
      'chain reorganisation: the scanned block is no longer on the chain',
    );
    for (const transfer of await this.repository.unconfirmedTransfers(this.config.network)) {
      const header = await this.blockAt(BigInt(String(transfer.block_number)));
      if (header?.hash !== transfer.block_hash) await this.retract(transfer);
    }
    await this.saveCursor(await this.cursorAt(restart));
  }

  private async blockAt(blockNumber: bigint): Promise<Block | undefined> {
    try {
      return await this.client.getBlock({ blockNumber });
    } catch (error) {
      // Past the head (the chain got shorter in a reorganisation): there is no such block.
      if ((error as Error).name === 'BlockNotFoundError') return undefined;
      throw error;
    }
  }

  private async cursorAt(blockNumber: bigint): Promise<ChainCursor> {
    const block = await this.blockAt(blockNumber);
    if (!block?.hash) throw new Error(`block ${blockNumber} is not available yet`);
    return cursorOf(block);
  }

  private async saveCursor(cursor: ChainCursor): Promise<void> {
    await this.repository.saveCursor(this.config.network, cursor, this.clock().toISOString());
    this.state.scannedTo = cursor.blockNumber.toString();
  }
}

/** A `Transfer` log with the facts of its block. */
interface ObservedTransfer {
  txHash: string;
  logIndex: number;
  blockNumber: bigint;
  blockHash: string;
  blockTime: Date;
  token: WatchedToken;
  /** Lowercase hex. */
  from: string;
  to: string;
  /** Base units. */
  value: bigint;
}

function cursorOf(block: Block): ChainCursor {
  return {
    blockNumber: block.number!,
    blockHash: block.hash!,
    blockTime: new Date(Number(block.timestamp) * 1000).toISOString(),
  };
}

function keyOf(transfer: ChainTransferRow) {
  return { network: transfer.network, txHash: transfer.tx_hash, logIndex: transfer.log_index };
}

function minBigInt(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
