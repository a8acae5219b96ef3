import type { Logger } from 'pino';
import type { BitcoinRepository } from '../../db/bitcoin-repository.js';
import type { ChainTransferRow, LiveRailRepository } from '../../db/live-rail-repository.js';
import type { RefundTransferRow } from '../../db/refund-repository.js';
import type { RefundPayments } from '../../domain/refund-payments.js';
import { ChainTransferBooking } from '../chain-transfer-booking.js';
import type { PaymentSink } from '../payment-rail-provider.js';
import { PollLoop } from '../poll-loop.js';
import { type DecodedTransaction, decodeBlock, decodeTransaction } from './bitcoin-blocks.js';
import { type BitcoinNetworkConfig, confirmationsFor } from './bitcoin-network.js';
import { BitcoinPaymentRecorder, type Placement } from './bitcoin-payments.js';
import { BitcoinRefundTransfers } from './bitcoin-refunds.js';
import { BitcoinRpc } from './bitcoin-rpc.js';

/** Blocks scanned per step; a watcher far behind catches up over several steps. */
const BLOCKS_PER_STEP = 20;
/** How far a block's time may be from the time it was mined (consensus allows two hours ahead). */
const BLOCK_TIME_SLACK_SECONDS = 2 * 3600;
/** Blocks walked back on a first start at most: two weeks of blocks. */
const MAX_START_DEPTH = 2016;
/** Mempool transactions fetched per batch call. */
const MEMPOOL_BATCH = 200;
/**
 * New mempool transactions examined per poll: a first look at a full mainnet mempool (100 000 and
 * more) is spread over several polls instead of holding one for minutes.
 */
const MEMPOOL_PER_POLL = 10_000;
/**
 * Polls in a row an unmined payment must be missing from the node's mempool before it is taken back:
 * one miss can be a node restart; a replacement (RBF) or a conflicting spend is missing for good.
 */
const MISSING_POLLS_TO_DROP = 2;

/** What the watcher reports in `GET /api/health` and to the benchmark. */
export interface BitcoinWatcherHealth {
  chain: string;
  /** The node's tip at the last poll, and the newest block scanned. */
  nodeHeight: number | null;
  scannedHeight: number | null;
  lastError: string | null;
  consecutiveFailures: number;
  mempoolTransactions: number;
  blocksScanned: number;
  transfersRecorded: number;
  /** Unmined payments that left the mempool for good (replaced by fee, double-spent, dropped). */
  dropped: number;
  /** Reorganisations seen, and confirmed payments they took back from the chain (see the log). */
  reorganisations: number;
  confirmedReorganisedAway: number;
  /** Extended keys whose unpaid addresses in a row come near the gap limit (docs/bitcoin.md "Gap limit"). */
  gapWarnings: { wallet: string; unpaidInARow: number; gapLimit: number }[];
  rpcCalls: number;
  callsLastPoll: number;
}

/**
 * Follows a Bitcoin Core node for payments to the checkouts' scripts (docs/bitcoin.md "Finding
 * payments"). Each poll reads the mempool's new transactions, each once, and each new block of the
 * active chain, whole and raw; their output scripts are looked up among the watched ones in the
 * database. The node calls per block are the same whatever the number of open checkouts. Payments
 * are `processing` once seen and final at the confirmations the policy asks; an unmined one that
 * leaves the mempool (RBF, double spend) or a mined one whose block leaves the chain before then is
 * taken back.
 */
export class BitcoinWatcher {
  readonly rpc: BitcoinRpc;
  private readonly recorder: BitcoinPaymentRecorder;
  private readonly booking: ChainTransferBooking;
  private readonly refunds: BitcoinRefundTransfers | undefined;
  private readonly loop: PollLoop;
  /** Mempool transactions examined already. */
  private examined = new Set<string>();
  private mempool = new Set<string>();
  /** Unmined transfers missing from the mempool, by txid: polls in a row. */
  private readonly missing = new Map<string, number>();
  /** Outpoints spent by unmined transfers' transactions: a block spending one otherwise is a double spend. */
  private readonly spentBy = new Map<string, string>();
  /** Unpaid addresses in a row last logged per key, so the warning repeats every 5 more, not every poll. */
  private readonly gapWarned = new Map<string, number>();
  private wrongChain: string | undefined;
  private chainChecked = false;
  private readonly state: Omit<BitcoinWatcherHealth, 'lastError' | 'consecutiveFailures' | 'rpcCalls'>;

