import type { Logger } from 'pino';
import type { ChainTransferRow, LiveRailRepository } from '../../db/live-rail-repository.js';
import type { RefundTransferRow } from '../../db/refund-repository.js';
import type { SolanaRepository, WatchedSolanaWallet } from '../../db/solana-repository.js';
import type { RefundPayments } from '../../domain/refund-payments.js';
import { findRail } from '../catalog.js';
import { ChainTransferBooking } from '../chain-transfer-booking.js';
import type { PaymentSink } from '../payment-rail-provider.js';
import { PollLoop } from '../poll-loop.js';
import { associatedTokenAccount } from './solana-addresses.js';
import { MAINNET_GENESIS_HASH, type SolanaNetworkConfig } from './solana-network.js';
import { SolanaPaymentRecorder } from './solana-payments.js';
import { SolanaRefundTransfers } from './solana-refunds.js';
import { type SignatureInfo, type SignatureStatus, SolanaRpc } from './solana-rpc.js';

/** Signatures per `getSignaturesForAddress` page (the method's maximum). */
const PAGE = 1000;
/** Pages read per address in one poll; more means the wallet is far busier than a shop's. */
const MAX_PAGES = 50;
/** How much older than the oldest watched checkout a payment's block time may be (producers' clocks). */
const CLOCK_SLACK_MS = 120_000;
/** `getSignatureStatuses` takes at most 256 signatures a call. */
const STATUS_BATCH = 256;

/** What the watcher reports in `GET /api/health` and to the benchmark. */
export interface SolanaWatcherHealth {
  commitment: string;
  /** The cluster's finalized slot at the last poll (null before the first). */
  finalizedSlot: number | null;
  lastError: string | null;
  consecutiveFailures: number;
  /** Merchant wallets with an open checkout at the last poll, and the addresses read for them. */
  walletsWatched: number;
  addressesRead: number;
  transactionsExamined: number;
  transfersRecorded: number;
  /** Transfers seen at `confirmed` that the cluster dropped before finalizing them. */
  dropped: number;
  /** Reads that stopped at the page limit, leaving older new signatures unread (see the log). */
  truncatedReads: number;
  /** RPC calls made so far, and by the last poll: bounded by wallets and new transactions, never by open checkouts. */
  rpcCalls: number;
  callsLastPoll: number;
}

/**
 * Follows Solana for payments to the merchants' wallets (docs/solana.md "Finding payments"). Each
 * poll reads the new signatures of every watched wallet and of its associated token accounts since
 * a stored cursor, fetches each new transaction once, and books those that carry a checkout's
 * Solana Pay reference (SolanaPaymentRecorder). Payments are `processing` at `confirmed` and final
 * once the cluster finalized them; one dropped before that is taken back.
 */
export class SolanaWatcher {
  readonly rpc: SolanaRpc;
  private readonly recorder: SolanaPaymentRecorder;
  private readonly booking: ChainTransferBooking;
  private readonly refunds: SolanaRefundTransfers | undefined;
  /** Signatures examined, by slot: a transaction seen at `confirmed` is not fetched again before its cursor passes it. */
  private readonly examined = new Map<string, number>();
  private wrongCluster: string | undefined;
  private clusterChecked = false;
  private readonly state: SolanaWatcherHealth;
  private readonly loop: PollLoop;

  constructor(
    private readonly config: SolanaNetworkConfig,
    private readonly references: SolanaRepository,
    private readonly transfers: LiveRailRepository,
    sink: PaymentSink,
    private readonly clock: () => Date,
    private readonly logger: Logger,
    refundPayments?: RefundPayments,
  ) {
    this.rpc = new SolanaRpc(config.rpcUrl);
    this.recorder = new SolanaPaymentRecorder(config, transfers, references, sink, clock, logger);
    this.booking = new ChainTransferBooking(transfers, sink, logger);
    this.refunds =
      refundPayments && new SolanaRefundTransfers(config, this.rpc, refundPayments, clock, logger);
    this.loop = new PollLoop({
      name: 'Solana watcher',
      network: 'SOLANA',
      intervalMs: config.pollIntervalMs,
      step: async () => {
        await this.poll();
        return 'caught_up';
      },
      standingProblem: () => this.wrongCluster,
      logger,
    });
    this.state = {
      commitment: config.commitment,
      finalizedSlot: null,
      lastError: null,
      consecutiveFailures: 0,
      walletsWatched: 0,
      addressesRead: 0,
      transactionsExamined: 0,
      transfersRecorded: 0,
      dropped: 0,
      truncatedReads: 0,
      rpcCalls: 0,
      callsLastPoll: 0,
    };
  }

