import type { Logger } from 'pino';
import { type Block, createPublicClient, http, type PublicClient } from 'viem';
import type { DepositRepository } from '../../db/deposit-repository.js';
import type { ChainCursor, LiveRailRepository } from '../../db/live-rail-repository.js';
import type { RefundPayments } from '../../domain/refund-payments.js';
import type { PaymentSink } from '../payment-rail-provider.js';
import { PollLoop } from '../poll-loop.js';
import type { EvmNetworkConfig } from './evm-networks.js';
import type { Forwarder } from './forwarder.js';
import { RefundTransfers } from './refund-transfers.js';
import { TransferConfirmer } from './transfer-confirmer.js';
import { TransferLogSource } from './transfer-logs.js';
import { type ObservedTransfer, TransferRecorder } from './transfer-recorder.js';

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
  /** `eth_getLogs` calls made so far (bounded per block range whatever the number of addresses). */
  logCalls: number;
}

type TickOutcome = 'behind' | 'caught_up';

/**
 * Follows one EVM network for ERC-20 `Transfer` logs of the configured tokens to the merchants'
 * wallets with an open direct-mode checkout and to deposit addresses, from a stored cursor, in
 * bounded block ranges. Transfers are recorded (TransferRecorder), confirmed once `confirmations`
 * blocks include them or retracted when their block leaves the chain first (TransferConfirmer), and
 * in deposit mode forwarded to the merchants (Forwarder). docs/live-mode.md "The watcher".
 */
export class EvmWatcher {
  readonly client: PublicClient;
  private readonly logs: TransferLogSource;
  private readonly recorder: TransferRecorder;
  private readonly refundTransfers: RefundTransfers | undefined;
  readonly confirmer: TransferConfirmer;
  private forwarder: Forwarder | undefined;
  private wrongChain: string | undefined;
  private chainIdChecked = false;
  private readonly state: WatcherHealth;
  private readonly loop: PollLoop;

  constructor(
    private readonly config: EvmNetworkConfig,
    private readonly repository: LiveRailRepository,
    sink: PaymentSink,
    private readonly clock: () => Date,
    private readonly logger: Logger,
    /** Deposit mode: the checkouts' forwarder addresses are watched too. */
    deposits?: DepositRepository,
    /** Refunds: the addresses buyers confirmed are watched for the merchant's transfers. */
    refunds?: RefundPayments,
  ) {
    // viem's own retries are off: the watcher backs off itself and resumes from its cursor.
    this.client = createPublicClient({ transport: http(config.rpcUrl, { retryCount: 0, timeout: 15_000 }) });
    this.logs = new TransferLogSource(
      this.client,
      new Map(config.tokens.map((token) => [token.contract, token])),
    );
    this.recorder = new TransferRecorder(config, repository, deposits, sink, clock, logger);
    this.refundTransfers = refunds && new RefundTransfers(config, refunds, clock, logger);
    this.confirmer = new TransferConfirmer(
      config,
      repository,
      sink,
      (blockNumber) => this.blockAt(blockNumber),
      logger,
    );
    this.loop = new PollLoop({
      name: 'chain watcher',
      network: config.network,
      intervalMs: config.pollIntervalMs,
      step: () => this.tick(),
      standingProblem: () => this.wrongChain,
      logger,
    });
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
      logCalls: 0,
    };
  }

  /** Deposit mode: the forwarder that runs after each step, on the same head. */
  attachForwarder(forwarder: Forwarder): void {
    this.forwarder = forwarder;
  }

  /** Whether buyers can be sent to this network: false once the endpoint reported another chain. */
  get usable(): boolean {
    return this.wrongChain === undefined;
  }

  health(): WatcherHealth & { forwarding?: ReturnType<Forwarder['health']> } {
    return {
      ...this.state,
      lastError: this.loop.lastError ?? this.wrongChain ?? null,
      consecutiveFailures: this.loop.consecutiveFailures,
      logCalls: this.logs.calls,
      ...(this.forwarder ? { forwarding: this.forwarder.health() } : {}),
    };
  }

  /** Starts the loop; the first step runs at once. */
  start(): void {
    this.loop.start();
  }

  /** Stops the loop and waits for a step under way. */
  async stop(): Promise<void> {
    await this.loop.stop();
    await this.forwarder?.stop();
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
    await this.confirmer.confirmOrRetract(head);
    await this.refundTransfers?.confirmOrRetract(head, (blockNumber) => this.blockAt(blockNumber));
    await this.forwarder?.step(head);
    return outcome;
  }

  private async chainIdMatches(): Promise<boolean> {
    if (this.wrongChain) return false;
    if (this.chainIdChecked) return true;
    const chainId = await this.client.getChainId();
    if (chainId !== this.config.chainId) {
      this.wrongChain = `The RPC endpoint for ${this.config.network} reports chain id ${chainId}, not ${this.config.chainId}; fix --rpc-url or set --chain-id ${this.config.network}=${chainId} with --token contracts.`;
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
    // Addresses whose holds cover the scanned blocks' time: a payment made while the server was down counts.
    const payments = await this.recorder.recipientsSince(cursor.blockTime);
    const refundAddresses = (await this.refundTransfers?.recipients()) ?? [];
    const recipients = payments === 'all' ? payments : [...payments, ...refundAddresses];
    const headers = new Map<bigint, Block>([[to, toBlock]]);
    const observed: ObservedTransfer[] = [];
    const read =
      recipients !== 'all' && recipients.length === 0 ? [] : await this.logs.read(from, to, recipients);
    // Every transfer of the token was read: keep ours before asking for their blocks' times.
    const logs =
      recipients === 'all'
        ? [...(await this.recorder.ownTransfers(read)), ...(this.refundTransfers?.own(read) ?? [])]
        : read;
    logs.sort((a, b) =>
      a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1,
    );
    for (const log of logs) {
      let header = headers.get(log.blockNumber);
      if (!header) {
        header = await this.blockAt(log.blockNumber);
        if (!header) throw new Error(`block ${log.blockNumber} vanished during the scan; rescanning`);
        headers.set(log.blockNumber, header);
      }
      // The endpoint answered from a fork the chain has left: scan again on the next tick.
      if (header.hash !== log.blockHash)
        throw new Error(`block ${log.blockNumber} changed during the scan; rescanning`);
      observed.push({ ...log, blockTime: new Date(Number(header.timestamp) * 1000) });
    }
    this.state.transfersSeen += await this.recorder.recordAll(observed);
    await this.refundTransfers?.record(observed);
    this.state.blocksScanned += Number(to - cursor.blockNumber);
    await this.saveCursor(cursorOf(toBlock));
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
    await this.confirmer.retractOrphans();
    await this.refundTransfers?.retractOrphans((blockNumber) => this.blockAt(blockNumber));
    await this.saveCursor(await this.cursorAt(restart));
  }

  async blockAt(blockNumber: bigint): Promise<Block | undefined> {
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

function cursorOf(block: Block): ChainCursor {
  return {
    blockNumber: block.number!,
    blockHash: block.hash!,
    blockTime: new Date(Number(block.timestamp) * 1000).toISOString(),
  };
}

function minBigInt(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