  constructor(
    private readonly config: BitcoinNetworkConfig,
    private readonly repository: BitcoinRepository,
    private readonly transfers: LiveRailRepository,
    sink: PaymentSink,
    private readonly clock: () => Date,
    private readonly logger: Logger,
    refundPayments?: RefundPayments,
  ) {
    this.rpc = new BitcoinRpc(config);
    this.recorder = new BitcoinPaymentRecorder(transfers, repository, sink, clock, logger);
    this.booking = new ChainTransferBooking(transfers, sink, logger);
    this.refunds = refundPayments && new BitcoinRefundTransfers(refundPayments, clock, logger);
    this.loop = new PollLoop({
      name: 'Bitcoin watcher',
      network: 'BITCOIN',
      intervalMs: config.pollIntervalMs,
      step: () => this.poll(),
      standingProblem: () => this.wrongChain,
      logger,
    });
    this.state = {
      chain: config.chain,
      nodeHeight: null,
      scannedHeight: null,
      mempoolTransactions: 0,
      blocksScanned: 0,
      transfersRecorded: 0,
      dropped: 0,
      reorganisations: 0,
      confirmedReorganisedAway: 0,
      gapWarnings: [],
      callsLastPoll: 0,
    };
  }

  /** Whether buyers can be sent to Bitcoin: false once the node proved to be on another chain. */
  get usable(): boolean {
    return this.wrongChain === undefined;
  }