  /** Whether buyers can be sent to Solana: false once the endpoint proved to be another cluster. */
  get usable(): boolean {
    return this.wrongCluster === undefined;
  }

  health(): SolanaWatcherHealth {
    return {
      ...this.state,
      lastError: this.loop.lastError ?? this.wrongCluster ?? null,
      consecutiveFailures: this.loop.consecutiveFailures,
      rpcCalls: this.rpc.totalCalls,
    };
  }

  /** Starts the loop; the first step runs at once. */
  start(): void {
    this.loop.start();
  }

  /** Stops the loop and waits for a step under way. */
  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /**
   * One poll: reads the watched addresses' new signatures, books the new transactions, looks for
   * refund payments, then makes final what the cluster finalized and takes back what it dropped.
   * @throws Error from the RPC endpoint or the database; the loop backs off and retries.
   */
  async poll(): Promise<void> {
    const before = this.rpc.totalCalls;
    try {
      if (!(await this.clusterMatches())) return;
      const wallets = await this.references.watchedWallets(this.clock().toISOString());
      this.state.walletsWatched = wallets.length;
      const listed = new Map<string, SignatureInfo[]>();
      for (const wallet of wallets) {
        const since = Date.parse(wallet.since) - CLOCK_SLACK_MS;
        for (const address of await this.addressesOf(wallet)) {
          listed.set(address, await this.newSignatures(address, since));
        }
      }
      this.state.addressesRead = listed.size;
      await this.examine(listed, await this.assetsByWallet(wallets));
      await this.saveCursors(listed);
      await this.refunds?.poll();
      await this.settle();
    } finally {
      this.state.callsLastPoll = this.rpc.totalCalls - before;
    }
  }

  /** The wallet itself (SOL, and transfers that create its token accounts) and its token accounts for the assets its checkouts ask. */
  private async addressesOf(wallet: WatchedSolanaWallet): Promise<string[]> {
    const addresses = [wallet.walletAddress];
    for (const method of wallet.paymentMethods) {
      const mint = this.config.assets.find((each) => each.asset === findRail(method)?.asset)?.mint;
      if (mint) addresses.push(await associatedTokenAccount(wallet.walletAddress, mint));
    }
    return [...new Set(addresses)];
  }

  private async assetsByWallet(wallets: readonly WatchedSolanaWallet[]): Promise<Map<string, Set<string>>> {
    return new Map(
      wallets.map((wallet) => [
        wallet.walletAddress,
        new Set(wallet.paymentMethods.flatMap((method) => findRail(method)?.asset ?? [])),
      ]),
    );
  }

