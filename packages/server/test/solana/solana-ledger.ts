import {
  address,
  getBase58Decoder,
  getCompiledTransactionMessageDecoder,
  getSignatureFromTransaction,
  getTransactionEncoder,
  type Transaction,
} from '@solana/kit';
import { FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from 'litesvm';
import {
  describeTransactionError,
  failsInsideBlock,
  type RpcTransactionError,
  rpcTransactionError,
} from './solana-transaction-errors.js';

export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';

/** The commitments of Solana's JSON-RPC; `processed` reads like `confirmed` here (no forks below it). */
export type Commitment = 'processed' | 'confirmed' | 'finalized';

/** An account as the ledger keeps it around a transaction. */
export interface AccountSnapshot {
  lamports: bigint;
  owner: string;
  executable: boolean;
  /** Null for a program (executable) account: programs never change here, and copying them would cost megabytes. */
  data: Uint8Array | null;
}

/** A token account's balance around a transaction, in the terms of `meta.preTokenBalances`. */
export interface TokenBalanceRecord {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  amount: bigint;
  decimals: number;
}

/** An instruction as compiled into the message: indexes into the account keys. */
export interface CompiledInstructionRecord {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
  /** Null for the message's own instructions (as the JSON-RPC reports them), the depth for inner ones. */
  stackHeight: number | null;
}

/** Everything the chain remembers of a transaction that made it into a slot. */
export interface LedgerEntry {
  /** Order of arrival: a total order across slots (each transaction has a slot of its own here anyway). */
  readonly sequence: number;
  readonly signature: string;
  readonly signatures: string[];
  /** The transaction as sent (wire format), for the binary encodings of getTransaction. */
  readonly wire: Uint8Array;
  readonly slot: number;
  readonly blockTime: number;
  readonly version: 'legacy' | 0;
  readonly header: {
    numRequiredSignatures: number;
    numReadonlySignedAccounts: number;
    numReadonlyUnsignedAccounts: number;
  };
  readonly accountKeys: string[];
  readonly writable: boolean[];
  readonly recentBlockhash: string;
  readonly instructions: CompiledInstructionRecord[];
  readonly innerInstructions: { index: number; instructions: CompiledInstructionRecord[] }[];
  readonly err: RpcTransactionError | null;
  readonly fee: bigint;
  readonly logMessages: string[];
  readonly computeUnitsConsumed: bigint;
  /** Per account key: the account before and after (null when it did not exist). */
  readonly pre: (AccountSnapshot | null)[];
  readonly post: (AccountSnapshot | null)[];
  readonly preTokenBalances: TokenBalanceRecord[];
  readonly postTokenBalances: TokenBalanceRecord[];
  /**
   * Sent with dropLater: it lives on a fork the canonical chain never contains. Simulated against the
   * canonical state, shown at `confirmed`, never applied, never finalized.
   */
  readonly fork: boolean;
}

/** What became of a transaction handed to the ledger. */
export type Submission =
  | { landed: true; entry: LedgerEntry }
  | {
      landed: false;
      /** Turned away by the preflight simulation (a real node answers sendTransaction with an error). */
      preflight: boolean;
      signature: string;
      err: RpcTransactionError;
      message: string;
      logs: string[];
      unitsConsumed: number;
    };

const START_SLOT = 1_000;
// Block height trails the slot (slots skipped before this chain's first block), as on a real cluster:
// code that mixes the two up sees numbers that do not match.
const SKIPPED_SLOTS = 100;
// A blockhash stays usable for 150 blocks (MAX_PROCESSING_AGE).
const BLOCKHASH_VALIDITY_SLOTS = 150;
// getSignatureStatuses without searchTransactionHistory looks in the status cache only: about 300
// slots' worth (MAX_CACHE_ENTRIES).
const STATUS_CACHE_SLOTS = 300;
const LAMPORTS_PER_SIGNATURE = 5_000n;

const base58 = getBase58Decoder();
const messageDecoder = getCompiledTransactionMessageDecoder();

/**
 * A real SVM (litesvm) with the bookkeeping a cluster adds around it: slots, blockhashes that stay
 * valid for 150 slots, commitment (confirmed at once, finalized on request or after a number of
 * slots), the history of every transaction with its balances, and transactions on a fork that can
 * be dropped. One transaction per slot.
 */
export class SolanaLedger {
  readonly svm: LiteSVM;
  private currentSlot = START_SLOT;
  private finalized = START_SLOT;
  private sequence = 0;
  private readonly blockhashSlots = new Map<string, number>();
  private readonly entries = new Map<string, LedgerEntry>();
  private readonly byAddress = new Map<string, LedgerEntry[]>();

  constructor(private readonly autoFinalizeSlots: number | undefined) {
    if (autoFinalizeSlots !== undefined && (!Number.isInteger(autoFinalizeSlots) || autoFinalizeSlots < 0)) {
      throw new RangeError(`autoFinalizeSlots must be a non-negative integer, got ${autoFinalizeSlots}`);
    }
    // litesvm accepts only its latest blockhash; the ledger checks the 150-slot window itself, so a
    // transaction signed before another one landed still goes through, as on a cluster.
    this.svm = new LiteSVM().withBlockhashCheck(false);
    this.enterSlot(START_SLOT);
    this.blockhashSlots.set(this.svm.latestBlockhash(), START_SLOT);
  }

  slot(): number {
    return this.currentSlot;
  }

  finalizedSlot(): number {
    return this.finalized;
  }

  blockHeight(): number {
    return this.currentSlot - SKIPPED_SLOTS;
  }

  /** The blockhash of the newest slot and the last block height a transaction using it can land at. */
  latestBlockhash(): { blockhash: string; lastValidBlockHeight: number } {
    const blockhash = this.svm.latestBlockhash();
    const producedAt = this.blockhashSlots.get(blockhash) ?? this.currentSlot;
    return { blockhash, lastValidBlockHeight: producedAt - SKIPPED_SLOTS + BLOCKHASH_VALIDITY_SLOTS };
  }

  /** Everything landed so far (but transactions on a fork) becomes finalized. */
  finalize(): void {
    this.finalized = this.currentSlot;
  }

  /** Produces `count` empty slots. */
  advanceSlots(count: number): void {
    if (!Number.isInteger(count) || count < 0) {
      throw new RangeError(`count must be a non-negative integer, got ${count}`);
    }
    if (count === 0) return;
    this.enterSlot(this.currentSlot + count);
    this.closeSlot();
  }

  /**
   * Runs a transaction in a new slot and records it. A transaction the cluster would not include
   * (bad signature, unknown or expired blockhash, a fee payer who cannot pay, one already processed)
   * takes no slot and changes nothing. With `preflight` the transaction is simulated first and turned
   * away when it fails, as sendTransaction does unless skipPreflight; without it a failing program
   * lands with `err` set and its fee paid. With `fork` it is simulated only (see {@link LedgerEntry.fork}).
   */
  submit(transaction: Transaction, options: { preflight: boolean; fork: boolean }): Submission {
    const signature = getSignatureFromTransaction(transaction);
    const message = messageDecoder.decode(transaction.messageBytes);
    const reject = (
      err: RpcTransactionError,
      preflight: boolean,
      meta?: TransactionMetadata,
    ): Submission => ({
      landed: false,
      preflight,
      signature,
      err,
      message: describeTransactionError(err),
      logs: meta?.logs() ?? [],
      unitsConsumed: Number(meta?.computeUnitsConsumed() ?? 0n),
    });
    if (message.version !== 'legacy' && message.version !== 0)
      return reject('UnsupportedVersion', options.preflight);
    if ('addressTableLookups' in message && (message.addressTableLookups?.length ?? 0) > 0) {
      // Lookup tables would need their accounts on this chain; no test needs them yet.
      return reject('AddressLookupTableNotFound', options.preflight);
    }
    if (this.entries.has(signature)) return reject('AlreadyProcessed', options.preflight);
    const blockhash = message.lifetimeToken;
    const producedAt = this.blockhashSlots.get(blockhash);
    if (producedAt === undefined || this.currentSlot + 1 > producedAt + BLOCKHASH_VALIDITY_SLOTS) {
      return reject('BlockhashNotFound', options.preflight);
    }
    if (Object.values(transaction.signatures).some((each) => each === null)) {
      return reject('SignatureFailure', options.preflight);
    }
    if (options.preflight) {
      const simulated = this.svm.simulateTransaction(transaction);
      if (simulated instanceof FailedTransactionMetadata) {
        return reject(rpcTransactionError(simulated.err()), true, simulated.meta());
      }
    }

    const accountKeys = message.staticAccounts.map(String);
    const pre = accountKeys.map((key) => this.canonicalAccount(key));
    const preTokenBalances = this.tokenBalances(pre);
    const previousSlot = this.currentSlot;
    this.enterSlot(previousSlot + 1);

    let meta: TransactionMetadata;
    let err: RpcTransactionError | null = null;
    let post: (AccountSnapshot | null)[];
    if (options.fork) {
      const simulated = this.svm.simulateTransaction(transaction);
      if (simulated instanceof FailedTransactionMetadata) {
        err = rpcTransactionError(simulated.err());
        meta = simulated.meta();
        if (!failsInsideBlock(err)) {
          this.enterSlot(previousSlot);
          return reject(err, false, meta);
        }
        // The failed program's changes are rolled back; only the fee leaves the fee payer.
        post = pre.map((account, index) =>
          index === 0 && account
            ? { ...account, lamports: account.lamports - transactionFee(message) }
            : account,
        );
      } else {
        meta = simulated.meta();
        const changed = new Map(
          simulated.postAccounts().map((account) => [String(account.address), account]),
        );
        post = accountKeys.map((key, index) => {
          const account = changed.get(key);
          if (!account) return pre[index] ?? null;
          return snapshot(account.lamports, String(account.programAddress), account.executable, account.data);
        });
      }
    } else {
      const result = this.svm.sendTransaction(transaction);
      if (result instanceof FailedTransactionMetadata) {
        err = rpcTransactionError(result.err());
        meta = result.meta();
        // litesvm keeps in its history exactly the transactions a block would include (a failed
        // program pays its fee and is recorded); the others changed nothing.
        if (this.svm.getTransaction(signature) === null) {
          this.enterSlot(previousSlot);
          return reject(err, false, meta);
        }
      } else {
        meta = result;
      }
      post = accountKeys.map((key) => this.canonicalAccount(key));
    }

    const header = {
      numRequiredSignatures: message.header.numSignerAccounts,
      numReadonlySignedAccounts: message.header.numReadonlySignerAccounts,
      numReadonlyUnsignedAccounts: message.header.numReadonlyNonSignerAccounts,
    };
    const entry: LedgerEntry = {
      sequence: this.sequence++,
      signature,
      signatures: Object.values(transaction.signatures).map((bytes) =>
        base58.decode(bytes ?? new Uint8Array(64)),
      ),
      wire: Uint8Array.from(getTransactionEncoder().encode(transaction)),
      slot: this.currentSlot,
      blockTime: Math.floor(Date.now() / 1000),
      version: message.version,
      header,
      accountKeys,
      writable: accountKeys.map((_, index) => isWritable(header, accountKeys.length, index)),
      recentBlockhash: blockhash,
      instructions: message.instructions.map((instruction) => ({
        programIdIndex: instruction.programAddressIndex,
        accounts: instruction.accountIndices ?? [],
        data: Uint8Array.from(instruction.data ?? []),
        stackHeight: null,
      })),
      innerInstructions: innerInstructionsOf(meta),
      err,
      fee: transactionFee(message),
      logMessages: meta.logs(),
      computeUnitsConsumed: meta.computeUnitsConsumed(),
      pre,
      post,
      preTokenBalances,
      postTokenBalances: this.tokenBalances(post),
      fork: options.fork,
    };
    this.entries.set(signature, entry);
    for (const key of new Set(accountKeys)) {
      const list = this.byAddress.get(key) ?? [];
      list.push(entry);
      this.byAddress.set(key, list);
    }
    this.closeSlot();
    return { landed: true, entry };
  }

  /** Removes a transaction sent with dropLater, as if its fork had been abandoned. */
  drop(signature: string): void {
    const entry = this.entries.get(signature);
    if (!entry) throw new Error(`unknown transaction ${signature} (dropped already?)`);
    if (!entry.fork) {
      throw new Error(`transaction ${signature} was not sent with dropLater: only those can be dropped`);
    }
    this.entries.delete(signature);
    for (const key of new Set(entry.accountKeys)) {
      const list = this.byAddress.get(key)?.filter((each) => each !== entry) ?? [];
      if (list.length > 0) this.byAddress.set(key, list);
      else this.byAddress.delete(key);
    }
  }

  isFinalized(entry: LedgerEntry): boolean {
    return !entry.fork && entry.slot <= this.finalized;
  }

  /** The transaction, when it is visible at `commitment`. */
  transaction(signature: string, commitment: Commitment): LedgerEntry | null {
    const entry = this.entries.get(signature);
    if (!entry || (commitment === 'finalized' && !this.isFinalized(entry))) return null;
    return entry;
  }

  /**
   * A signature's status. Without `searchHistory` only the status cache answers, which forgets
   * transactions some 300 slots old.
   */
  status(signature: string, searchHistory: boolean): LedgerEntry | null {
    const entry = this.entries.get(signature);
    if (!entry) return null;
    if (!searchHistory && entry.slot < this.currentSlot - STATUS_CACHE_SLOTS) return null;
    return entry;
  }

  /**
   * The transactions naming `owner` among their account keys, newest first, as
   * getSignaturesForAddress pages them. An unknown `before` (or one not visible at the commitment)
   * gives an empty page and an unknown `until` is no stop, as a validator's blockstore does.
   */
  signaturesFor(
    owner: string,
    options: { limit: number; before?: string; until?: string; commitment: Commitment },
  ): LedgerEntry[] {
    const visible = (entry: LedgerEntry | undefined): entry is LedgerEntry =>
      entry !== undefined && (options.commitment !== 'finalized' || this.isFinalized(entry));
    let newestSequence = Number.POSITIVE_INFINITY;
    if (options.before !== undefined) {
      const before = this.entries.get(options.before);
      if (!visible(before)) return [];
      newestSequence = before.sequence;
    }
    const until = options.until === undefined ? undefined : this.entries.get(options.until);
    const oldestSequence = visible(until) ? until.sequence : Number.NEGATIVE_INFINITY;
    const list = this.byAddress.get(owner) ?? [];
    const page: LedgerEntry[] = [];
    for (let index = list.length - 1; index >= 0 && page.length < options.limit; index -= 1) {
      const entry = list[index]!;
      if (entry.sequence >= newestSequence || !visible(entry)) continue;
      if (entry.sequence <= oldestSequence) break;
      page.push(entry);
    }
    return page;
  }

  /**
   * An account as a node shows it at `commitment`. Finalized: as it was before the first transaction
   * past the finalized slot that wrote it. Confirmed: the canonical account with the changes of
   * transactions on a fork laid over it (lamports and token amounts as deltas, so a later canonical
   * transaction on the same account still shows).
   */
  account(owner: string, commitment: Commitment): AccountSnapshot | null {
    const canonical = this.canonicalAccount(owner);
    const touching = this.byAddress.get(owner) ?? [];
    if (commitment === 'finalized') {
      for (const entry of touching) {
        const index = entry.accountKeys.indexOf(owner);
        if (entry.fork || entry.slot <= this.finalized || !entry.writable[index]) continue;
        const before = entry.pre[index] ?? null;
        return before && before.data === null ? { ...before, data: canonical?.data ?? null } : before;
      }
      return canonical;
    }
    let account = canonical;
    for (const entry of touching) {
      const index = entry.accountKeys.indexOf(owner);
      if (entry.fork && entry.writable[index]) {
        account = layFork(account, entry.pre[index] ?? null, entry.post[index] ?? null);
      }
    }
    return account;
  }

  /** Decimals of a mint on the canonical chain; null when there is no such mint. */
  mintDecimals(mint: string): number | null {
    const account = this.canonicalAccount(mint);
    if (!account?.data || !isTokenProgram(account.owner) || account.data.length < 82) return null;
    return account.data[44] ?? null;
  }

  /** The data of a program account (snapshots leave it out). */
  programData(key: string): Uint8Array {
    const account = this.svm.getAccount(address(key));
    return account.exists ? Uint8Array.from(account.data) : new Uint8Array();
  }

  private canonicalAccount(key: string): AccountSnapshot | null {
    const account = this.svm.getAccount(address(key));
    if (!account.exists) return null;
    return snapshot(account.lamports, String(account.programAddress), account.executable, account.data);
  }

  private tokenBalances(accounts: (AccountSnapshot | null)[]): TokenBalanceRecord[] {
    return accounts.flatMap((account, accountIndex) => {
      const token = account ? parseTokenAccount(account) : null;
      const decimals = token ? this.mintDecimals(token.mint) : null;
      if (!token || decimals === null) return [];
      return [
        {
          accountIndex,
          mint: token.mint,
          owner: token.owner,
          programId: account!.owner,
          amount: token.amount,
          decimals,
        },
      ];
    });
  }

  /** Moves the clock to `slot` (the slot a transaction about to run lands in). */
  private enterSlot(slot: number): void {
    const clock = this.svm.getClock();
    clock.slot = BigInt(slot);
    clock.unixTimestamp = BigInt(Math.floor(Date.now() / 1000));
    this.svm.setClock(clock);
    this.currentSlot = slot;
  }

  /** Ends the current slot: its blockhash becomes the latest, old ones expire, finality follows. */
  private closeSlot(): void {
    this.svm.expireBlockhash();
    this.blockhashSlots.set(this.svm.latestBlockhash(), this.currentSlot);
    for (const [blockhash, producedAt] of this.blockhashSlots) {
      if (producedAt + BLOCKHASH_VALIDITY_SLOTS >= this.currentSlot) break;
      this.blockhashSlots.delete(blockhash);
    }
    if (this.autoFinalizeSlots !== undefined) {
      this.finalized = Math.max(this.finalized, this.currentSlot - this.autoFinalizeSlots);
    }
  }
}

function snapshot(
  lamports: bigint,
  owner: string,
  executable: boolean,
  data: ArrayLike<number>,
): AccountSnapshot | null {
  // An account left with no lamports is gone once the transaction ends.
  if (lamports === 0n) return null;
  return { lamports, owner, executable, data: executable ? null : Uint8Array.from(data) };
}

export function isTokenProgram(owner: string): boolean {
  return owner === TOKEN_PROGRAM || owner === TOKEN_2022_PROGRAM;
}

/** Mint, owner and amount of an initialized SPL token account (Token or Token-2022); null for anything else. */
export function parseTokenAccount(
  account: AccountSnapshot,
): { mint: string; owner: string; amount: bigint } | null {
  const data = account.data;
  if (!data || !isTokenProgram(account.owner) || data.length < 165) return null;
  // Token-2022 accounts with extensions are longer and say what they are in byte 165 (2 = account).
  if (data.length > 165 && (account.owner !== TOKEN_2022_PROGRAM || data[165] !== 2)) return null;
  if (data[108] === 0) return null; // state: uninitialized
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  return {
    mint: base58.decode(data.subarray(0, 32)),
    owner: base58.decode(data.subarray(32, 64)),
    amount: view.getBigUint64(64, true),
  };
}

function layFork(
  account: AccountSnapshot | null,
  before: AccountSnapshot | null,
  after: AccountSnapshot | null,
): AccountSnapshot | null {
  if (after === null) return null;
  if (account === null) return after;
  // An account the fork created that the canonical chain created as well keeps the canonical lamports (its rent).
  const lamports = before === null ? account.lamports : account.lamports + after.lamports - before.lamports;
  let data = account.data;
  const current = parseTokenAccount(account);
  const tokensBefore = before ? parseTokenAccount(before) : null;
  const tokensAfter = parseTokenAccount(after);
  if (data && current && tokensAfter && current.mint === tokensAfter.mint) {
    data = Uint8Array.from(data);
    const amount = current.amount + tokensAfter.amount - (tokensBefore?.amount ?? 0n);
    new DataView(data.buffer).setBigUint64(64, amount < 0n ? 0n : amount, true);
  }
  return lamports > 0n ? { ...account, lamports, data } : null;
}

function isWritable(header: LedgerEntry['header'], keyCount: number, index: number): boolean {
  if (index < header.numRequiredSignatures) {
    return index < header.numRequiredSignatures - header.numReadonlySignedAccounts;
  }
  return index < keyCount - header.numReadonlyUnsignedAccounts;
}

function innerInstructionsOf(meta: TransactionMetadata): LedgerEntry['innerInstructions'] {
  return meta.innerInstructions().flatMap((inner, index) =>
    inner.length === 0
      ? []
      : [
          {
            index,
            instructions: inner.map((each) => {
              const compiled = each.instruction();
              return {
                programIdIndex: compiled.programIdIndex(),
                accounts: [...compiled.accounts()],
                data: Uint8Array.from(compiled.data()),
                stackHeight: each.stackHeight(),
              };
            }),
          },
        ],
  );
}

const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
// Programs built into the validator: an instruction of theirs reserves 3,000 compute units by
// default, any other 200,000 (what the priority fee is charged on when no limit is set).
const BUILTIN_PROGRAMS = new Set([
  '11111111111111111111111111111111',
  COMPUTE_BUDGET_PROGRAM,
  'AddressLookupTab1e1111111111111111111111111',
  'BPFLoaderUpgradeab1e11111111111111111111111',
  'BPFLoader2111111111111111111111111111111111',
  'BPFLoader1111111111111111111111111111111111',
  'LoaderV411111111111111111111111111111111111',
  'Vote111111111111111111111111111111111111111',
]);

/** 5,000 lamports a signature plus the priority fee the compute budget instructions ask for. */
function transactionFee(message: {
  staticAccounts: readonly string[];
  header: { numSignerAccounts: number };
  instructions: readonly { programAddressIndex: number; data?: ArrayLike<number> }[];
}): bigint {
  const programOf = (index: number) => String(message.staticAccounts[index] ?? '');
  let unitLimit: bigint | null = null;
  let microLamportsPerUnit = 0n;
  let defaultLimit = 0n;
  for (const instruction of message.instructions) {
    const program = programOf(instruction.programAddressIndex);
    const data = Uint8Array.from(instruction.data ?? []);
    defaultLimit += BUILTIN_PROGRAMS.has(program) ? 3_000n : 200_000n;
    if (program !== COMPUTE_BUDGET_PROGRAM) continue;
    const view = new DataView(data.buffer);
    if (data[0] === 2 && data.length >= 5) unitLimit = BigInt(view.getUint32(1, true));
    if (data[0] === 3 && data.length >= 9) microLamportsPerUnit = view.getBigUint64(1, true);
  }
  const units = unitLimit ?? (defaultLimit < 1_400_000n ? defaultLimit : 1_400_000n);
  const priorityFee = (microLamportsPerUnit * units + 999_999n) / 1_000_000n;
  return LAMPORTS_PER_SIGNATURE * BigInt(message.header.numSignerAccounts) + priorityFee;
}