  health(): BitcoinWatcherHealth {
    return {
      ...this.state,
      lastError: this.loop.lastError ?? this.wrongChain ?? null,
      consecutiveFailures: this.loop.consecutiveFailures,
      rpcCalls: this.rpc.totalCalls,
    };
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /**
   * One poll: new blocks (and a reorganisation), the mempool's new transactions, then confirmations
   * and what left the mempool.
   * @returns `behind` while blocks are left to scan.
   * @throws Error from the node or the database; the loop backs off and retries.
   */
  async poll(): Promise<'behind' | 'caught_up'> {
    const before = this.rpc.totalCalls;
    try {
      if (!(await this.chainMatches())) return 'caught_up';
      await this.refunds?.refresh();
      const behind = await this.followChain();
      await this.readMempool();
      // While blocks are left to read, a payment missing from the mempool may be in one of them.
      await this.settle(!behind);
      await this.checkGaps();
      return behind ? 'behind' : 'caught_up';
    } finally {
      this.state.callsLastPoll = this.rpc.totalCalls - before;
    }
  }

  /** Scans the blocks after the last scanned one, after taking back what a reorganisation dropped. */
  private async followChain(): Promise<boolean> {
    const best = await this.rpc.getBestBlockHash();
    const tip = await this.repository.tip();
    if (tip?.hash === best) {
      // Nothing new (or a restart with nothing new): the node's tip is the one scanned last.
      this.state.nodeHeight = tip.height;
      this.state.scannedHeight = tip.height;
      return false;
    }
    const nodeHeight = await this.rpc.getBlockCount();
    this.state.nodeHeight = nodeHeight;
    let height = tip ? await this.forkPoint(tip, nodeHeight) : await this.startHeight(nodeHeight);
    const last = Math.min(nodeHeight, height + BLOCKS_PER_STEP);
    while (height < last) {
      height++;
      await this.scanBlock(height, await this.rpc.getBlockHash(height));
    }
    this.state.scannedHeight = height;
    return height < nodeHeight;
  }

  /**
   * Where a watcher that never scanned a block starts: at the node's tip when no address was handed
   * out yet; otherwise below the first block that can hold a payment to one (checkouts can be opened,
   * and paid, while the node is still unreachable at the first start). Block times may be two hours
   * off, so two more hours are read. @returns the height before the first block to scan.
   */
  private async startHeight(nodeHeight: number): Promise<number> {
    const earliest = await this.repository.earliestScriptTime();
    if (earliest === undefined) return nodeHeight - 1;
    const since = Date.parse(earliest) / 1000 - BLOCK_TIME_SLACK_SECONDS;
    let height = nodeHeight;
    for (let walked = 0; height > 0 && walked < MAX_START_DEPTH; walked++) {
      const header = await this.rpc.getBlockHeader(await this.rpc.getBlockHash(height));
      if (header.time < since) return height;
      height--;
    }
    return height;
  }

  /**
   * The newest scanned height still in the node's active chain. Below the stored tip, a
   * reorganisation happened: what was mined above the fork is put back to "seen".
   */
  private async forkPoint(tip: { height: number; hash: string }, nodeHeight: number): Promise<number> {
    let height = tip.height;
    while (height > 0) {
      const stored = await this.repository.blockHashAt(height);
      // Older than the blocks kept: the chain is taken as shared from there.
      if (stored === undefined) break;
      if (height <= nodeHeight && (await this.rpc.getBlockHash(height)) === stored) break;
      height--;
    }
    if (height < tip.height) await this.reorganised(height, tip.height);
    return height;
  }

  private async reorganised(forkHeight: number, oldTip: number): Promise<void> {
    this.state.reorganisations++;
    const lost = await this.repository.unmineAbove(forkHeight);
    this.logger.warn(
      { network: 'BITCOIN', forkHeight, droppedBlocks: oldTip - forkHeight },
      'a reorganisation replaced blocks; their unconfirmed payments wait to be mined again',
    );
    for (const transfer of lost) {
      this.state.confirmedReorganisedAway++;
      this.logger.error(
        {
          network: 'BITCOIN',
          txid: transfer.tx_hash,
          transactionCode: transfer.transaction_code,
          amount: transfer.amount,
        },
        'a reorganisation deeper than the confirmations asked took a confirmed payment out of the chain: check that it is mined again, and raise --bitcoin-confirmations',
      );
    }
  }

  private async scanBlock(height: number, hash: string): Promise<void> {
    const block = decodeBlock(await this.rpc.getRawBlock(hash));
    const placement: Placement = { mined: true, height, hash, time: new Date(block.time * 1000) };
    await this.examine(block.transactions, placement);
    // A transaction of this block spending what an unmined payment spent: that payment can never be mined.
    for (const transaction of block.transactions) {
      for (const outpoint of transaction.spends) {
        const payment = this.spentBy.get(outpoint);
        if (payment !== undefined && payment !== transaction.txid)
          this.missing.set(payment, MISSING_POLLS_TO_DROP);
      }
    }
    await this.repository.saveBlock(height, hash, this.clock().toISOString());
    this.state.blocksScanned++;
  }

  /** Reads the mempool's transactions not examined yet, in batches. */
  private async readMempool(): Promise<void> {
    const txids = await this.rpc.getRawMempool();
    this.mempool = new Set(txids);
    this.state.mempoolTransactions = txids.length;
    const fresh = txids.filter((txid) => !this.examined.has(txid)).slice(0, MEMPOOL_PER_POLL);
    const placement: Placement = { mined: false, seenAt: this.clock() };
    for (let start = 0; start < fresh.length; start += MEMPOOL_BATCH) {
      const batch = fresh.slice(start, start + MEMPOOL_BATCH);
      const decoded: DecodedTransaction[] = [];
      for (const hex of (await this.rpc.getRawTransactions(batch)).values()) {
        if (hex !== undefined) decoded.push(decodeTransaction(hex));
      }
      await this.examine(decoded, placement);
      for (const txid of batch) this.examined.add(txid);
    }
    // Forget what left the mempool: only the current mempool is ever listed again.
    for (const txid of this.examined) if (!this.mempool.has(txid)) this.examined.delete(txid);
  }

  private async examine(transactions: readonly DecodedTransaction[], placement: Placement): Promise<void> {
    const watched = await this.repository.watchedAmong(
      BitcoinPaymentRecorder.scriptsOf(transactions),
      this.clock().toISOString(),
    );
    for (const transaction of transactions) {
      let touched = false;
      if (watched.size > 0) {
        const { stored, matched } = await this.recorder.record(transaction, placement, watched);
        this.state.transfersRecorded += stored;
        touched = matched;
        if (!placement.mined && stored > 0) {
          for (const outpoint of transaction.spends) this.spentBy.set(outpoint, transaction.txid);
        }
      }
      if (await this.refunds?.record(transaction, placement)) touched = true;
      // Seen in the mempool (or in a dropped block) before: it is mined now, here.
      if (touched && placement.mined) {
        await this.repository.markMined(
          transaction.txid,
          placement.height,
          placement.hash,
          placement.time.toISOString(),
        );
      }
    }
  }

  /**
   * Makes final what has its confirmations; takes back an unmined payment missing from the mempool
   * (replaced, double-spent, dropped) for {@link MISSING_POLLS_TO_DROP} polls.
   */
  private async settle(caughtUp: boolean): Promise<void> {
    const payments = await this.transfers.unconfirmedTransfers('BITCOIN');
    const refundTransfers = (await this.refunds?.unconfirmed()) ?? [];
    if (payments.length === 0 && refundTransfers.length === 0) {
      this.spentBy.clear();
      this.missing.clear();
      return;
    }
    const tipHeight = (await this.repository.tip())?.height ?? 0;
    const amounts = await this.repository.orderAmounts(
      payments.flatMap((payment) => (payment.transaction_code ? [payment.transaction_code] : [])),
    );
    const transfers = [...payments, ...refundTransfers];
    const unmined = new Set(
      transfers.filter((transfer) => Number(transfer.block_number) === 0).map((transfer) => transfer.tx_hash),
    );
    if (caughtUp) for (const txid of unmined) this.countMiss(txid);
    for (const transfer of transfers) {
      const outcome = this.outcomeOf(transfer, tipHeight, amounts);
      if (outcome === 'waiting') continue;
      if ('refund_id' in transfer) {
        if (outcome === 'final') await this.refunds!.confirm(transfer);
        else await this.refunds!.forget(transfer);
        continue;
      }
      if (outcome === 'final') {
        await this.booking.confirm(transfer);
      } else {
        this.state.dropped++;
        await this.booking.retract(
          transfer,
          'a Bitcoin payment left the mempool before it was mined (replaced by fee, double-spent or dropped); un-counting it',
        );
      }
    }
    for (const txid of this.missing.keys()) if (!unmined.has(txid)) this.missing.delete(txid);
    for (const [outpoint, txid] of this.spentBy) if (!unmined.has(txid)) this.spentBy.delete(outpoint);
  }

  /** One more poll an unmined transaction is missing from the mempool, or none when it is there. */
  private countMiss(txid: string): void {
    const misses = this.missing.get(txid) ?? 0;
    // A block spent its inputs otherwise (see scanBlock): it stays dropped.
    if (misses >= MISSING_POLLS_TO_DROP) return;
    if (this.mempool.has(txid)) this.missing.delete(txid);
    else this.missing.set(txid, misses + 1);
  }

  private outcomeOf(
    transfer: ChainTransferRow | RefundTransferRow,
    tipHeight: number,
    amounts: ReadonlyMap<string, string>,
  ): 'final' | 'dropped' | 'waiting' {
    const height = Number(transfer.block_number);
    if (height > 0) {
      const code = 'transaction_code' in transfer ? transfer.transaction_code : null;
      const needed = confirmationsFor(this.config.policy, (code && amounts.get(code)) || '0');
      return tipHeight - height + 1 >= needed ? 'final' : 'waiting';
    }
    return (this.missing.get(transfer.tx_hash) ?? 0) >= MISSING_POLLS_TO_DROP ? 'dropped' : 'waiting';
  }

  /**
   * Warns, in the log and `/api/health`, about extended keys whose unpaid addresses in a row reach
   * three quarters of the gap limit: past the limit, the merchant's wallet software stops looking and
   * would not show later payments until its gap limit is raised (docs/bitcoin.md "Gap limit").
   */
  private async checkGaps(): Promise<void> {
    const warnings: BitcoinWatcherHealth['gapWarnings'] = [];
    for (const wallet of await this.repository.wallets()) {
      const unpaidInARow = wallet.next_index - 1 - (wallet.highest_paid_index ?? -1);
      if (unpaidInARow * 4 < this.config.gapLimit * 3) continue;
      const shown = `${wallet.wallet.slice(0, 12)}…${wallet.wallet.slice(-6)}`;
      warnings.push({ wallet: shown, unpaidInARow, gapLimit: this.config.gapLimit });
      const before = this.gapWarned.get(wallet.wallet_id);
      if (before === undefined || unpaidInARow >= before + 5) {
        this.gapWarned.set(wallet.wallet_id, unpaidInARow);
        this.logger.warn(
          { network: 'BITCOIN', wallet: shown, unpaidInARow, gapLimit: this.config.gapLimit },
          unpaidInARow >= this.config.gapLimit
            ? 'a Bitcoin key has more unpaid addresses in a row than the gap limit: the merchant\'s wallet software will not show later payments until its gap limit is raised (docs/bitcoin.md "Gap limit")'
            : 'a Bitcoin key comes near the gap limit: ask the merchant to raise the gap limit in their wallet software (docs/bitcoin.md "Gap limit")',
        );
      }
    }
    this.state.gapWarnings = warnings;
  }

  /** Checks once that the node is on the configured chain (testnet coins are worth nothing). */
  private async chainMatches(): Promise<boolean> {
    if (this.wrongChain) return false;
    if (this.chainChecked) return true;
    const info = await this.rpc.getBlockchainInfo();
    if (info.chain !== this.config.chain) {
      this.wrongChain = `The Bitcoin node at ${new URL(this.config.rpcUrl).origin} is on chain "${info.chain}", but this server takes payments on "${this.config.chain}"; point --rpc-url BITCOIN at a ${this.config.chain === 'main' ? 'mainnet' : this.config.chain} node, or set --bitcoin-chain.`;
      this.logger.error({ network: 'BITCOIN' }, this.wrongChain);
      return false;
    }
    this.chainChecked = true;
    return true;
  }
}