  /**
   * Signatures of `address` after its cursor, newest first, back to `since` (ms) at most: a first
   * look at a wallet reads only what its checkouts could have been paid by.
   */
  private async newSignatures(address: string, since: number): Promise<SignatureInfo[]> {
    const cursor = await this.references.cursor(address);
    const found: SignatureInfo[] = [];
    let before: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const entries = await this.rpc.getSignaturesForAddress(address, {
        limit: PAGE,
        ...(cursor ? { until: cursor.signature } : {}),
        ...(before ? { before } : {}),
      });
      for (const entry of entries) {
        if (entry.blockTime !== null && entry.blockTime * 1000 < since) return found;
        found.push(entry);
      }
      if (entries.length < PAGE) return found;
      before = entries[entries.length - 1]!.signature;
    }
    // Far beyond a shop's traffic: the oldest new signatures are not read, and a payment among them
    // would go unseen. Said loudly, in the log and in /api/health, for the operator to look at.
    this.state.truncatedReads++;
    this.logger.error(
      { network: 'SOLANA', address, signatures: found.length },
      `a watched Solana address has more than ${MAX_PAGES * PAGE} new transactions since the last poll; the oldest of them are not read: check this wallet's payments by hand`,
    );
    return found;
  }

  /** Fetches each new signature once, oldest first, and books what it carries. */
  private async examine(
    listed: ReadonlyMap<string, SignatureInfo[]>,
    wallets: ReadonlyMap<string, ReadonlySet<string>>,
  ): Promise<void> {
    const unique = new Map<string, SignatureInfo>();
    for (const entries of listed.values()) for (const entry of entries) unique.set(entry.signature, entry);
    const ordered = [...unique.values()].sort((a, b) => a.slot - b.slot);
    for (const entry of ordered) {
      if (this.examined.has(entry.signature)) continue;
      // A failed transaction moved nothing but its fee: it pays nothing, whatever it names.
      if (entry.err !== null || (await this.recorder.isKnown(entry.signature))) {
        this.examined.set(entry.signature, entry.slot);
        continue;
      }
      const transaction = await this.rpc.getTransaction(entry.signature);
      // Not served yet by this endpoint (a lagging node): the next poll asks again.
      if (!transaction) continue;
      this.state.transactionsExamined++;
      if (transaction.meta?.err === null) {
        this.state.transfersRecorded += await this.recorder.record(entry.signature, transaction, wallets);
      }
      this.examined.set(entry.signature, entry.slot);
    }
  }

  /**
   * Moves each address's cursor to its newest finalized signature below which everything was
   * examined: what comes after it (still `confirmed`, or not served yet) is listed again next time.
   */
  private async saveCursors(listed: ReadonlyMap<string, SignatureInfo[]>): Promise<void> {
    const now = this.clock().toISOString();
    let oldestCursorSlot = Number.POSITIVE_INFINITY;
    for (const [address, entries] of listed) {
      let cursor: SignatureInfo | undefined;
      for (const entry of [...entries].reverse()) {
        if (!this.examined.has(entry.signature)) break;
        if (entry.confirmationStatus === 'finalized') cursor = entry;
      }
      if (cursor) {
        await this.references.saveCursor(address, cursor.signature, cursor.slot, now);
        oldestCursorSlot = Math.min(oldestCursorSlot, cursor.slot);
      }
    }
    // Signatures behind every cursor are never listed again.
    for (const [signature, slot] of this.examined) {
      if (slot < oldestCursorSlot && this.examined.size > PAGE) this.examined.delete(signature);
    }
  }

  /** Makes final what the cluster finalized; takes back what it dropped (its slot is finalized without it). */
  private async settle(): Promise<void> {
    const payments =
      this.config.commitment === 'finalized' ? await this.transfers.unconfirmedTransfers('SOLANA') : [];
    const refundTransfers = (await this.refunds?.unconfirmed()) ?? [];
    if (payments.length === 0 && refundTransfers.length === 0) return;
    const finalizedSlot = await this.rpc.getSlot('finalized');
    this.state.finalizedSlot = finalizedSlot;
    const signatures = [...new Set([...payments, ...refundTransfers].map((each) => each.tx_hash))];
    const statuses = new Map<string, SignatureStatus | null>();
    for (let start = 0; start < signatures.length; start += STATUS_BATCH) {
      const batch = signatures.slice(start, start + STATUS_BATCH);
      const answers = await this.rpc.getSignatureStatuses(batch);
      for (const [index, signature] of batch.entries()) statuses.set(signature, answers[index] ?? null);
    }
    for (const transfer of payments) {
      const outcome = this.outcomeOf(transfer, statuses.get(transfer.tx_hash) ?? null, finalizedSlot);
      if (outcome === 'final') await this.booking.confirm(transfer);
      if (outcome === 'dropped') {
        this.state.dropped++;
        await this.booking.retract(
          transfer,
          'a Solana transfer was dropped before the cluster finalized it; un-counting it',
        );
      }
    }
    for (const transfer of refundTransfers) {
      const outcome = this.outcomeOf(transfer, statuses.get(transfer.tx_hash) ?? null, finalizedSlot);
      if (outcome === 'final') await this.refunds!.confirm(transfer);
      if (outcome === 'dropped') await this.refunds!.forget(transfer);
    }
  }

  private outcomeOf(
    transfer: ChainTransferRow | RefundTransferRow,
    status: SignatureStatus | null,
    finalizedSlot: number,
  ): 'final' | 'dropped' | 'waiting' {
    if (status && status.err === null) {
      const final =
        status.confirmationStatus === 'finalized' ||
        (this.config.commitment === 'confirmed' && status.confirmationStatus === 'confirmed');
      return final ? 'final' : 'waiting';
    }
    // Unknown to the cluster once its slot is finalized: it never made it into the finalized chain.
    return Number(transfer.block_number) <= finalizedSlot ? 'dropped' : 'waiting';
  }

  /** Checks once that the endpoint is mainnet's when the mints are mainnet's (another cluster's tokens mean nothing). */
  private async clusterMatches(): Promise<boolean> {
    if (this.wrongCluster) return false;
    if (this.clusterChecked || this.config.customMints) return true;
    const genesis = await this.rpc.getGenesisHash();
    if (genesis !== MAINNET_GENESIS_HASH) {
      this.wrongCluster = `The RPC endpoint for SOLANA serves another cluster (genesis ${genesis}), but the mints are mainnet's; point --rpc-url SOLANA at mainnet, or name that cluster's mints with --token SOLANA:USDC=<mint>.`;
      this.logger.error({ network: 'SOLANA' }, this.wrongCluster);
      return false;
    }
    this.clusterChecked = true;
    return true;
  }
}
